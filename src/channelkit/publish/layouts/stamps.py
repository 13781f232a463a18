"""Dates and times as other tools' bulk files write them, read without guessing.

`stamp` reads one cell into a `Stamp`: the year, the two other date numbers and whether
their order is known (year first, a real spreadsheet date, separate cells, a format in
the header), the time of day (24-hour or `10:00 AM`, `9:40pm`) and any UTC offset.
`settle` decides the day/month order of a column of `A/B/YYYY` dates from evidence a
careful person accepts (docs/metrics.md, "Day/month order"): rows written both ways refuse
the column; rows written one way settle the dates written both ways only when they are
enough (`enough`: never one row alone, which may be a typo); else the order the user names
(`--date-order`) does, and otherwise each ambiguous date is refused naming both readings.
`native_text` writes the result as channelkit's own `YYYY-MM-DD HH:MM`, which the one
time parser (`publish.times`) then reads in the row's time zone. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time

from channelkit._constants import DATE_ORDER_MIN_ROWS, DATE_ORDER_ONE_IN, EXCEL_SERIAL_MIN
from channelkit.errors import TimeError
from channelkit.publish.post.times import excel_serial_to_datetime, short_year

ORDERS = {"dmy": "day first", "mdy": "month first"}
_CLOCK = (
    r"(?P<h>\d{1,2})(?::(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?)?"
    r"\s*(?P<ampm>[aApP]\.?\s*[mM]\.?)?"
)
_OFFSET = r"\s*(?P<off>Z|z|UTC|[+-]\d{2}:?\d{2})?"
_YEAR_FIRST = re.compile(
    r"(?P<y>\d{4})[-/.](?P<a>\d{1,2})[-/.](?P<b>\d{1,2})(?:(?:[ T]+|\s*,\s*)"
    + _CLOCK
    + r")?"
    + _OFFSET
)
_YEAR_LAST = re.compile(
    r"(?P<a>\d{1,2})[-/.](?P<b>\d{1,2})[-/.](?P<y>\d{4})(?:(?:[ T]+|\s*,\s*)"
    + _CLOCK
    + r")?"
    + _OFFSET
)
_TIME_ONLY = re.compile(_CLOCK)
# A date in English words, as Publer's Date column allows ("next Friday at 2 PM": 'The
# Ultimate CSV Bulk Scheduler for Social Media', publer.com/blog/ultimate-csv-bulk-
# scheduler-social-media/): it means a day only against the upload's, so it is refused.
_PHRASE = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|next|this|in \d+ (?:day|week|hour)s?|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SHOWN_ROWS = 5
# A Java/Unicode date pattern as SocialBee's header writes it, token by token.
_PATTERN_TOKENS = {
    "yyyy": r"(?P<y>\d{4})",
    "MM": r"(?P<a>\d{1,2})",
    "dd": r"(?P<b>\d{1,2})",
    "HH": r"(?P<h>\d{1,2})",
    "hh": r"(?P<h>\d{1,2})",
    "mm": r"(?P<mi>\d{2})",
    "ss": r"(?P<s>\d{2})",
    "a": r"\s*(?P<ampm>[aApP]\.?\s*[mM]\.?)",
}
_TOKEN = re.compile("|".join(sorted(map(re.escape, _PATTERN_TOKENS), key=len, reverse=True)))


@dataclass(frozen=True)
class Stamp:
    """A date (and maybe a time) as one cell writes it.

    `first`/`second` are the two numbers beside the year as written; with `ordered` they
    are month and day, else their order is still to be settled (`settle`).
    """

    text: str
    year: int
    first: int
    second: int
    ordered: bool
    clock: time | None = None
    offset: str | None = None

    def day_month(self, order: str | None) -> tuple[int, int] | None:
        """(day, month) in `order` ("dmy"/"mdy"; None: only an ordered stamp knows)."""
        if self.ordered:
            return self.second, self.first
        if order == "dmy":
            return self.first, self.second
        if order == "mdy":
            return self.second, self.first
        return None

    @property
    def ambiguous(self) -> bool:
        """Both orders give a date, and not the same one."""
        return (
            not self.ordered
            and self.first != self.second
            and self.first <= 12
            and self.second <= 12
        )

    @property
    def settles(self) -> str | None:
        """The one order in which this unordered date is a date (a number above 12)."""
        if self.ordered or (self.first > 12) == (self.second > 12):
            return None
        return "dmy" if self.first > 12 else "mdy"

    @property
    def only_order(self) -> str:
        """The order that reads it when the column settles none: its own, else either
        (both give the same date, or neither gives one)."""
        return self.settles or "dmy"

    def readings(self) -> str:
        """`3 April 2027 (day first) or 4 March 2027 (month first)`."""
        shown = []
        for order, words in ORDERS.items():
            day, month = self.day_month(order) or (0, 0)
            shown.append(f"{_spoken(self.year, month, day)} ({words})")
        return " or ".join(shown)


def stamp(value: object, *, pattern: str | None = None) -> Stamp | str:
    """The date in `value` (a cell), or why it is not one. `pattern` is a format such as
    `yyyy-MM-dd HH:mm:ss` that the column's header names."""
    if isinstance(value, datetime):
        clock = value.time().replace(microsecond=0)
        return Stamp(_iso(value), value.year, value.month, value.day, True, clock)
    if isinstance(value, date):
        return Stamp(value.isoformat(), value.year, value.month, value.day, True)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _serial_stamp(float(value))
    text = " ".join(str(value).split())
    if _NUMBER.fullmatch(text):
        return _serial_stamp(float(text))
    if pattern is not None:
        match = _pattern_regex(pattern).fullmatch(text)
        if match is None:
            return f"{text!r} is not written as {pattern} (the format its header names)"
        return _from_match(text, match, ordered=True)
    for regex, ordered in ((_YEAR_FIRST, True), (_YEAR_LAST, False)):
        match = regex.fullmatch(text)
        if match is not None:
            return _from_match(text, match, ordered=ordered)
    if _PHRASE.search(text):
        return (
            f"{text!r} is a date in words, which the tool reads against the day of upload; "
            "write the date itself (YYYY-MM-DD HH:MM)"
        )
    return short_year(text) or f"cannot read {text!r} as a date"


