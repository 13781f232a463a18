"""The analysis period: `[start, end)` in a timezone, as people say it, and its comparison.

Periods come two ways:

- `period="2026-10"` and friends (`parse_period`), in any case: a month (`"2026-10"`,
  `"October 2026"`, `"Oct 2026"`, or `"October"`: the latest October), a quarter
  (`"2026-Q3"`, `"Q3 2026"`, `"Q3"`), a year (`"2026"`), an ISO week (`"2026-W44"`), a day
  (`"2026-10-05"`, `"yesterday"`), days between two dates (`"2026-10-01..2026-10-15"`,
  both included), a number of days or weeks ending with the last complete synced day
  (`"7d"`, `"12w"`, `"last 28 days"`), the last complete week, month, quarter or year
  (`"last month"`, or just `"month"`) or the current one to date (`"this month"`,
  `"year to date"`, flagged by `to_date`). Each knows its calendar kind, so
  `compared("previous")` of October is September and `compared("year")` is October a year
  earlier.
- `start`/`end` (`Period.resolve`) as dates, datetimes or ISO strings. A date (or a bare
  `YYYY-MM-DD`) means local midnight in `tz`; a naive datetime is local wall time in `tz`;
  an aware datetime is converted to `tz`. Its comparison has the same length.

Every phrase resolves from one reference, the last complete synced day L (`last_day`);
"today" is the day after it, T. "yesterday" is L, "this week/month/quarter/year" the one
holding T, cut at T ("to date": through L; refused on its first day, when it has no
synced day yet), "last ..." the one before that, "7d" the 7 days before T, "October",
"Q3" and "W53" the latest one that began on or before L. A named week, month, quarter or
year still running at L ("2026-W53" on 1 January 2027) is cut at T and flagged `to_date`
too, so it is compared only with the same days of earlier periods.

Daily rows are whole UTC days that cannot be split, so a daily row counts in the period
when the local midnight of its date lies in `[start, end)`: for periods that start and end
at midnight that is simply `start_day <= date < end_day`.

    >>> p = parse_period("2026-10", tz=ZoneInfo("Europe/Berlin"), last_day=date(2026, 11, 22))
    >>> p.label, p.compared("previous").label, p.compared("year").label
    ('October 2026', 'September 2026', 'October 2025')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Literal, NamedTuple, cast
from zoneinfo import ZoneInfo

import numpy as np

from channelkit._constants import PERIOD_FIRST_YEAR, PERIOD_LAST_YEAR, SAME_AGE_MAX_DAYS
from channelkit._suggest import nearest
from channelkit.display import notes
from channelkit.errors import InvalidParameterError

Moment = date | datetime | str | np.datetime64
Kind = Literal["day", "week", "month", "quarter", "year", "days", "range"]
COMPARES = ("previous", "year")
PERIOD_WORDS = ("week", "month", "quarter")
PERIOD_EXAMPLES = (
    "'last month', 'this month', 'last week', 'last quarter', 'October 2026', 'Oct 2026', "
    "'Q3 2026', 'last 7 days' (or '7d'), 'yesterday', 'today', '2026-10', '11/2026', "
    "'2026-W44', 'W44', '2026-10-05', '25/11/2026' or '2026-10-01..2026-10-15'"
)

_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")
_QUARTER = re.compile(r"^(\d{4})-?Q([1-4])$", re.IGNORECASE)
_YEAR = re.compile(r"^(\d{4})$")
_WEEK = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RELATIVE = re.compile(r"^(?:(?:last|past)\s+)?(\d+)\s*(d|days?|w|weeks?)$", re.IGNORECASE)
_UNIT = re.compile(r"^(?:(last|this|previous)\s+)?(week|month|quarter|year)$", re.IGNORECASE)
_TO_DATE = re.compile(r"^(week|month|quarter|year)[\s-]+to[\s-]+date$", re.IGNORECASE)
_TO_DATE_SHORT = {"wtd": "week", "mtd": "month", "qtd": "quarter", "ytd": "year"}
_WEEK_ONLY = re.compile(r"^W(\d{1,2})(?:\s+(\d{4}))?$", re.IGNORECASE)
_SLASHED_DAY = re.compile(r"^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$")
_SLASHED_MONTH = re.compile(r"^(\d{1,2})/(\d{4})$")
_MONTH_NAME = re.compile(r"^([a-z]+)\.?(?:\s+(\d{4}))?$", re.IGNORECASE)
_YEAR_MONTH_NAME = re.compile(r"^(\d{4})\s+([a-z]+)$", re.IGNORECASE)
_QUARTER_NAME = re.compile(r"^q([1-4])(?:[\s-]+(\d{4}))?$", re.IGNORECASE)
_DAY_RANGE = re.compile(r"^(\S+)\s*(?:\.\.|\s+to\s+|\s*[–—]\s*)\s*(\S+)$", re.IGNORECASE)
_MONTH_NUMBERS = {
    name: number
    for number in range(1, 13)
    for name in (
        date(2001, number, 1).strftime("%B").lower(),
        date(2001, number, 1).strftime("%b").lower(),
    )
} | {"sept": 9}
_UNIT_MONTHS = {"month": 1, "quarter": 3, "year": 12}
_CALENDAR_KINDS = ("week", "month", "quarter", "year")


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

    >>> p = Period.resolve("2026-03-23", "2026-03-30", ZoneInfo("Europe/Berlin"))
    >>> p.start_day, p.end_day, p.previous().start_day
    (datetime.date(2026, 3, 23), datetime.date(2026, 3, 30), datetime.date(2026, 3, 16))

    `kind` is the calendar kind of a period given by name ("month", "week", "days", ...)
    or "range" for `start`/`end`; it decides the label and the comparison. `to_date` marks
    a calendar period that has not ended yet ("this month"): it holds the days so far, is
    labelled "November 2026 to date" and is compared with the same days of the period
    before.
    """

    tz: ZoneInfo
    start: datetime | None = None
    end: datetime | None = None
    kind: Kind = "range"
    to_date: bool = False

    @classmethod
    def resolve(cls, start: Moment | None, end: Moment | None, tz: ZoneInfo) -> Period:
        lo = None if start is None else to_local(start, tz, param="start")
        hi = None if end is None else to_local(end, tz, param="end")
        if lo is not None and hi is not None and hi <= lo:
            raise InvalidParameterError(
                "end", f"{hi.isoformat()} is not after start {lo.isoformat()}"
            )
        return cls(tz=tz, start=lo, end=hi)

    @classmethod
    def of_days(
        cls, first: date, stop: date, tz: ZoneInfo, kind: Kind = "range", *, to_date: bool = False
    ) -> Period:
        """Whole local days `[first, stop)` in `tz`."""
        return cls(
            tz=tz,
            start=datetime.combine(first, time(), tzinfo=tz),
            end=datetime.combine(stop, time(), tzinfo=tz),
            kind=kind,
            to_date=to_date,
        )

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
            tz=self.tz, start=(wall_start - length).replace(tzinfo=self.tz), end=self.start
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
        if self.to_date:
            return self._compared_to_date(compare, first, stop)
        if compare == "year":
            if self.kind == "week":
                year, week, _ = first.isocalendar()
                start = _iso_week_start(year - 1, min(week, _weeks_in(year - 1)))
                return Period.of_days(start, start + timedelta(days=7), self.tz, "week")
            return Period.of_days(_year_earlier(first), _year_earlier(stop), self.tz, self.kind)
        months = _UNIT_MONTHS.get(self.kind)
        if months is not None:
            start = _month_start(first.year, first.month - months)
            return Period.of_days(start, first, self.tz, self.kind)
        return Period.of_days(first - (stop - first), first, self.tz, self.kind)

    def _compared_to_date(self, compare: str, first: date, stop: date) -> Period:
        """The same days of the period before (or a year before): November 1-22 → October
        1-22; cut at that period's end when it is shorter (March 1-31 → February 1-28)."""
        if self.kind == "week":
            year, week, _ = first.isocalendar()
            if compare == "year":
                earlier = _iso_week_start(year - 1, min(week, _weeks_in(year - 1)))
            else:
                earlier = first - timedelta(days=7)
            earlier_end = earlier + timedelta(days=7)
        else:
            months = _UNIT_MONTHS[self.kind]
            back = 12 if compare == "year" else months
            earlier = _month_start(first.year, first.month - back)
            earlier_end = _month_start(earlier.year, earlier.month + months)
        stop_earlier = min(earlier + (stop - first), earlier_end)
        return Period.of_days(earlier, stop_earlier, self.tz, self.kind, to_date=True)

    @property
    def label(self) -> str:
        """Human-readable period: "October 2026", "Week 44, 2026", "Q3 2026", "7 days to
        22 November 2026", "November 2026 to date" or, for start/end, "2026-03-23 to
        2026-03-29 (UTC)"."""
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
        name = _calendar_name(self.kind, first, last, long=long)
        return notes.to_date_name(name, long=long) if self.to_date else name

    def _range_label(self) -> str:
        if self.start is None and self.end is None:
            return f"all time ({self.tz.key})"
        if self.is_whole_days:
            first = None if self.start is None else self.start.date().isoformat()
            last = None if self.end is None else (self.end.date() - timedelta(days=1)).isoformat()
        else:
            first = None if self.start is None else self.start.strftime("%Y-%m-%d %H:%M")
            last = None if self.end is None else self.end.strftime("%Y-%m-%d %H:%M")
        if first is None:
            return f"until {last} ({self.tz.key})"
        if last is None:
            return f"from {first} ({self.tz.key})"
        if first == last:
            return f"{first} ({self.tz.key})"
        return f"{first} to {last} ({self.tz.key})"


