"""The reporting period and other report parameters, parsed and resolved without any I/O.

Periods are said the way people say them: `week`, `month`, `quarter` (the last complete
one), `2026-10`, `2026-Q3`, `2026-W44`, `2026`, `2026-10-05`, or a number of days, weeks or
months (`7d`, `4w`, `3m`) ending with the last complete day. "Last complete" follows the
data, not the wall clock: the anchor is the day of the last completed sync (its data is
still arriving), so the same warehouse always yields the same report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from channelkit.analysis import period as analysis_period
from channelkit.errors import ChannelkitError, InvalidParameterError


class ReportError(ChannelkitError):
    """The report cannot be made: the data is missing or stale, or the template is broken."""


_RELATIVE_RE = re.compile(r"^(\d+)\s*([dwm])$", re.IGNORECASE)
_MONTH_RE = re.compile(r"^(\d{4})-(\d{2})$")
_QUARTER_RE = re.compile(r"^(\d{4})-?Q([1-4])$", re.IGNORECASE)
_WEEK_RE = re.compile(r"^(\d{4})-?W(\d{2})$", re.IGNORECASE)
_YEAR_RE = re.compile(r"^(\d{4})$")
_DURATION_RE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
_WORDS = ("week", "month", "quarter", "year")
COMPARES = ("previous", "year")
PERIOD_HELP = (
    "week, month, quarter, YYYY-MM, YYYY-Qn, YYYY-Www, YYYY, YYYY-MM-DD, "
    "or a number of days, weeks or months such as 7d, 4w, 3m"
)


@dataclass(frozen=True)
class ReportPeriod:
    """Whole local days `[start, end)` in `tz`, with the calendar `kind` they were asked as.

    `kind` is `month`, `quarter`, `week`, `year`, `day` or `days` (any other span); it
    decides the name ("October 2026", "Week 44, 2026") and what "previous" means.

    >>> p = ReportPeriod(date(2026, 10, 1), date(2026, 11, 1), "Europe/Berlin", "month")
    >>> p.name, p.days, p.last_day.isoformat()
    ('October 2026', 31, '2026-10-31')
    """

    start: date
    end: date
    tz: str
    kind: str = "days"

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def last_day(self) -> date:
        return self.end - timedelta(days=1)

    @property
    def name(self) -> str:
        """The period in calendar words: "October 2026", "Week 44, 2026", "Q3 2026"."""
        start, last = self.start, self.last_day
        if self.kind == "month" and self.days <= 31:
            return f"{start:%B %Y}"
        if self.kind == "month":
            same_year = start.year == last.year
            return f"{start:%B}{'' if same_year else f' {start.year}'} to {last:%B %Y}"
        if self.kind == "quarter":
            return f"Q{(start.month - 1) // 3 + 1} {start.year}"
        if self.kind == "week" and self.days == 7:
            year, week, _ = start.isocalendar()
            return f"Week {week}, {year}"
        if self.kind == "year":
            return str(start.year)
        if self.days == 1:
            return f"{start.day} {start:%B %Y}"
        if start.year != last.year:
            return f"{start.day} {start:%B %Y} to {last.day} {last:%B %Y}"
        if start.month != last.month:
            return f"{start.day} {start:%B} to {last.day} {last:%B %Y}"
        return f"{start.day} to {last.day} {last:%B %Y}"

    @property
    def label(self) -> str:
        """The name with its days and timezone: "October 2026 (2026-10-01 to 2026-10-31, UTC)"."""
        if self.days == 1:
            return f"{self.name} ({self.start.isoformat()}, {self.tz})"
        return f"{self.name} ({self.start.isoformat()} to {self.last_day.isoformat()}, {self.tz})"


def parse_period(text: str) -> ReportPeriod | tuple[str, int]:
    """A fixed period (`2026-10`, ...) as a `ReportPeriod` in UTC, or a relative one as
    `(kind, count)`: `("m", 1)` for `month`, `("d", 7)` for `7d`. Raises for anything else.
    """
    if not isinstance(text, str):
        raise InvalidParameterError("period", f"{text!r}: expected text such as {PERIOD_HELP}")
    value = text.strip().lower()
    if value in _WORDS:
        return (value, 1)
    try:
        if match := _RELATIVE_RE.match(value):
            count = int(match.group(1))
            if count < 1:
                raise InvalidParameterError("period", f"{text!r}: must be at least one day")
            return (match.group(2), count)
        if match := _MONTH_RE.match(value):
            start = date(int(match.group(1)), int(match.group(2)), 1)
            return ReportPeriod(start, _add_months(start, 1), "UTC", "month")
        if match := _QUARTER_RE.match(value):
            start = date(int(match.group(1)), 3 * int(match.group(2)) - 2, 1)
            return ReportPeriod(start, _add_months(start, 3), "UTC", "quarter")
        if match := _WEEK_RE.match(value):
            start = date.fromisocalendar(int(match.group(1)), int(match.group(2)), 1)
            return ReportPeriod(start, start + timedelta(days=7), "UTC", "week")
        if match := _YEAR_RE.match(value):
            start = date(int(match.group(1)), 1, 1)
            return ReportPeriod(start, _add_months(start, 12), "UTC", "year")
        day = date.fromisoformat(value)
        return ReportPeriod(day, day + timedelta(days=1), "UTC", "day")
    except ValueError:
        pass
    raise InvalidParameterError("period", f"{text!r} is not a period: use {PERIOD_HELP}")


def parse_duration(text: str) -> timedelta:
    """`"26h"` → 26 hours; units s, m, h, d, w (one number and one unit)."""
    match = _DURATION_RE.match(text)
    if match is None:
        raise InvalidParameterError(
            "max_age", f"{text!r}: expected a number and a unit (s, m, h, d or w) such as '26h'"
        )
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    if seconds < 1:
        raise InvalidParameterError("max_age", f"{text!r}: must be more than zero")
    return timedelta(seconds=seconds)


def parse_date(text: str, *, param: str) -> date:
    """A `YYYY-MM-DD` date; `param` names the option in the error message."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidParameterError(param, f"{text!r}: expected a date as YYYY-MM-DD") from None


