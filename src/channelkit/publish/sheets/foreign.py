"""Another tool's bulk file as a format: one per layout (`publish/layouts/`).

It claims a file its layout recognises (`layouts/read.py`: the headers, or for a file
without a header row the shape of row 1) and reads it as channelkit's own columns, with
a `reading` that says how and the `problems` of rows it could not read for certain. For a
file it does not claim, its hints are what the file's headers mean in its layout.

    claim = LayoutFormat(LAYOUTS["buffer"]).claim(table)
"""

from __future__ import annotations

from channelkit._constants import SPREADSHEET_MAX_ROWS
from channelkit.errors import SpreadsheetError
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.read import (
    NATIVE_COLUMNS,
    Choices,
    Found,
    meanings,
    recognise,
    shape,
    translate,
)
from channelkit.publish.sheets.sheet import Claim, Hints, Sheet, SheetRow, Table


class LayoutFormat:
    """The files of one layout."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def what(self) -> str | None:
        """Its header row, as a hint names it (none for a layout without one)."""
        return f"the columns of {self.layout.a_name} file" if self.layout.has_header else None

    def claim(self, table: Table) -> Claim | None:
        found = recognise(self.layout, table.header_cells, table.rows)
        if found is None:
            return None
        return Claim(len(found.placed), lambda choices: _read(table, found, choices))

    def hints(self, table: Table) -> Hints:
        name = self.layout.name
        return Hints(
            meanings=tuple((h, f, name) for h, f in meanings(self.layout, table.headers)),
            shape=None if self.layout.has_header else shape(self.layout),
        )


def _read(table: Table, found: Found, choices: Choices) -> Sheet:
    where = table.where
    if len(found.rows) > SPREADSHEET_MAX_ROWS:
        raise SpreadsheetError(
            f"{where} has more than {SPREADSHEET_MAX_ROWS:,} rows of posts; split it "
            "into smaller files"
        )
    if not found.rows:
        raise SpreadsheetError(f"{where} has a header row but no posts below it")
    try:
        translated = translate(found, choices)
    except SpreadsheetError as exc:
        raise SpreadsheetError(f"{where}: {exc}") from None
    reading = translated.reading
    if table.not_utf8:
        reading += "; text read as Windows-1252 (cp1252): the file is not UTF-8"
    return Sheet(
        table.source,
        table.name,
        NATIVE_COLUMNS,
        NATIVE_COLUMNS,
        tuple(SheetRow(number, tuple(cells)) for number, cells in translated.rows),
        layout=translated.layout.key,
        reading=reading,
        problems=translated.problems,
    )
