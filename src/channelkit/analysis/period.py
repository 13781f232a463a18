"""The analysis period: `[start, end)` in a timezone, as people say it, and its comparison.

Periods come two ways:

- `period="2026-10"` and friends (`parse_period`): a month, `"2026-Q3"`, `"2026"`,
  `"2026-W44"` (ISO week), `"2026-10-05"` (a day), relative `"7d"`/`"28d"`/`"12w"` ending
  with the last complete synced day, or the words `"week"`, `"month"`, `"quarter"` (the
  last complete one). Each knows its calendar kind, so `compared("previous")` of October is
  September and `compared("year")` is October a year earlier.
- `start`/`end` (`Period.resolve`) as dates, datetimes or ISO strings. A date (or a bare
  `YYYY-MM-DD`) means local midnight in `tz`; a naive datetime is local wall time in `tz`;
  an aware datetime is converted to `tz`. Its comparison has the same length.

Daily rows are whole UTC days that cannot be split, so a daily row counts in the period
when the local midnight of its date lies in `[start, end)`: for periods that start and end
at midnight that is simply `start_day <= date < end_day`.

    >>> p = parse_period("2026-10", tz="Europe/Berlin", last_day=date(2026, 11, 22))
    >>> p.label, p.compared("previous").label, p.compared("year").label
    ('October 2026', 'September 2026', 'October 2025')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from channelkit._constants import PERIOD_FIRST_YEAR, PERIOD_LAST_YEAR
from channelkit.errors import InvalidParameterError

Moment = date | datetime | str | np.datetime64
Kind = Literal["day", "week", "month", "quarter", "year", "days", "range"]
COMPARES = ("previous", "year")
PERIOD_WORDS = ("week", "month", "quarter")
PERIOD_EXAMPLES = (
    "'2026-10', '2026-Q3', '2026', '2026-W44', '2026-10-05', '7d', '12w', "
    "'week', 'month' or 'quarter'"
)

_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")
_QUARTER = re.compile(r"^(\d{4})-?Q([1-4])$", re.IGNORECASE)
_YEAR = re.compile(r"^(\d{4})$")
_WEEK = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RELATIVE = re.compile(r"^(\d+)\s*([dw])$", re.IGNORECASE)


def check_tz(tz: str) -> ZoneInfo:
    """The `ZoneInfo` for an IANA name, or an error naming `tz`."""
    if not isinstance(tz, str) or not tz.strip():
        raise InvalidParameterError("tz", f"{tz!r} is not an IANA timezone name")
    try:
        return ZoneInfo(tz.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidParameterError(
            "tz", f"{tz!r} is not an IANA timezone name (e.g. 'UTC', 'Europe/Berlin')"
        ) from None


def to_local(value: Moment, zone: ZoneInfo, *, param: str) -> datetime:
    """`value` as an aware datetime in `zone` (see the module docstring for the rules)."""
    moment: object = value
    if isinstance(moment, np.datetime64):
        if np.isnat(moment):
            raise InvalidParameterError(param, "is NaT (not a time)")
        # NumPy datetimes carry no zone: wall time in `zone`, like a naive datetime.
        moment = datetime.fromisoformat(str(moment.astype("datetime64[us]")))
    if isinstance(moment, str):
        text = moment.strip()
        try:
            moment = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            raise InvalidParameterError(
                param, f"{value!r} is not a date (YYYY-MM-DD) or an ISO 8601 date-time"
            ) from None
    if isinstance(moment, datetime):
        instant = moment
        if hasattr(instant, "to_pydatetime"):  # a pandas Timestamp: drop the nanoseconds
            instant = instant.to_pydatetime()
        _check_year(instant.year, instant, param)
        if instant.tzinfo is None:
            return instant.replace(tzinfo=zone)
        return instant.astimezone(zone)
    if isinstance(moment, date):
        _check_year(moment.year, moment, param)
        return datetime.combine(moment, time(), tzinfo=zone)
    raise InvalidParameterError(
        param, f"expected a date, a datetime or an ISO string, got {type(value).__name__}"
    )


def _check_year(year: int, value: object, param: str) -> None:
    if not PERIOD_FIRST_YEAR <= year <= PERIOD_LAST_YEAR:
        raise InvalidParameterError(
            param,
            f"{value} is outside the years {PERIOD_FIRST_YEAR}..{PERIOD_LAST_YEAR}; "
            "leave it out to mean 'from the first' / 'up to the last' synced day",
        )


def _day_at_or_after(moment: datetime) -> date:
    day = moment.date()
    return day if moment.timetz().replace(tzinfo=None) == time() else day + timedelta(days=1)


def _month_start(year: int, month: int) -> date:
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


@dataclass(frozen=True)
class Period:
    """A half-open period `[start, end)` in `tz`; either end may be open (None).

    >>> p = Period.resolve("2026-03-23", "2026-03-30", "Europe/Berlin")
    >>> p.start_day, p.end_day, p.previous().start_day
    (datetime.date(2026, 3, 23), datetime.date(2026, 3, 30), datetime.date(2026, 3, 16))

    `kind` is the calendar kind of a period given by name ("month", "week", "days", ...)
    or "range" for `start`/`end`; it decides the label and the comparison.
    """

    tz: str
    start: datetime | None = None
    end: datetime | None = None
    kind: Kind = "range"

    @classmethod
    def resolve(cls, start: Moment | None, end: Moment | None, tz: str) -> Period:
        zone = check_tz(tz)
        lo = None if start is None else to_local(start, zone, param="start")
        hi = None if end is None else to_local(end, zone, param="end")
        if lo is not None and hi is not None and hi <= lo:
            raise InvalidParameterError(
                "end", f"{hi.isoformat()} is not after start {lo.isoformat()}"
            )
        return cls(tz=tz.strip(), start=lo, end=hi)

    @classmethod
    def of_days(cls, first: date, stop: date, tz: str, kind: Kind = "range") -> Period:
        """Whole local days `[first, stop)` in `tz`."""
        zone = check_tz(tz)
        return cls(
            tz=tz.strip(),
            start=datetime.combine(first, time(), tzinfo=zone),
            end=datetime.combine(stop, time(), tzinfo=zone),
            kind=kind,
        )

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    @property
    def start_day(self) -> date | None:
        """First UTC date of the daily rows counted in the period."""
        return None if self.start is None else _day_at_or_after(self.start)

    @property
    def end_day(self) -> date | None:
        """First UTC date after the daily rows counted in the period."""
        return None if self.end is None else _day_at_or_after(self.end)

    @property
    def is_whole_days(self) -> bool:
        return all(m is None or m.timetz().replace(tzinfo=None) == time() for m in self.bounds)

    @property
    def bounds(self) -> tuple[datetime | None, datetime | None]:
        return self.start, self.end

    def previous(self) -> Period:
        """The period of the same length immediately before this one.

        Lengths are measured in local wall time, so the week before a DST change is a
        whole week too.
        """
        if self.start is None or self.end is None:
            raise InvalidParameterError("start", "a previous period needs both start and end")
        wall_start = self.start.replace(tzinfo=None)
        length = self.end.replace(tzinfo=None) - wall_start
        return Period(
            tz=self.tz, start=(wall_start - length).replace(tzinfo=self.zone), end=self.start
        )

    def compared(self, compare: str = "previous") -> Period:
        """The period this one is compared with.

        "previous": the previous period of the same calendar kind (October → September,
        W44 → W43, Q3 → Q2, 7 days → the 7 days before); "year": the same period a year
        earlier (October 2025, W44 of 2025, 29 February → 28 February).
        """
        if compare not in COMPARES:
            raise InvalidParameterError(
                "compare", f"{compare!r} is not one of {', '.join(map(repr, COMPARES))}"
            )
        if self.start is None or self.end is None:
            raise InvalidParameterError("start", "a comparison needs both start and end")
        first, stop = self.start.date(), self.end.date()
        if not self.is_whole_days or self.kind == "range" and compare == "previous":
            return replace(self.previous(), kind=self.kind)
        if compare == "year":
            if self.kind == "week":
                year, week, _ = first.isocalendar()
                start = _iso_week_start(year - 1, min(week, _weeks_in(year - 1)))
                return Period.of_days(start, start + timedelta(days=7), self.tz, "week")
            return Period.of_days(_year_earlier(first), _year_earlier(stop), self.tz, self.kind)
        months = {"month": 1, "quarter": 3, "year": 12}.get(self.kind)
        if months is not None:
            start = _month_start(first.year, first.month - months)
            return Period.of_days(start, first, self.tz, self.kind)
        return Period.of_days(first - (stop - first), first, self.tz, self.kind)

    @property
    def label(self) -> str:
        """Human-readable period: "October 2026", "Week 44, 2026", "Q3 2026", "7 days to
        22 November 2026" or, for start/end, "2026-03-23 to 2026-03-29 (UTC)"."""
        named = self._calendar_label(long=True)
        return named if named is not None else self._range_label()

    @property
    def short_label(self) -> str:
        """A compact label for plot titles: "Oct 2026", "W44 2026", "16–22 Nov 2026"."""
        named = self._calendar_label(long=False)
        return named if named is not None else self._range_label()

    def _calendar_label(self, *, long: bool) -> str | None:
        if self.kind == "range" or self.start is None or self.end is None:
            return None
        first, last = self.start.date(), self.end.date() - timedelta(days=1)
        month = "%B" if long else "%b"
        if self.kind == "day":
            return f"{first.day} {first.strftime(month)} {first.year}"
        if self.kind == "week":
            year, week, _ = first.isocalendar()
            return f"Week {week}, {year}" if long else f"W{week} {year}"
        if self.kind == "month":
            return first.strftime(f"{month} %Y")
        if self.kind == "quarter":
            return f"Q{(first.month - 1) // 3 + 1} {first.year}"
        if self.kind == "year":
            return str(first.year)
        days = (last - first).days + 1
        if long:
            return f"{days} days to {last.day} {last:%B %Y}"
        return f"{first.day} {first:%b} – {last.day} {last:%b %Y}"

    def _range_label(self) -> str:
        if self.start is None and self.end is None:
            return f"all time ({self.tz})"
        if self.is_whole_days:
            first = None if self.start is None else self.start.date().isoformat()
            last = None if self.end is None else (self.end.date() - timedelta(days=1)).isoformat()
        else:
            first = None if self.start is None else self.start.strftime("%Y-%m-%d %H:%M")
            last = None if self.end is None else self.end.strftime("%Y-%m-%d %H:%M")
        if first is None:
            return f"until {last} ({self.tz})"
        if last is None:
            return f"from {first} ({self.tz})"
        if first == last:
            return f"{first} ({self.tz})"
        return f"{first} to {last} ({self.tz})"