def check_compare(text: str) -> str:
    """`previous` or `year`."""
    value = text.strip().lower() if isinstance(text, str) else text
    if value not in COMPARES:
        raise InvalidParameterError("compare", f"{text!r}: expected one of {', '.join(COMPARES)}")
    return str(value)


def check_tz(name: str) -> str:
    """Return `name` if it is an IANA timezone this machine knows."""
    analysis_period.check_tz(name)
    return name


def local_date(moment: datetime, tz: str) -> date:
    """The calendar date of an aware `moment` in `tz`."""
    if moment.tzinfo is None:
        raise ValueError("local_date needs an aware datetime")
    return moment.astimezone(ZoneInfo(tz)).date()


def resolve_period(
    *,
    since: date | None,
    until: date | None,
    period: str | None,
    tz: str,
    anchor: date,
    default_period: str,
) -> ReportPeriod:
    """Turn the user's choice into whole days `[start, end)`.

    `until` is the last day included. A relative `period` alone ends with the last
    complete day or calendar unit before `anchor` (the day of the last sync, excluded).
    """
    if since is not None and until is not None and period is not None:
        raise InvalidParameterError("period", "give at most two of --since, --until and --period")
    tz = check_tz(tz)
    if since is not None and until is not None:
        if until < since:
            raise InvalidParameterError(
                "until", f"{until} is before --since {since}: the period would be empty"
            )
        return ReportPeriod(since, until + timedelta(days=1), tz)
    spec = parse_period(period if period is not None else default_period)
    if isinstance(spec, ReportPeriod):
        if since is not None or until is not None:
            raise InvalidParameterError(
                "period", f"{period!r} names its own days: leave out --since and --until"
            )
        return ReportPeriod(spec.start, spec.end, tz, spec.kind)
    unit, count = spec
    if unit in _KINDS:  # a calendar word: the unit holding --since, or the last complete one
        if since is not None:
            start = _unit_start(since, unit)
        else:
            start = _unit_start((until + timedelta(days=1) if until else anchor), unit)
            start = _unit_start(start - timedelta(days=1), unit)
        return _span_from(start, unit, 1, tz)
    if since is not None:
        return _span_from(since, unit, count, tz)
    end = until + timedelta(days=1) if until is not None else anchor
    if unit == "m" and until is None:
        return _span_before(_unit_start(end, "m"), "m", count, tz)  # whole months
    if unit == "m":
        first = _add_months(end, -count)
        return ReportPeriod(first.replace(day=min(end.day, 28)), end, tz)
    return ReportPeriod(end - timedelta(days=count * (7 if unit == "w" else 1)), end, tz)


def compare_period(current: ReportPeriod, compare: str = "previous") -> ReportPeriod:
    """The period `current` is compared with: the one before it of the same calendar kind
    (September before October, week 43 before week 44, the 7 days before), or with
    `compare="year"` the same period a year earlier.
    """
    compare = check_compare(compare)
    start, end, kind = current.start, current.end, current.kind
    if compare == "year":
        if kind == "week":
            year, week, _ = start.isocalendar()
            weeks = current.days // 7
            prior = year - 1
            week = min(week, date(prior, 12, 28).isocalendar()[1])  # W53 → W52
            first = date.fromisocalendar(prior, week, 1)
            return ReportPeriod(first, first + timedelta(days=7 * weeks), current.tz, kind)
        return ReportPeriod(_year_before(start), _year_before(end), current.tz, kind)
    if kind in ("month", "quarter", "year") and start.day == 1:
        months = (end.year - start.year) * 12 + end.month - start.month
        return ReportPeriod(_add_months(start, -months), start, current.tz, kind)
    return ReportPeriod(start - timedelta(days=current.days), start, current.tz, kind)


def previous_period(current: ReportPeriod) -> ReportPeriod:
    """The period of the same calendar kind immediately before `current`."""
    return compare_period(current, "previous")


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def _unit_start(day: date, unit: str) -> date:
    """The first day of the calendar week, month, quarter or year that holds `day`."""
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit in ("m", "month"):
        return day.replace(day=1)
    if unit == "quarter":
        return date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    return date(day.year, 1, 1)


_KINDS = ("week", "month", "quarter", "year")
_MONTHS = {"m": 1, "month": 1, "quarter": 3, "year": 12}


def _span_before(end: date, unit: str, count: int, tz: str) -> ReportPeriod:
    return ReportPeriod(_add_months(end, -_MONTHS[unit] * count), end, tz, "month")


def _span_from(start: date, unit: str, count: int, tz: str) -> ReportPeriod:
    if unit == "d":
        return ReportPeriod(start, start + timedelta(days=count), tz)
    if unit in ("w", "week"):
        kind = "week" if unit == "week" else "days"
        return ReportPeriod(start, start + timedelta(days=7 * count), tz, kind)
    kind = unit if unit in _KINDS else "days"
    return ReportPeriod(start, _add_months(start, _MONTHS[unit] * count), tz, kind)