def _calendar_name(kind: Kind, first: date, last: date, *, long: bool) -> str:
    month = "%B" if long else "%b"
    if kind == "day":
        return f"{first.day} {first.strftime(month)} {first.year}"
    if kind == "week":
        year, week, _ = first.isocalendar()
        return f"Week {week}, {year}" if long else f"W{week} {year}"
    if kind == "month":
        return first.strftime(f"{month} %Y")
    if kind == "quarter":
        return f"Q{(first.month - 1) // 3 + 1} {first.year}"
    if kind == "year":
        return str(first.year)
    days = (last - first).days + 1
    if long:
        return f"{days} days to {last.day} {last:%B %Y}"
    return f"{first.day} {first:%b} – {last.day} {last:%b %Y}"


def _iso_week_start(year: int, week: int) -> date:
    return date.fromisocalendar(year, week, 1)


def _weeks_in(year: int) -> int:
    return date(year, 12, 28).isocalendar()[1]


def _year_earlier(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def parse_period(period: str, *, tz: ZoneInfo, last_day: date) -> Period:
    """The period a user names (see the module docstring), in whole local days of `tz`.

    `last_day` is the last complete synced day: relative periods and "yesterday" end with
    it, "last month" (or "month") is the last month that ends on or before it, "this month"
    the month it falls in, to date, and a month or quarter named without a year
    ("October", "Q3") the latest one that has begun by then.

    >>> parse_period("2026-W44", tz=ZoneInfo("UTC"), last_day=date(2026, 11, 22)).label
    'Week 44, 2026'
    >>> parse_period("last 7 days", tz=ZoneInfo("UTC"), last_day=date(2026, 11, 22)).label
    '7 days to 22 November 2026'
    >>> parse_period("This Month", tz=ZoneInfo("UTC"), last_day=date(2026, 11, 22)).label
    'November 2026 to date'
    """
    if not isinstance(period, str):
        raise InvalidParameterError(
            "period", f"expected text such as {PERIOD_EXAMPLES}, got {type(period).__name__}"
        )
    text = " ".join(period.split())
    found = _named(text, last_day)
    if found is None:
        guess = did_you_mean(text, last_day)
        if guess is not None:
            raise InvalidParameterError(
                "period", f"{period!r} is not a period; did you mean {guess!r}?"
            )
        raise InvalidParameterError(
            "period", f"{period!r} is not a period; use one of {PERIOD_EXAMPLES}"
        )
    _check_year(found.first.year, period, "period")
    _check_year(found.stop.year, period, "period")
    found = _running_to_date(found, last_day)
    if found.stop <= found.first:
        name = _calendar_name(found.kind, found.first, found.first, long=True)
        last = _day_words(last_day.year, last_day.month, last_day.day)
        raise InvalidParameterError(
            "period",
            f"{period!r} is {name}, which has no complete synced day yet (the last is "
            f"{last}); ask for 'last {found.kind}' or sync again tomorrow",
        )
    return Period.of_days(found.first, found.stop, tz, found.kind, to_date=found.to_date)


def _running_to_date(found: _Days, last_day: date) -> _Days:
    """A calendar week, month, quarter or year still running after `last_day`, cut at the
    day after it and flagged to date (its missing days are not zeros)."""
    today = last_day + timedelta(days=1)
    if found.kind in _CALENDAR_KINDS and found.first <= today < found.stop:
        return _Days(found.first, today, found.kind, True)
    return found


class _Days(NamedTuple):
    first: date
    stop: date
    kind: Kind
    to_date: bool = False


def _named(text: str, last_day: date) -> _Days | None:
    stop_after = last_day + timedelta(days=1)
    if text.lower() == "yesterday":
        return _Days(last_day, stop_after, "day")
    if text.lower() == "today":  # the day of the last sync, after the last complete day
        return _Days(stop_after, stop_after + timedelta(days=1), "day")
    if match := _UNIT.match(text):
        which, unit = (
            (match.group(1) or "last").lower().replace("previous", "last"),
            match.group(2).lower(),
        )
        return _this(unit, last_day) if which == "this" else _last_complete(unit, stop_after)
    if match := _TO_DATE.match(text):
        return _this(match.group(1).lower(), last_day)
    if text.lower() in _TO_DATE_SHORT:
        return _this(_TO_DATE_SHORT[text.lower()], last_day)
    if match := _RELATIVE.match(text):
        days = int(match.group(1)) * (7 if match.group(2)[0].lower() == "w" else 1)
        if days < 1:
            raise InvalidParameterError("period", f"{text!r} must be at least one day")
        if days > (PERIOD_LAST_YEAR - PERIOD_FIRST_YEAR) * 366:
            raise InvalidParameterError("period", f"{text!r} is longer than the supported range")
        return _Days(stop_after - timedelta(days=days), stop_after, "days")
    try:
        return _calendar(text, last_day)
    except InvalidParameterError:
        raise
    except ValueError:
        raise InvalidParameterError("period", f"{text!r} is not a real date") from None


def _calendar(text: str, last_day: date) -> _Days | None:
    """A named month, quarter, year, ISO week, day or range of days."""
    return _month_or_quarter(text, last_day) or _dated(text) or _as_said(text, last_day)


def _as_said(text: str, last_day: date) -> _Days | None:
    """ "W47" (the latest week 47 begun by the last day; "W53": of the latest year that has
    one), "W47 2026", "25/11/2026" (day first, or month first when only that reads as a
    date), "11/2026"."""
    if match := _WEEK_ONLY.match(text):
        week, year = int(match.group(1)), match.group(2)
        if year is None and 1 <= week <= 53:
            # The latest year that has this week (week 53 comes every 5 or 6 years).
            latest = last_day.isocalendar()[0]
            year = str(
                next(
                    y
                    for y in range(latest, latest - 8, -1)
                    if week <= _weeks_in(y) and _iso_week_start(y, week) <= last_day
                )
            )
        return _dated(f"{year or last_day.year}-W{week:02d}")
    if match := _SLASHED_MONTH.match(text):
        return _month(int(match.group(2)), int(match.group(1)))
    if match := _SLASHED_DAY.match(text):
        first, second, year = (int(g) for g in match.groups())
        if first <= 12 and second <= 12 and first != second:
            raise InvalidParameterError(
                "period",
                f"{text!r} could be {_day_words(year, second, first)} or "
                f"{_day_words(year, first, second)}; write it as "
                f"{date(year, second, first)} or {date(year, first, second)}",
            )
        month, day = (second, first) if second <= 12 else (first, second)
        single = date(year, month, day)
        return _Days(single, single + timedelta(days=1), "day")
    return None


def _day_words(year: int, month: int, day: int) -> str:
    return f"{day} {date(year, month, 1):%B} {year}"


# The words of every phrase, for a typo's "did you mean" ("Ocotber 2026" → "October 2026").
_WORDS = (
    *(date(2001, m, 1).strftime("%B") for m in range(1, 13)),
    "last", "this", "previous", "week", "month", "quarter", "year", "today", "yesterday",
    "days", "weeks", "all", "time",
)  # fmt: skip


def did_you_mean(text: str, last_day: date) -> str | None:
    """`text` with each unknown word replaced by the nearest known one, if that reads as
    a period."""
    known = {word.casefold() for word in _WORDS} | set(_MONTH_NUMBERS)
    words = text.split()
    fixed = []
    for word in words:
        if not word.isalpha() or word.casefold() in known:
            fixed.append(word)
            continue
        close = nearest(word, _WORDS, n=1)
        if not close:
            return None
        fixed.append(close[0] if not word.islower() else close[0].lower())
    guess = " ".join(fixed)
    if guess == text:
        return None
    try:
        found = _named(guess, last_day)
    except InvalidParameterError:
        return None
    return guess if found is not None else None


def _month_or_quarter(text: str, last_day: date) -> _Days | None:
    """ "2026-10", "October 2026", "Oct", "2026 October", "2026-Q3", "Q3 2026", "Q3"."""
    if match := _MONTH.match(text):
        return _month(int(match.group(1)), int(match.group(2)))
    if (match := _MONTH_NAME.match(text)) and match.group(1).lower() in _MONTH_NUMBERS:
        month = _MONTH_NUMBERS[match.group(1).lower()]
        year = match.group(2)
        return _month(int(year) if year else _latest_year(month, last_day), month)
    if (match := _YEAR_MONTH_NAME.match(text)) and match.group(2).lower() in _MONTH_NUMBERS:
        return _month(int(match.group(1)), _MONTH_NUMBERS[match.group(2).lower()])
    if match := _QUARTER.match(text):
        return _quarter(int(match.group(1)), int(match.group(2)))
    if match := _QUARTER_NAME.match(text):
        quarter, year = int(match.group(1)), match.group(2)
        first_month = 3 * quarter - 2
        return _quarter(int(year) if year else _latest_year(first_month, last_day), quarter)
    return None


def _dated(text: str) -> _Days | None:
    """ "2026", "2026-W44", "2026-10-05", "2026-10-01..2026-10-15"."""
    if match := _YEAR.match(text):
        year = int(match.group(1))
        return _Days(date(year, 1, 1), date(year + 1, 1, 1), "year")
    if match := _WEEK.match(text):
        year, week = int(match.group(1)), int(match.group(2))
        if not 1 <= week <= _weeks_in(year):
            raise InvalidParameterError(
                "period", f"{text!r}: {year} has ISO weeks 1..{_weeks_in(year)}"
            )
        first = _iso_week_start(year, week)
        return _Days(first, first + timedelta(days=7), "week")
    if _DAY.match(text):
        first = date.fromisoformat(text)
        return _Days(first, first + timedelta(days=1), "day")
    if (match := _DAY_RANGE.match(text)) and all(_DAY.match(g) for g in match.groups()):
        first, last = (date.fromisoformat(g) for g in match.groups())
        if last < first:
            raise InvalidParameterError(
                "period", f"{text!r}: the last day {last} is before the first {first}"
            )
        return _Days(first, last + timedelta(days=1), "range")
    return None


def _month(year: int, month: int) -> _Days:
    first = date(year, month, 1)
    return _Days(first, _month_start(year, month + 1), "month")


def _quarter(year: int, quarter: int) -> _Days:
    first = date(year, 3 * quarter - 2, 1)
    return _Days(first, _month_start(year, first.month + 3), "quarter")


def _latest_year(month: int, last_day: date) -> int:
    """The year of the latest `month` that began on or before `last_day`."""
    return last_day.year if month <= last_day.month else last_day.year - 1


def _unit_start(unit: str, day: date) -> date:
    if unit == "week":
        return day - timedelta(days=day.weekday())
    return date(day.year, day.month - (day.month - 1) % _UNIT_MONTHS[unit], 1)


def _last_complete(unit: str, stop_after: date) -> _Days:
    """The last whole week, month, quarter or year that ends on or before the last day."""
    stop = _unit_start(unit, stop_after)
    if unit == "week":
        return _Days(stop - timedelta(days=7), stop, "week")
    return _Days(_month_start(stop.year, stop.month - _UNIT_MONTHS[unit]), stop, cast(Kind, unit))


def _this(unit: str, last_day: date) -> _Days:
    """The week, month, quarter or year holding today (the day after the last complete
    day), to date: up to and with the last day (no day at all on its first day)."""
    stop = last_day + timedelta(days=1)
    return _Days(_unit_start(unit, stop), stop, cast(Kind, unit), True)


def earlier_periods(period: Period, count: int) -> list[Period]:
    """The `count` periods of the same kind before `period`, latest first (for the usual
    range: W43, W42, ... before W44)."""
    if period.to_date:
        return _earlier_to_date(period, count)
    out: list[Period] = []
    current = period
    for _ in range(count):
        current = current.compared("previous")
        out.append(current)
    return out


def _earlier_to_date(period: Period, count: int) -> list[Period]:
    """The earlier periods of a running one, each cut at the same offset from its start
    (the first 4 days of each earlier week; the first 30 days of each earlier month, or
    the whole month when shorter): never whole periods against a part of one."""
    assert period.start is not None and period.end is not None
    first = period.start.date()
    offset = period.end.date() - first
    if period.kind == "week":
        stop = first + timedelta(days=7)
    else:
        stop = _month_start(first.year, first.month + _UNIT_MONTHS[period.kind])
    whole = Period.of_days(first, stop, period.tz, period.kind)
    out: list[Period] = []
    for _ in range(count):
        whole = whole.compared("previous")
        assert whole.start is not None and whole.end is not None
        begin, end = whole.start.date(), whole.end.date()
        out.append(
            Period.of_days(begin, min(begin + offset, end), period.tz, period.kind, to_date=True)
        )
    return out


def same_age_cutoff(period: Period, current: Period, readers_day: date) -> date | None:
    """The last UTC day through which `period`'s posts' readers are counted so that they
    are as old as `current`'s, whose lifetime readers stand at the end of `readers_day`.

    None when `current` ended `SAME_AGE_MAX_DAYS` or more days before `readers_day`: its
    posts have had their readers, so lifetime readers compare with lifetime readers.

    >>> week = parse_period("2026-W44", tz=ZoneInfo("UTC"), last_day=date(2026, 11, 3))
    >>> same_age_cutoff(week.compared("previous"), week, date(2026, 11, 3))
    datetime.date(2026, 10, 27)
    """
    assert current.end_day is not None and period.end_day is not None
    age = max(0, (readers_day - current.end_day).days + 1)
    if age >= SAME_AGE_MAX_DAYS:
        return None
    return period.end_day - timedelta(days=1) + timedelta(days=age)
