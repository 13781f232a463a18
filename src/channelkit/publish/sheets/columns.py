"""The columns of a posts spreadsheet: names, accepted spellings and what goes in them.

Headers match case- and space-insensitively (`Scheduled At`, `scheduled_at` and
`SCHEDULED-AT` are one column). Unknown headers are errors, not silently dropped: a typo
such as `titel` would otherwise turn into "title is required" on every row. Pure: no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from channelkit._constants import SPREADSHEET_IGNORED_COLUMNS
from channelkit.publish.layouts.meanings import SAID, meaning
from channelkit.publish.post.cells import column_letter
from channelkit.publish.post.fields import arranged, by_name


@dataclass(frozen=True)
class SheetColumn:
    """One spreadsheet column: its field name, other accepted headers and a description."""

    name: str
    aliases: tuple[str, ...]
    description: str
    required: bool = False


# Columns that are not post fields: the two-column alternative to scheduled_at, and the
# row's own time zone.
_TIME_COLUMNS = {
    "date": SheetColumn(
        "date", ("publish_date",), "Alternative to scheduled_at: the day, YYYY-MM-DD."
    ),
    "time": SheetColumn(
        "time", ("publish_time",), "Alternative to scheduled_at: the time of day, HH:MM."
    ),
    "timezone": SheetColumn(
        "timezone",
        ("time_zone", "tz"),
        "Optional IANA time zone of this row's time (Europe/Berlin); else --tz is used.",
    ),
}


def _column(name: str) -> SheetColumn:
    if name in _TIME_COLUMNS:
        return _TIME_COLUMNS[name]
    field = by_name(name)
    # scheduled_at may be given as date and time instead; map_headers checks that pair.
    required = field.required and field.kind != "instant"
    return SheetColumn(field.name, field.aliases, field.description, required)


# Every post field of the contract (`publish.post_fields`), and the time columns.
COLUMNS = tuple(
    _column(name)
    for name in arranged(
        ("channel", "title", "body", "scheduled_at", "date", "time"), tail=("timezone",)
    )
)

# A calendar (`channelkit calendar export`) adds these: which post a row is, the version
# that was exported, and what to do with it. A file with an `id` column is a calendar.
CALENDAR_COLUMNS = (
    SheetColumn("id", ("post_id",), "The post's id; blank for a new post."),
    SheetColumn("updated_at", (), "When the post last changed, as exported; leave it as it is."),
    SheetColumn("status", (), "The post's status when exported (draft or scheduled); read only."),
    SheetColumn("action", (), "Blank, cancel (back to draft) or publish-now (needs --yes)."),
    SheetColumn("exported", (), "A fingerprint of the row as exported; leave it as it is."),
)
CALENDAR_FIELDS = tuple(column.name for column in CALENDAR_COLUMNS)

_BY_HEADER = {
    header: column.name
    for column in (*COLUMNS, *CALENDAR_COLUMNS)
    for header in (column.name, *column.aliases)
}
_ZONE_SUFFIX = re.compile(r"^(?P<base>.*?)\s*\((?P<zone>[^()]*)\)\s*$")


def normalise_header(header: str) -> str:
    """`" Scheduled At "` -> `"scheduled_at"`."""
    return re.sub(r"[\s\-_]+", "_", header.strip().lower()).strip("_")


def split_header(header: str) -> tuple[str, str | None]:
    """`"scheduled_at (Europe/Berlin)"` -> `("scheduled_at", "Europe/Berlin")`.

    A parenthesised suffix after a known column name is a note (for the time column: the
    zone its wall times are in); anything else is returned whole.
    """
    match = _ZONE_SUFFIX.match(header)
    if match is not None and normalise_header(match["base"]) in _BY_HEADER:
        return match["base"], match["zone"].strip() or None
    return header, None


def map_headers(headers: Sequence[str | None]) -> tuple[list[str | None], list[str]]:
    """The field each column holds (None: ignored) and the problems with the header row.

    `headers` is the header row as written, with None or "" for empty header cells (those
    columns are ignored; the reader checks they hold no values).
    """
    fields: list[str | None] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for index, header in enumerate(headers):
        key = normalise_header(split_header(header)[0]) if header else ""
        field = _BY_HEADER.get(key)
        if field is None:
            if key and key not in SPREADSHEET_IGNORED_COLUMNS:
                problems.append(_unknown(header or "", index))
            fields.append(None)
            continue
        if field in seen:
            problems.append(
                f"column {field!r} appears twice (columns {column_letter(seen[field])} and "
                f"{column_letter(index)}); keep one"
            )
        seen.setdefault(field, index)
        fields.append(field)
    missing = [column.name for column in COLUMNS if column.required and column.name not in seen]
    if "scheduled_at" not in seen and not {"date", "time"} <= seen.keys():
        missing.append("scheduled_at (or date and time)")
    if missing:
        problems.append(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return fields, problems


def expected_columns() -> str:
    """The accepted column names, for messages."""
    return ", ".join(column.name for column in COLUMNS)


def _unknown(header: str, index: int) -> str:
    """An unknown header, with what its words mean (`post_link`: a link); spelling
    distance (`Titel`: title?) only when no word tells."""
    role = meaning(header)
    if role is not None:
        hint = f": by its name, {SAID[role]}"
    else:
        known = list(_BY_HEADER)
        close = difflib.get_close_matches(normalise_header(header), known, n=1, cutoff=0.7)
        hint = f"; did you mean {_BY_HEADER[close[0]]!r}?" if close else ""
    return f"unknown column {header.strip()!r} (column {column_letter(index)}){hint}"
