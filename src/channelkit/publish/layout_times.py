"""Dates and times as other tools' bulk files write them, read without guessing.

`stamp` reads one cell into a `Stamp`: the year, the two other date numbers and whether
their order is known (year first, a real spreadsheet date, separate cells, a format in
the header), the time of day (24-hour or `10:00 AM`, `9:40pm`) and any UTC offset.
`settle` decides the day/month order of a column of `A/B/YYYY` dates: a first number
above 12 anywhere in the column means day first for the whole column, a second number
above 12 month first; a column with neither is settled only by the order the user names
(`--date-order`), and otherwise each ambiguous date is refused naming both readings.
`native_text` writes the result as channelkit's own `YYYY-MM-DD HH:MM`, which the one
time parser (`publish.times`) then reads in the row's time zone. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time

from channelkit._constants import EXCEL_SERIAL_MIN
from channelkit.errors import TimeError
from channelkit.publish.times import excel_serial_to_datetime

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
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
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
    return f"cannot read {text!r} as a date"


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


def settle(stamps: dict[int, Stamp], picked: str | None) -> tuple[str | None, str]:
    """The day/month order of a column (`dmy`, `mdy` or None) and why, in words.

    `picked` (the user's `--date-order`) settles it unless the column contradicts it;
    a column whose dates are written both ways settles nothing (every unordered date of it
    is then refused)."""
    day_first = next((n for n, s in stamps.items() if not s.ordered and s.first > 12), None)
    month_first = next((n for n, s in stamps.items() if not s.ordered and s.second > 12), None)
    if day_first is not None and month_first is not None:
        return None, (
            f"dates written both day first (row {day_first}: {stamps[day_first].text}) and "
            f"month first (row {month_first}: {stamps[month_first].text})"
        )
    found = "dmy" if day_first is not None else "mdy" if month_first is not None else None
    if picked is not None:
        if found is not None and found != picked:
            row = day_first if found == "dmy" else month_first
            assert row is not None
            return None, (
                f"--date-order {picked} ({ORDERS[picked]}) but row {row} writes "
                f"{stamps[row].text}, which is only a date read {ORDERS[found]}"
            )
        return picked, f"dates read {ORDERS[picked]} (--date-order {picked})"
    if found is not None:
        row = day_first if found == "dmy" else month_first
        assert row is not None
        return found, f"dates read {ORDERS[found]} (row {row} writes {stamps[row].text})"
    return None, ""


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
