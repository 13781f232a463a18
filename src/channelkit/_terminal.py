"""Text bound for a terminal, made harmless: no escape sequences, no reordering. Pure.

A title or cell may hold ANSI escapes (colours, cursor moves, a cleared screen), C0/C1
control characters or bidi controls that make a line read backwards. Whatever prints
user-supplied text on a terminal passes it through `escape_controls` first, which shows
each such character as a visible `\\x1b` / `\\u202e` escape instead of obeying it.
"""

from __future__ import annotations

import sys
import unicodedata


def escape_controls(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with control and format characters shown as escapes.

    >>> escape_controls("\\x1b[31mred\\u202e")
    '\\\\x1b[31mred\\\\u202e'
    """
    return "".join(_shown(char, keep_newlines) for char in text)


def _shown(char: str, keep_newlines: bool) -> str:
    if char == "\n" and keep_newlines:
        return char
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    if unicodedata.category(char) in ("Cf", "Zl", "Zp"):  # bidi, zero-width, line separators
        return f"\\u{code:04x}"
    return char


def in_jupyter() -> bool:
    """Whether this code runs in a Jupyter kernel (an IPython shell under ipykernel)."""
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    get_ipython = getattr(shell, "get_ipython", None)
    return get_ipython is not None and get_ipython() is not None


def progress_visible() -> bool:
    """Whether a progress bar would be seen: a Jupyter kernel, or stderr on a terminal."""
    return in_jupyter() or sys.stderr.isatty()