def clock(value: object) -> time | str:
    """A time of day from a cell: `09:00`, `21:30:00`, `10:00 AM`, `9:40pm`, a time value
    or a day fraction (Excel)."""
    if isinstance(value, datetime):
        return value.time().replace(microsecond=0)
    if isinstance(value, time):
        return value.replace(microsecond=0)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1:
        return _serial(EXCEL_SERIAL_MIN + float(value)).time()
    text = " ".join(str(value).split())
    match = _TIME_ONLY.fullmatch(text)
    found = _clock(match) if match is not None and (match["mi"] or match["ampm"]) else None
    return found if found is not None else f"cannot read {text!r} as a time of day"


@dataclass(frozen=True)
class Order:
    """The day/month order of a column of dates, as its rows and the user settle it.

    `order` reads the dates written both ways (None: they are refused as ambiguous, with
    `unsettled` saying why); `conflict` refuses every unordered date of the column (rows
    written both ways, or a `--date-order` the column contradicts); `note` says how the
    column was read.

        column = {2: stamp("13/02/2027 10:00"), 3: stamp("01/02/2027 10:00")}
        settle(column, None).day(column[3])  # "'01/02/2027 10:00' is ambiguous: ..."
    """

    order: str | None = None
    note: str = ""
    conflict: str = ""
    unsettled: str = ""

    def day(self, read: Stamp) -> date | str:
        """The date `read` names in this column, or why it cannot be read for certain."""
        if self.conflict and not read.ordered:
            return f"{read.text!r}: {self.conflict}"
        if read.ambiguous and self.order is None:
            why = self.unsettled or "nothing in the column settles the order"
            return (
                f"{read.text!r} is ambiguous: it could be {read.readings()}; {why}; say "
                "which with --date-order dmy or --date-order mdy"
            )
        order = read.only_order if self.order is None else self.order
        day, month = read.day_month(order) or (0, 0)
        try:
            return date(read.year, month, day)
        except ValueError:
            how = "" if read.ordered else f" read {ORDERS[order]}"
            return f"{read.text!r} is not a date{how}"