def _iso_week_start(year: int, week: int) -> date:
    return date.fromisocalendar(year, week, 1)


def _weeks_in(year: int) -> int:
    return date(year, 12, 28).isocalendar()[1]


def _year_earlier(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def parse_period(period: str, *, tz: str, last_day: date) -> Period:
    """The period a user names (see the module docstring), in whole local days of `tz`.

    `last_day` is the last complete synced day: relative periods end with it, and the
    words "week", "month", "quarter" mean the last such period that ends on or before it.

    >>> parse_period("2026-W44", tz="UTC", last_day=date(2026, 11, 22)).label
    'Week 44, 2026'
    >>> parse_period("7d", tz="UTC", last_day=date(2026, 11, 22)).label
    '7 days to 22 November 2026'
    """
    if not isinstance(period, str):
        raise InvalidParameterError(
            "period", f"expected text such as {PERIOD_EXAMPLES}, got {type(period).__name__}"
        )
    text = period.strip()
    found = _named(text, last_day)
    if found is None:
        raise InvalidParameterError(
            "period", f"{period!r} is not a period; use one of {PERIOD_EXAMPLES}"
        )
    first, stop, kind = found
    _check_year(first.year, period, "period")
    _check_year(stop.year, period, "period")
    return Period.of_days(first, stop, tz, kind)


def _named(text: str, last_day: date) -> tuple[date, date, Kind] | None:
    word = text.lower()
    stop_after = last_day + timedelta(days=1)
    if word == "week":
        stop = stop_after - timedelta(days=stop_after.weekday())
        return stop - timedelta(days=7), stop, "week"
    if word == "month":
        stop = date(stop_after.year, stop_after.month, 1)
        return _month_start(stop.year, stop.month - 1), stop, "month"
    if word == "quarter":
        stop = date(stop_after.year, stop_after.month - (stop_after.month - 1) % 3, 1)
        return _month_start(stop.year, stop.month - 3), stop, "quarter"
    if match := _RELATIVE.match(text):
        days = int(match.group(1)) * (7 if match.group(2).lower() == "w" else 1)
        if days < 1:
            raise InvalidParameterError("period", f"{text!r} must be at least one day")
        if days > (PERIOD_LAST_YEAR - PERIOD_FIRST_YEAR) * 366:
            raise InvalidParameterError("period", f"{text!r} is longer than the supported range")
        return stop_after - timedelta(days=days), stop_after, "days"
    try:
        if match := _MONTH.match(text):
            first = date(int(match.group(1)), int(match.group(2)), 1)
            return first, _month_start(first.year, first.month + 1), "month"
        if match := _QUARTER.match(text):
            first = date(int(match.group(1)), 3 * int(match.group(2)) - 2, 1)
            return first, _month_start(first.year, first.month + 3), "quarter"
        if match := _YEAR.match(text):
            year = int(match.group(1))
            return date(year, 1, 1), date(year + 1, 1, 1), "year"
        if match := _WEEK.match(text):
            year, week = int(match.group(1)), int(match.group(2))
            if not 1 <= week <= _weeks_in(year):
                raise InvalidParameterError(
                    "period", f"{text!r}: {year} has ISO weeks 1..{_weeks_in(year)}"
                )
            first = _iso_week_start(year, week)
            return first, first + timedelta(days=7), "week"
        if _DAY.match(text):
            first = date.fromisoformat(text)
            return first, first + timedelta(days=1), "day"
    except ValueError:
        raise InvalidParameterError("period", f"{text!r} is not a real date") from None
    return None
