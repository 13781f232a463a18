"""A read spreadsheet (`Sheet`, its `SheetRow`s), the cells before any format reads
them (`CellTable`), and what a format says of them (`Claim`, `Hints`: sheets/formats.py).

    table = CellTable("posts.csv", "posts.csv", "posts.csv", header_cells, rows)
    table.headers   # ('channel', 'title', ...): row 1 as text, trailing blanks dropped

Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from zoneinfo import ZoneInfo

from channelkit.errors import FieldError
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.columns import CALENDAR_FIELDS

Row = tuple[int, Sequence[object]]


@dataclass(frozen=True)
class SheetRow:
    """One data row: its number as the spreadsheet shows it, and its raw cells."""

    number: int
    cells: tuple[object, ...]


@dataclass(frozen=True)
class Sheet:
    """A read spreadsheet: headers as written, the field of each column, non-empty rows.

    `source` is the file's name, `name` the worksheet's (the file's name again for CSV).
    `zone` is the time zone named in the time column's header (`scheduled_at
    (Europe/Berlin)`), which reads its wall times. `is_calendar`: the file has an `id`
    column (written by `channelkit calendar export`). A file from another tool has its
    `layout` (`publish.layouts`), a `reading` that says how it was read, and `problems`:
    per row number, what could not be read for certain (an ambiguous date).
    """

    source: str
    name: str
    headers: tuple[str, ...]
    fields: tuple[str | None, ...]
    rows: tuple[SheetRow, ...]
    zone: ZoneInfo | None = None
    layout: str | None = None
    reading: str | None = None
    problems: Mapping[int, tuple[FieldError, ...]] = dataclasses.field(default_factory=dict)

    def row_fields(self, row: SheetRow) -> dict[str, object]:
        """The row's post values by field name (ignored and calendar columns left out)."""
        return {
            field: value
            for field, value in zip(self.fields, row.cells, strict=True)
            if field and field not in CALENDAR_FIELDS
        }

    def row_calendar(self, row: SheetRow) -> dict[str, object]:
        """The row's calendar values (`id`, `updated_at`, `status`, `action`, `exported`)."""
        return {
            field: value
            for field, value in zip(self.fields, row.cells, strict=True)
            if field in CALENDAR_FIELDS
        }

    @property
    def is_calendar(self) -> bool:
        return any(field in CALENDAR_FIELDS for field in self.fields)


@dataclass(frozen=True)
class CellTable:
    """A file's cells as read, before a format claims them: row 1 (`header_cells`), the
    non-blank rows below, and `not_utf8`, the refusal of a text file that is not UTF-8
    (read as Windows-1252 all the same: only another tool's file may be so)."""

    source: str
    name: str
    where: str  # the file (and sheet) as messages name it
    header_cells: tuple[object, ...]
    rows: tuple[Row, ...]
    not_utf8: str | None = None

    @cached_property
    def headers(self) -> tuple[str, ...]:
        """Row 1 as text, without the blank cells at its end."""
        headers = [header_text(cell) for cell in self.header_cells]
        while headers and not headers[-1]:
            headers.pop()
        return tuple(headers)


@dataclass(frozen=True)
class Claim:
    """A format's "this file is mine": how many columns it recognised, and its reading."""

    placed: int
    read: Callable[[Choices], Sheet]


@dataclass(frozen=True)
class Hints:
    """What a format makes of a file it does not claim: `problems` with the header row
    (as a posts file), `meanings` (header, the field it holds, in whose files), and
    `shape` (a layout without a header row: its columns)."""

    problems: tuple[str, ...] = ()
    meanings: tuple[tuple[str, str, str], ...] = ()
    shape: str | None = None


def header_text(cell: object) -> str:
    return "" if cell is None else str(cell).strip()


def blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())