def settle(stamps: Mapping[int, Stamp], picked: str | None) -> Order:
    """The day/month order of a column (docs/metrics.md, "Day/month order").

    A row settles the order when its date is a date in one order only (a number above 12);
    the settling rows of one order settle the column when no row settles the other and
    they are enough evidence (`enough`). `picked` (the user's `--date-order`) settles it
    unless the column settles the other order: then the column contradicts it."""
    sides = {
        order: [n for n, s in sorted(stamps.items()) if s.settles == order] for order in ORDERS
    }
    ambiguous = sum(1 for s in stamps.values() if s.ambiguous)
    if picked is not None:
        other = "mdy" if picked == "dmy" else "dmy"
        if sides[other] and enough(len(sides[other]), ambiguous + len(sides[picked])):
            return Order(
                conflict=f"--date-order {picked} ({ORDERS[picked]}) but "
                f"{_rows(sides[other], stamps)} (dates only read {ORDERS[other]}); check "
                "the order the file was written in"
            )
        return Order(picked, f"dates read {ORDERS[picked]} (--date-order {picked})")
    if sides["dmy"] and sides["mdy"]:
        first, second = sides["dmy"][0], sides["mdy"][0]
        return Order(
            conflict=f"dates written both day first (row {first}: {stamps[first].text}) and "
            f"month first (row {second}: {stamps[second].text}); write them one way, or say "
            "which with --date-order dmy or --date-order mdy"
        )
    side = next((order for order, rows in sides.items() if rows), None)
    if side is None:
        return Order()
    rows = sides[side]
    if not ambiguous or enough(len(rows), ambiguous):
        return Order(side, f"dates read {ORDERS[side]} ({_rows(rows, stamps)})")
    return Order(
        unsettled=f"only {_rows(rows, stamps)} (a date only read {ORDERS[side]}): too little "
        f"to settle the column (it takes {DATE_ORDER_MIN_ROWS} such rows, and one in "
        f"{DATE_ORDER_ONE_IN} of the dates the order decides: one row may be a typo)"
    )


def enough(settling: int, ambiguous: int) -> bool:
    """Whether `settling` rows written one way settle `ambiguous` rows written both ways:
    at least DATE_ORDER_MIN_ROWS of them, and at least one in DATE_ORDER_ONE_IN of the rows
    whose reading depends on the order (settling + ambiguous)."""
    return settling >= DATE_ORDER_MIN_ROWS and settling * DATE_ORDER_ONE_IN >= settling + ambiguous


def _rows(rows: Sequence[int], stamps: Mapping[int, Stamp]) -> str:
    """`row 3 writes 13/02/2027 10:00` / `rows 3, 5 and 9 write dates like 13/02/2027`."""
    example = stamps[rows[0]].text
    if len(rows) == 1:
        return f"row {rows[0]} writes {example}"
    shown = [str(n) for n in rows[:_SHOWN_ROWS]]
    more = len(rows) - len(shown)
    listed = (
        f"{', '.join(shown)} and {more} more"
        if more
        else (f"{', '.join(shown[:-1])} and {shown[-1]}")
    )
    return f"rows {listed} write dates like {example}"


def native_text(day: date, moment: time, offset: str | None) -> str:
    """`2026-12-03 09:00` (seconds and offset only when given): what channelkit reads."""
    text = f"{day.year:04d}-{day:%m-%d} {moment:%H:%M}"
    if moment.second:
        text += f":{moment:%S}"
    return text + (offset or "")


def spoken(day: date) -> str:
    """`3 April 2027`: a date no reader can take the other way round."""
    return _spoken(day.year, day.month, day.day)


def _spoken(year: int, month: int, day: int) -> str:
    try:
        return f"{day} {date(year, month, day):%B %Y}"
    except ValueError:
        return f"no date ({day:02d}/{month:02d})"


def _from_match(text: str, match: re.Match[str], *, ordered: bool) -> Stamp | str:
    groups = match.groupdict()
    moment: time | None = None
    if groups.get("h") is not None:
        moment = _clock(match)
        if moment is None:
            return f"{text!r} has no valid time of day"
    return Stamp(
        text,
        int(match["y"]),
        int(match["a"]),
        int(match["b"]),
        ordered,
        moment,
        groups.get("off"),
    )


def _clock(match: re.Match[str]) -> time | None:
    groups = match.groupdict()  # a header's format may lack minutes, seconds or AM/PM
    hour, minute, second = int(groups["h"]), int(groups.get("mi") or 0), int(groups.get("s") or 0)
    marker = (groups.get("ampm") or "").lower()
    if marker:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if marker.startswith("p") else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return time(hour, minute, second)


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    position = 0
    for token in _TOKEN.finditer(pattern):
        parts.append(re.escape(pattern[position : token.start()]))
        parts.append(_PATTERN_TOKENS[token.group()])
        position = token.end()
    parts.append(re.escape(pattern[position:]))
    return re.compile("".join(parts).replace(r"\ ", r"\s+"))


def _serial(value: float) -> datetime:
    return excel_serial_to_datetime(value)


def _serial_stamp(value: float) -> Stamp | str:
    """An Excel date number (a real date: its order is known)."""
    try:
        return stamp(_serial(value))
    except TimeError as exc:
        return str(exc)


def _iso(value: datetime) -> str:
    return f"{value.year:04d}-{value:%m-%d %H:%M}"
