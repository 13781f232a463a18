"""Another tool's bulk file, recognised and translated into channelkit's own rows.

`recognise` says whether a file's first row fits a `Layout`
(publish/layouts/declared.py): every header one of the layout's (a header may go on in
brackets or after ` - `), every required one present; for a layout without headers, the
shape of row 1 (a date and time then a message; five numbers then a message). Each
layout is one format of `publish/sheets/formats.py`, which asks them all in one loop.
`translate` turns every row into the native columns (channel, title, body, scheduled_at,
cover_image_url, tags) that the one validation path then checks as any posts file: what
the other tool does not have is filled visibly (a title from the message, the link kept
in the body, the channel from the user's `Choices`), and a value that cannot be read for
certain (an ambiguous date) becomes that row's error, never a guess.

    found = recognise(LAYOUTS["hootsuite"], header_cells, rows)
    if found is not None:
        translated = translate(found, Choices(channel="news"))
        print(translated.reading)   # read as a Hootsuite bulk file: date-time, message, ...

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, time
from functools import cached_property

from channelkit._spec import TITLE_MAX_CHARS
from channelkit.errors import FieldError, InvalidParameterError, SpreadsheetError
from channelkit.publish.layouts.declared import ROLE_FIELDS, Column, Layout
from channelkit.publish.layouts.stamps import (
    ORDERS,
    Order,
    Stamp,
    clock,
    native_text,
    settle,
    stamp,
)
from channelkit.publish.post.cells import column_letter
from channelkit.publish.post.times import short_year
from channelkit.publish.post.validation import cell_value

NATIVE_COLUMNS = ("channel", "title", "body", "scheduled_at", "cover_image_url", "tags")
# A network column's TRUE and FALSE as Excel writes them in its languages (its TRUE and
# FALSE function pages, support.microsoft.com: "WAHR (Funktion)"/"FALSCH" de-de,
# "VRAI"/"FAUX" fr-fr, "Función VERDADERO"/"FALSO" es-es, "WAAR, functie"/"ONWAAR, functie"
# nl-nl, "VERO"/"FALSO" it-it, "Função VERDADEIRO"/"FALSO" pt-br), with 1/0, yes/no and the
# marks people type; anything else is refused, never read as TRUE.
_TRUE = frozenset(
    {"true", "wahr", "vrai", "verdadero", "waar", "vero", "verdadeiro"}
    | {"1", "yes", "y", "x", "✓", "✔"}
)
_FALSE = frozenset({"false", "falsch", "faux", "falso", "onwaar", "0", "no", "n", ""})
# A sentence ends at . ! or ? (and any closing quote or bracket) before a space or the end.
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’»)\]]*(?=\s|$)")
# A period after these does not end a sentence: a title (`Dr.`), a short form (`approx.`),
# an initial or initialism (`J.`, `U.S.`, `e.g.`), a number or a date (`4.`, `1.5.`).
_ABBREVIATIONS = frozenset(
    {"dr", "mr", "mrs", "ms", "mx", "prof", "st", "jr", "sr", "sen", "rep", "gov", "gen"}
    | {"vs", "etc", "inc", "ltd", "co", "corp", "no", "nr", "approx", "ca", "dept", "fig"}
    | {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
    | {"mon", "tue", "wed", "thu", "fri", "sat", "sun", "bzw", "usw", "ggf", "inkl", "str"}
)
_NOT_AN_END = re.compile(r"(?:[^\W\d_]\.)*[^\W\d_]|[\d.]+")
_BRACKETED = re.compile(r"(?P<base>.*?)\s*\((?P<note>[^()]*)\)\s*")
_CELL_RANGES = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59)}

Row = tuple[int, Sequence[object]]


@dataclass(frozen=True)
class Choices:
    """What the user says about a file from another tool.

    `channel`: one channel for every row; `names`: the file's profile/network names and the
    channel each goes to (`--map NAME=CHANNEL`); `date_order`: `dmy` or `mdy`, the order the
    tool was told at upload (used only where the file does not settle it; a channelkit
    posts file takes it too, for dates written A/B/YYYY); `layouts`: the layouts the file
    may be in (`--layout-file`; none given: every layout channelkit and the team know).

        Choices(names=(("Facebook", "news"), ("LinkedIn", "eng")), date_order="dmy")
    """

    channel: str | None = None
    names: tuple[tuple[str, str], ...] = ()
    date_order: str | None = None
    layouts: tuple[Layout, ...] = ()

    def __post_init__(self) -> None:
        if self.date_order is not None and self.date_order not in ORDERS:
            orders = ", ".join(f"{key} ({words})" for key, words in ORDERS.items())
            raise InvalidParameterError("date_order", f"{self.date_order!r} is not one of {orders}")


@dataclass(frozen=True)
class Placed:
    """A layout column found in the file: where, as what, under which header."""

    index: int
    column: Column
    header: str
    pattern: str | None = None


@dataclass(frozen=True)
class Found:
    """A recognised file: its layout, where each column is, and its data rows."""

    layout: Layout
    placed: tuple[Placed, ...]
    rows: tuple[Row, ...]

    @cached_property
    def roles(self) -> frozenset[str]:
        """The roles of the columns the file has (once: every row asks)."""
        return frozenset(place.column.role for place in self.placed)

    @cached_property
    def known(self) -> frozenset[int]:
        return frozenset(place.index for place in self.placed)

    @cached_property
    def named(self) -> tuple[Placed, ...]:
        """The columns that name a profile or network."""
        return tuple(p for p in self.placed if p.column.role in ("profile", "network"))


@dataclass(frozen=True)
class Translated:
    """The file as native rows: `rows` hold values for `NATIVE_COLUMNS`; `problems` the
    errors of rows that could not be read for certain; `reading` says how it was read."""

    layout: Layout
    rows: tuple[Row, ...]
    reading: str
    problems: Mapping[int, tuple[FieldError, ...]] = field(default_factory=dict)


def recognise(layout: Layout, header_cells: Sequence[object], rows: Sequence[Row]) -> Found | None:
    """The file as `layout` reads it, or None when it is not in that layout.
    `header_cells` is row 1; `rows` the others."""
    if not layout.has_header:
        return _by_shape(layout, header_cells, rows)
    placed = _by_headers(layout, [cell_value(cell) for cell in header_cells])
    return Found(layout, placed, tuple(rows)) if placed else None


def meanings(layout: Layout, headers: Sequence[str]) -> list[tuple[str, str]]:
    """For an unrecognised file: the headers `layout` knows, and the native field each
    becomes (`('Posting Time', 'scheduled_at')` in a Buffer file)."""
    found: list[tuple[str, str]] = []
    for header in headers:
        key, _ = _key(header)
        column = next((c for c in layout.columns if key and c.matches(key) and _field(c)), None)
        if column is not None:
            found.append((header.strip(), _field(column)))
    return found


def shape(layout: Layout) -> str:
    """The columns of a layout without a header row, for messages: `Hootsuite: date-time,
    message, link`."""
    return f"{layout.name}: {', '.join(column.label for column in layout.columns)}"


def first_row_hint(header_cells: Sequence[object], shapes: Sequence[str]) -> str | None:
    """For an unrecognised file whose row 1 starts with a date and time: it holds a post,
    not headers (a bulk file without a header row, in none of the `shapes` of the layouts
    without one)."""
    if not header_cells:
        return None
    read = stamp(header_cells[0])
    if isinstance(read, str):
        short = short_year(cell_value(header_cells[0]))
        return f"row 1 looks like a post, not a header row, and {short}" if short else None
    if read.clock is None:
        return None
    return (
        f"row 1 starts with a date and time ({read.text!r}): it looks like a post, not a "
        "header row; the files without one that channelkit reads have these columns "
        f"({'; '.join(shapes)})"
    )


def translate(found: Found, choices: Choices) -> Translated:
    """Every row of `found` as native values; a file the choices cannot place (no channel
    for it) raises `SpreadsheetError` naming what is missing."""
    layout = found.layout
    names, unread = _names_by_row(found)
    channel_of, channel_note = _channels(layout, names, choices, unread=bool(unread))
    stamps, order = _dates(found, choices.date_order)
    rows: list[Row] = []
    problems: dict[int, tuple[FieldError, ...]] = {}
    for number, cells in found.rows:
        by_role = _by_role(found, cells)
        errors: list[FieldError] = list(unread.get(number, []))
        message = _joined(by_role.get("message", []))
        title = _joined(by_role.get("title", [])) or derived_title(message, layout.title)
        body = with_links(message, _split(by_role.get("link", [])))
        images = _split(by_role.get("image", []))
        if len(images) > 1:
            errors.append(
                FieldError("cover_image_url", f"{len(images)} images; a post has one cover image")
            )
        for label, value in by_role.get("unsupported", []):
            errors.append(
                FieldError(
                    "body",
                    f"{label} = {str(value)[:40]!r}: a channelkit post has no "
                    "video or GIF; leave it empty or put its link in the message",
                )
            )
        channel = channel_of(number, names.get(number, []), errors)
        when = _when(layout, found, number, cells, stamps, order, errors)
        tags = _joined(by_role.get("tags", []))
        blank_row = [value for value, _ in by_role.get("extra", [])]
        if blank_row:
            errors.append(
                FieldError("body", f"a value in a column without a header: {blank_row[0]!r}")
            )
        rows.append(
            (
                number,
                (
                    channel,
                    title or None,
                    body or None,
                    when,
                    images[0] if images else None,
                    tags or None,
                ),
            )
        )
        if errors:
            problems[number] = tuple(errors)
    reading = _reading(found, channel_note, order.note)
    return Translated(layout, tuple(rows), reading, problems)


def derived_title(message: str, rule: str = "first sentence") -> str:
    """The first sentence of the message's first line (`rule` "first line": the whole
    line), cut at a word within the title limit: `Town hall on Thursday.` from `Town hall
    on Thursday. Join us ...`; never cut after an abbreviation, an initial or a number
    (`Q&A with Dr. Lee`, `The U.S. team`, `Save the date: 1.5. at noon`)."""
    line = next((line.strip() for line in message.splitlines() if line.strip()), "")
    end = _sentence_end(line) if rule == "first sentence" else len(line)
    title = " ".join(line[:end].split())
    if len(title) <= TITLE_MAX_CHARS:
        return title
    cut = title[: TITLE_MAX_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def _sentence_end(line: str) -> int:
    """Where the line's first sentence ends (the line's length when it has one sentence)."""
    for end in _SENTENCE_END.finditer(line):
        if not end.group().startswith("."):
            return end.end()
        before = line[: end.start()].split()
        word = before[-1].lstrip("\"'“‘«([") if before else ""
        if word.casefold() not in _ABBREVIATIONS and not _NOT_AN_END.fullmatch(word):
            return end.end()
    return len(line)


def with_links(message: str, links: Sequence[str]) -> str:
    """The message with each link the message does not already hold on its own line at
    the end, as a Markdown link (`<https://...>`)."""
    extra = [link for link in links if link not in message]
    if not extra:
        return message
    tail = "\n".join(f"<{link}>" for link in extra)
    return f"{message}\n\n{tail}" if message else tail


def _by_headers(layout: Layout, headers: Sequence[str]) -> tuple[Placed, ...]:
    placed: list[Placed] = []
    used: set[int] = set()
    for index, header in enumerate(headers):
        if not header:
            continue
        key, note = _key(header)
        matches = [n for n, column in enumerate(layout.columns) if column.matches(key)]
        if not matches:
            return ()
        position = matches[0]
        column = layout.columns[position]
        if position in used and not column.repeats:
            return ()
        used.add(position)
        pattern = note if column.role == "when" and layout.dates == "header" else None
        if column.role == "when" and layout.dates == "header" and not note:
            return ()
        placed.append(Placed(index, column, header.strip(), pattern))
    required = {n for n, column in enumerate(layout.columns) if column.required}
    return tuple(placed) if required <= used else ()


def _by_shape(layout: Layout, first: Sequence[object], rows: Sequence[Row]) -> Found | None:
    cells = list(first)
    while cells and cell_value(cells[-1]) == "":
        cells.pop()
    width = len(layout.columns)
    required = sum(1 for column in layout.columns if column.required)
    if not required <= len(cells) <= width:
        return None
    roles = [column.role for column in layout.columns]
    # Row 1 is a post: a message, and a date and time in one cell or in five (at the
    # places the layout declares them).
    if "message" not in roles or not cell_value(cells[roles.index("message")]):
        return None
    if "when" in roles:
        read = stamp(cells[roles.index("when")])
        if isinstance(read, str) or read.clock is None:
            return None
    elif {"year", *_CELL_RANGES} <= set(roles):
        if _number(cells[roles.index("year")], 1900, 9999) is None:
            return None
        if any(_number(cells[roles.index(r)], *_CELL_RANGES[r]) is None for r in _CELL_RANGES):
            return None
    else:
        return None
    placed = tuple(
        Placed(index, column, column.label) for index, column in enumerate(layout.columns)
    )
    return Found(layout, placed, ((1, tuple(first)), *rows))


def _by_role(found: Found, cells: Sequence[object]) -> dict[str, list[tuple[str, object]]]:
    values: dict[str, list[tuple[str, object]]] = {}
    known = found.known
    for place in found.placed:
        value = cells[place.index] if place.index < len(cells) else None
        if cell_value(value):
            values.setdefault(place.column.role, []).append((place.header, value))
    for index, value in enumerate(cells):
        if index not in known and cell_value(value):
            values.setdefault("extra", []).append((str(index), value))
    return values


def _names_by_row(found: Found) -> tuple[dict[int, list[str]], dict[int, list[FieldError]]]:
    """The profile/network names each row gives (TRUE network columns, profile cells), and
    the network cells that are neither TRUE nor FALSE in any language Excel writes."""
    names: dict[int, list[str]] = {}
    unread: dict[int, list[FieldError]] = {}
    for number, cells in found.rows:
        for place in found.named:
            value = cell_value(cells[place.index] if place.index < len(cells) else None)
            if place.column.role == "profile" and value:
                names.setdefault(number, []).extend(
                    part.strip() for part in value.split(",") if part.strip()
                )
            elif place.column.role == "network" and value.casefold() in _TRUE:
                names.setdefault(number, []).append(place.header)
            elif place.column.role == "network" and value.casefold() not in _FALSE:
                unread.setdefault(number, []).append(
                    FieldError(
                        "channel",
                        f"cell {column_letter(place.index)}{number} ({place.header}) holds "
                        f"{value[:40]!r}, neither TRUE nor FALSE (also WAHR/FALSCH, VRAI/FAUX, "
                        "VERDADERO/FALSO, WAAR/ONWAAR, VERO/FALSO, 1/0, yes/no): write TRUE "
                        "to post there, FALSE or nothing not to",
                    )
                )
    return names, unread


# A row's channel from its number and the names it gives; problems go in the list.
_ChannelOf = Callable[[int, list[str], list[FieldError]], str | None]


def _channels(
    layout: Layout, names: Mapping[int, list[str]], choices: Choices, *, unread: bool
) -> tuple[_ChannelOf, str]:
    """How a row's channel is found, and that rule in words. With `unread` network cells
    (neither TRUE nor FALSE) the rows say what is wrong, not the file."""
    named = layout.roles() & {"profile", "network"}
    given = choices.channel or (None if choices.names else layout.channel)
    if choices.channel and choices.names:
        raise SpreadsheetError(
            "give either --channel (one channel for the file) or --map, not both"
        )
    if given:
        source = "--channel" if choices.channel else "the layout file's channel"

        def one(_number: int, _names: list[str], _errors: list[FieldError]) -> str | None:
            return given

        return one, f"channel {given} for every row ({source})"
    found = sorted({name for row in names.values() for name in row}, key=str.casefold)
    if not named or (not found and not unread):
        what = "names no channel" if not named else "names no profile in any row"
        raise SpreadsheetError(
            f"read as {layout.a_name} bulk file, which {what}: give the channel for the whole "
            "file with --channel CHANNEL"
        )
    mapping = {
        name.strip().casefold(): channel.strip()
        for name, channel in (*layout.channels, *choices.names)  # the user's word last: it wins
    }
    missing = [name for name in found if name.casefold() not in mapping]
    if missing:
        shown = " ".join(f"--map {_quoted(name)}=CHANNEL" for name in missing)
        raise SpreadsheetError(
            f"read as {layout.a_name} bulk file naming {', '.join(found)}: no channel for "
            f"{', '.join(missing)}; map each name to a channel ({shown}), or give one "
            "channel for the whole file (--channel CHANNEL)"
        )

    def mapped(number: int, row_names: list[str], errors: list[FieldError]) -> str | None:
        channels = dict.fromkeys(mapping[name.casefold()] for name in row_names)
        if not channels:
            if not any(error.field == "channel" for error in errors):  # a cell already says
                errors.append(FieldError("channel", "no profile or network named in this row"))
            return None
        if len(channels) > 1:
            pairs = ", ".join(f"{name} → {mapping[name.casefold()]}" for name in row_names)
            errors.append(
                FieldError(
                    "channel",
                    f"names {len(channels)} channels ({pairs}); a post goes "
                    "to one channel: split the row",
                )
            )
            return None
        return next(iter(channels))

    pairs = ", ".join(f"{name} → {mapping[name.casefold()]}" for name in found)
    return mapped, f"channels by name: {pairs}"


def _dates(found: Found, picked: str | None) -> tuple[dict[int, Stamp | str], Order]:
    """Each row's date (read, or why not) and the column's day/month order."""
    layout = found.layout
    place = next((p for p in found.placed if p.column.role in ("when", "date")), None)
    stamps: dict[int, Stamp | str] = {}
    if place is None:
        return stamps, Order()
    for number, cells in found.rows:
        value = cells[place.index] if place.index < len(cells) else None
        if cell_value(value):
            stamps[number] = stamp(value, pattern=place.pattern)
    if layout.dates != "either":
        return stamps, Order()
    read = {number: value for number, value in stamps.items() if isinstance(value, Stamp)}
    return stamps, settle(read, picked)


def _when(
    layout: Layout,
    found: Found,
    number: int,
    cells: Sequence[object],
    stamps: Mapping[int, Stamp | str],
    order: Order,
    errors: list[FieldError],
) -> object:
    """The row's time as channelkit's own text; the cell as written (and an error) when it
    cannot be read for certain; None when the file has no time (slots fill it)."""
    if layout.dates == "none":
        return None
    if layout.dates == "cells":
        return _from_cells(found, cells, errors)
    read = stamps.get(number)
    if read is None:
        return None  # blank: validation says scheduled_at is required
    if isinstance(read, str):
        errors.append(FieldError("scheduled_at", read))
        return _raw(found, cells)
    moment: time | str | None = read.clock
    if found.roles >= {"date", "time"}:
        place = next(p for p in found.placed if p.column.role == "time")
        value = cells[place.index] if place.index < len(cells) else None
        moment = clock(value) if cell_value(value) else "the time of day is blank"
    if moment is None:
        moment = f"{read.text!r} has no time of day"
    if not read.ordered and layout.dates != "either":  # the layout settles the order
        moment = (
            f"{read.text!r}: {layout.name} writes dates year first (YYYY-MM-DD); write it that way"
        )
    if read.offset is None and layout.offset_required and not isinstance(moment, str):
        moment = (
            f"{read.text!r} has no UTC offset: {layout.name} times carry one "
            "(2031-03-04T08:00:00Z, 2031-03-04T09:00:00+01:00)"
        )
    day = moment if isinstance(moment, str) else order.day(read)
    if isinstance(day, str) or isinstance(moment, str):
        errors.append(FieldError("scheduled_at", str(day)))
        return _raw(found, cells)
    # A layout whose times are UTC reads a time written without its Z as UTC, not in --tz.
    return native_text(day, moment, read.offset or ("Z" if layout.utc else None))


def _from_cells(found: Found, cells: Sequence[object], errors: list[FieldError]) -> object:
    parts: dict[str, int] = {}
    for place in found.placed:
        role = place.column.role
        if role in ("year", *_CELL_RANGES):
            value = cells[place.index] if place.index < len(cells) else None
            low, high = _CELL_RANGES.get(role, (1900, 9999))
            number = _number(value, low, high)
            if number is None:
                errors.append(
                    FieldError("scheduled_at", f"{role} {cell_value(value)!r} is not {low}..{high}")
                )
                return _raw(found, cells)
            parts[role] = number
    try:
        day = date(parts["year"], parts["month"], parts["day"])
    except ValueError as exc:
        errors.append(FieldError("scheduled_at", f"not a date ({exc})"))
        return _raw(found, cells)
    return native_text(day, time(parts["hour"], parts["minute"]), None)


def _raw(found: Found, cells: Sequence[object]) -> str:
    """The time cells as written, for the row's error message."""
    shown = [
        cell_value(cells[p.index] if p.index < len(cells) else None)
        for p in found.placed
        if ROLE_FIELDS[p.column.role] == "scheduled_at"
    ]
    return " ".join(part for part in shown if part)


