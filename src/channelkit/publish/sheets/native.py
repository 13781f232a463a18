"""The channelkit posts file as a format: its header row is channelkit's own columns.

It claims a file whose every header is one of channelkit's (`sheets/columns.py`) and
whose time column names a zone channelkit knows; it reads each row's cells under those
columns, refusing what makes the file unusable as a whole (a value past the last header,
a column without a header, too many rows) and settling the day/month order of its
`A/B/YYYY` dates (`sheets/dates.py`). For a file it does not claim, its hints are the
problems with the header row.

    claim = NATIVE.claim(table)
    sheet = claim.read(Choices()) if claim else None
"""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import ZoneInfo

from channelkit._constants import SPREADSHEET_MAX_ROWS
from channelkit.errors import SpreadsheetError, TimeError
from channelkit.publish.layouts.read import Choices
from channelkit.publish.post.cells import column_letter
from channelkit.publish.post.times import time_zone
from channelkit.publish.sheets.columns import map_headers, split_header
from channelkit.publish.sheets.dates import settled_dates
from channelkit.publish.sheets.sheet import CellTable, Claim, Hints, Sheet, SheetRow, blank


class NativeFormat:
    """channelkit's own posts file (`NATIVE`)."""

    what = "channelkit's columns"

    def claim(self, table: CellTable) -> Claim | None:
        fields, problems, zone = _header_row(table.headers)
        if problems or not table.headers or table.not_utf8:
            return None
        placed = sum(1 for header in table.headers if header)
        return Claim(placed, lambda choices: _read(table, fields, zone, choices))

    def hints(self, table: CellTable) -> Hints:
        return Hints(problems=tuple(_header_row(table.headers)[1]))


NATIVE = NativeFormat()


def _header_row(
    headers: Sequence[str],
) -> tuple[list[str | None], list[str], ZoneInfo | None]:
    """The field of each column, the problems with the header row, and the zone the time
    column's header names."""
    fields, problems = map_headers(headers)
    zone = None
    for header, field in zip(headers, fields, strict=True):
        if field != "scheduled_at" or not header:
            continue
        named = split_header(header)[1]
        if named is None:
            break
        try:
            zone = time_zone(named)
        except TimeError as exc:
            problems.append(f"column {header.strip()!r}: {exc}")
        break
    return fields, problems, zone


def _read(
    table: CellTable, fields: Sequence[str | None], zone: ZoneInfo | None, choices: Choices
) -> Sheet:
    where = table.where
    if choices.channel or choices.names:
        raise SpreadsheetError(
            f"{where} is a channelkit posts file: its columns say where each post goes; "
            "--channel and --map are for files from other tools"
        )
    kept = [SheetRow(number, _cells(table, number, cells)) for number, cells in table.rows]
    if len(kept) > SPREADSHEET_MAX_ROWS:
        raise SpreadsheetError(
            f"{where} has more than {SPREADSHEET_MAX_ROWS:,} rows of posts; split it "
            "into smaller files"
        )
    if not kept:
        raise SpreadsheetError(f"{where} has a header row but no posts below it")
    dated, problems = settled_dates(
        fields, [(row.number, row.cells) for row in kept], choices.date_order
    )
    return Sheet(
        table.source,
        table.name,
        table.headers,
        tuple(fields),
        tuple(SheetRow(number, cells) for number, cells in dated),
        zone,
        problems=problems,
    )


def _cells(table: CellTable, number: int, cells: Sequence[object]) -> tuple[object, ...]:
    """The row's values under the headers; a value past the last header or under an
    empty one makes the file unusable (a stray separator, a column without a name)."""
    width = len(table.headers)
    values = [None if blank(value) else value for value in cells]
    extra = [index for index in range(width, len(values)) if values[index] is not None]
    if extra:
        raise SpreadsheetError(
            f"{table.where}: row {number} has a value in column {column_letter(extra[0])}, "
            f"past the last header ({column_letter(width - 1)}); check for a stray separator "
            "or an unquoted comma in that row"
        )
    values = (values + [None] * width)[:width]
    for index, header in enumerate(table.headers):
        if not header and values[index] is not None:
            raise SpreadsheetError(
                f"{table.where}: column {column_letter(index)} has values (row {number}) but "
                "no header; name it or delete the column"
            )
    return tuple(values)
