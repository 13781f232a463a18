"""The reporting period and other report parameters, parsed without any I/O.

Periods are `channelkit.analysis.period`'s, the ones every `Warehouse` metric takes, as
people say them: `last month`, `this month` (to date), `last week`, `October 2026`,
`Q3`, `last 28 days`, `yesterday`, `2026-10`, `2026-W44`, `2026-10-01..2026-10-15`, ...
(see `parse_period`); or `--since`/`--until`. "Last complete" follows the data, not the
wall clock, so the same warehouse always yields the same report. This module adds what a
report needs on top: whole days, a calendar name for titles, and the query arguments that
make every section ask the warehouse for exactly the same days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from channelkit._tz import UTC_ZONE
from channelkit.analysis import period as analysis_period
from channelkit.analysis.period import COMPARES, Kind, Period
from channelkit.errors import InvalidParameterError
from channelkit.publish.post.times import checked_duration

_DURATION_RE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_MONTHS_RE = re.compile(r"^\s*(\d+)\s*m\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
PERIOD_HELP = (
    "'last week', 'last month', 'this month', 'last quarter', 'October 2026', 'Q3 2026', "
    "'last 28 days', 'yesterday', YYYY-MM, YYYY-Www, YYYY-MM-DD, 'YYYY-MM-DD..YYYY-MM-DD', "
    "or a number of days or weeks such as 7d or 4w"
)
_ANY_DAY = date(2001, 1, 1)  # to check the grammar of a period without a warehouse


@dataclass(frozen=True)
class ReportPeriod:
    """Whole local days `[start, end)` in `tz`, of a calendar `kind`.

    `spec` is the period as the user named it ("month", "2026-W44"; None for
    `--since`/`--until`): the sections pass it on, so the warehouse resolves the same days
    and compares with the period of the same kind.

    >>> p = ReportPeriod(date(2026, 10, 1), date(2026, 11, 1), ZoneInfo("Europe/Berlin"), "month")
    >>> p.name, p.days, p.last_day.isoformat()
    ('October 2026', 31, '2026-10-31')
    """

    start: date
    end: date
    tz: ZoneInfo
    kind: Kind = "range"
    spec: str | None = None
    to_date: bool = False

    @classmethod
    def of(cls, period: Period, spec: str | None = None) -> ReportPeriod:
        if period.start is None or period.end is None:
            raise InvalidParameterError("period", "a report needs a period with two ends")
        return cls(
            period.start.date(), period.end.date(), period.tz, period.kind, spec, period.to_date
        )

    @property
    def period(self) -> Period:
        return Period.of_days(self.start, self.end, self.tz, self.kind, to_date=self.to_date)

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def last_day(self) -> date:
        return self.end - timedelta(days=1)

    @property
    def name(self) -> str:
        """The period in calendar words: "October 2026", "Week 44, 2026", "Q3 2026"."""
        if self.kind == "range":
            return self._days_text
        return self.period.label

    @property
    def phrase(self) -> str:
        """The name as it reads inside a sentence: "October 2026", "the 7 days to 5 April"."""
        return f"the {self.name}" if self.kind == "days" else self.name

    @property
    def label(self) -> str:
        """The name with its days and timezone: "October 2026 (2026-10-01 to 2026-10-31, UTC)"."""
        if self.kind == "range":
            return f"{self._days_text} ({self.tz.key})"
        return f"{self.name} ({self._days_text}, {self.tz.key})"

    @property
    def _days_text(self) -> str:
        if self.days == 1:
            return self.start.isoformat()
        return f"{self.start.isoformat()} to {self.last_day.isoformat()}"

    def query(self) -> dict[str, Any]:
        """The arguments that make a `Warehouse` method cover exactly these days."""
        if self.spec is not None:
            return {"period": self.spec, "tz": self.tz}
        return {"start": self.start, "end": self.end, "tz": self.tz}


def check_period(text: str) -> str:
    """`text` if it names a period (see the module docstring); "1m" is read as "month"."""
    if not isinstance(text, str):
        raise InvalidParameterError("period", f"{text!r}: expected text such as {PERIOD_HELP}")
    value = text.strip()
    months = _MONTHS_RE.match(value)
    if months is not None:
        if int(months.group(1)) == 1:
            return "month"
        raise InvalidParameterError(
            "period",
            f"{text!r}: months are calendar months; use 'month', 'quarter' or 'YYYY-MM' "
            "(or a number of days such as '90d')",
        )
    try:
        analysis_period.parse_period(value, tz=UTC_ZONE, last_day=_ANY_DAY)
    except InvalidParameterError as exc:
        raise InvalidParameterError("period", exc.message) from None  # it lists the periods
    return value


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
    return checked_duration(seconds, text, param="max_age")


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


def local_date(moment: datetime, tz: ZoneInfo) -> date:
    """The calendar date of an aware `moment` in `tz`."""
    if moment.tzinfo is None:
        raise ValueError("local_date needs an aware datetime")
    return moment.astimezone(tz).date()


def resolve_period(
    *,
    since: date | None,
    until: date | None,
    period: str | None,
    tz: ZoneInfo,
    last_day: date,
    default_period: str,
) -> ReportPeriod:
    """Turn the user's choice into whole days `[start, end)`.

    `until` is the last day included. A named `period` alone resolves as the warehouse
    resolves it, `last_day` being the last complete synced day; a number of days or weeks
    may instead start at `since` or end at `until`.
    """
    if since is not None and until is not None:
        if period is not None:
            raise InvalidParameterError(
                "period", "give at most two of --since, --until and --period"
            )
        if until < since:
            raise InvalidParameterError(
                "until", f"{until} is before --since {since}: the period would be empty"
            )
        return ReportPeriod(since, until + timedelta(days=1), tz)
    spec = check_period(period if period is not None else default_period)
    if since is None and until is None:
        named = analysis_period.parse_period(spec, tz=tz, last_day=last_day)
        return ReportPeriod.of(named, spec)
    counted = analysis_period.parse_period(spec, tz=tz, last_day=_ANY_DAY)
    if counted.kind != "days":
        raise InvalidParameterError(
            "period",
            f"{spec!r} names its own days: leave out --since and --until, or give a number "
            "of days such as 7d",
        )
    length = timedelta(days=ReportPeriod.of(counted).days)
    if since is not None:
        return ReportPeriod(since, since + length, tz)
    assert until is not None
    end = until + timedelta(days=1)
    return ReportPeriod(end - length, end, tz)


def compare_period(current: ReportPeriod, compare: str = "previous") -> ReportPeriod:
    """The period `current` is compared with: the one before it of the same calendar kind
    (September before October, week 43 before week 44, the 7 days before), or with
    `compare="year"` the same period a year earlier."""
    return ReportPeriod.of(current.period.compared(check_compare(compare)))


def previous_period(current: ReportPeriod) -> ReportPeriod:
    """The period of the same calendar kind immediately before `current`."""
    return compare_period(current, "previous")