def _reading(found: Found, channel_note: str, order_note: str) -> str:
    layout = found.layout
    if layout.has_header:
        columns = ", ".join(f"{p.header} → {_field(p.column) or 'ignored'}" for p in found.placed)
        first = f"read as {layout.a_name} bulk file: {columns}"
    else:
        width = max((len(cells) for _, cells in found.rows), default=0)
        labels = [p.column.label for p in found.placed if p.index < width]
        first = f"read as {layout.a_name} bulk file: {', '.join(labels)}; no header row"
    roles = {p.column.role for p in found.placed}
    notes = [] if "title" in roles else ["title derived from the message (its first sentence)"]
    if "link" in roles:
        notes.append("links kept in the body as Markdown links")
    notes.append(channel_note)
    if layout.dates == "none":
        notes.append("no time column: give the times with --slots")
    if order_note and layout.dates == "either":
        notes.append(order_note)
    return "; ".join([first, *notes])


def _field(column: Column) -> str:
    return ROLE_FIELDS[column.role]


def _key(header: str) -> tuple[str, str | None]:
    """`postAtSpecificTime (yyyy-MM-dd HH:mm:ss)` → (`postatspecifictime`, the format);
    `Date - Intl. format or prompt` → (`date`, None); `Link(s)` → (`link(s)`, None)."""
    text = " ".join(header.split())
    note = None
    match = _BRACKETED.fullmatch(text)
    if match is not None and match["note"] != "s":
        text, note = match["base"], match["note"].strip()
    return text.split(" - ")[0].strip().casefold(), note


def _joined(values: Sequence[tuple[str, object]]) -> str:
    return "\n".join(cell_value(value) for _, value in values).strip()


def _split(values: Sequence[tuple[str, object]]) -> list[str]:
    """Cells that may hold several URLs separated by commas or spaces."""
    return [part for _, value in values for part in re.split(r"[,\s]+", cell_value(value)) if part]


def _number(value: object, low: int, high: int) -> int | None:
    text = cell_value(value)
    if not text.isdigit():
        return None
    number = int(text)
    return number if low <= number <= high else None


def _quoted(name: str) -> str:
    return f"'{name}'" if " " in name else name
