"""Where a cell is, as a spreadsheet program names it (column letters)."""

from __future__ import annotations


def column_letter(index: int) -> str:
    """Spreadsheet letter of the 0-based column `index` (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters
