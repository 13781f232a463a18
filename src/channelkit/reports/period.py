"""The reporting period and other report parameters, parsed and resolved without any I/O.

A relative period (`--period 7d`) ends where the data ends, not where the wall clock is:
on the day of the last completed sync, in the report's timezone. The same warehouse
therefore always yields the same report, and a cron job that syncs before it reports gets
the last full days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from channelkit._tz import resolve_tz
from channelkit.analysis import period as analysis_period
from channelkit.errors import ChannelkitError, InvalidParameterError


class ReportError(ChannelkitError):
    """The report cannot be made: the data is missing or stale, or the template is broken."""


class ReportParameterError(ReportError, ValueError):
    """A report parameter is wrong; the message names the parameter."""


_PERIOD_RE = re.compile(r"^\s*(\d+)\s*([dw])\s*$", re.IGNORECASE)
_DURATION_RE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


@dataclass(frozen=True)
class ReportPeriod:
    """Whole local days `[start, end)` in `tz`.

    >>> p = ReportPeriod(date(2026, 11, 14), date(2026, 11, 21), "Europe/Berlin")
    >>> p.days, p.last_day.isoformat()
    (7, '2026-11-20')
    """

    start: date
    end: date
    tz: str

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def last_day(self) -> date:
        return self.end - timedelta(days=1)

    @property
    def label(self) -> str:
        if self.days == 1:
            return f"{self.start.isoformat()} ({self.tz})"
        return (
            f"{self.start.isoformat()} to {self.last_day.isoformat()} ({self.days} days, {self.tz})"
        )


def parse_period(text: str) -> int:
    """`"7d"` → 7, `"2w"` → 14: the length of a relative period in days."""
    match = _PERIOD_RE.match(text)
    if match is None:
        raise ReportParameterError(
            f"period {text!r}: expected a number of days or weeks such as '7d' or '4w'"
        )
    days = int(match.group(1)) * (7 if match.group(2).lower() == "w" else 1)
    if days < 1:
        raise ReportParameterError(f"period {text!r}: must be at least one day")
    return days


def parse_duration(text: str) -> timedelta:
    """`"26h"` → 26 hours; units s, m, h, d, w (one number and one unit)."""
    match = _DURATION_RE.match(text)
    if match is None:
        raise ReportParameterError(
            f"max age {text!r}: expected a number and a unit (s, m, h, d or w) such as '26h'"
        )
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    if seconds < 1:
        raise ReportParameterError(f"max age {text!r}: must be more than zero")
    return timedelta(seconds=seconds)


def parse_date(text: str, *, param: str) -> date:
    """A `YYYY-MM-DD` date; `param` names the option in the error message."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ReportParameterError(f"{param} {text!r}: expected a date as YYYY-MM-DD") from None


def check_tz(name: str | None) -> str:
    """`name` (None: CHANNELKIT_TZ, else UTC) if it is an IANA timezone this machine knows."""
    try:
        return analysis_period.check_tz(resolve_tz(None) if name is None else name).key
    except InvalidParameterError as exc:
        raise ReportParameterError(str(exc)) from None


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

    `until` is the last day included. With `period` alone, the period ends on `anchor`
    (excluded): the day of the last sync, whose data is still incomplete.
    """
    if since is not None and until is not None and period is not None:
        raise ReportParameterError("give at most two of --since, --until and --period")
    if since is not None and until is not None:
        start, end = since, until + timedelta(days=1)
    else:
        days = parse_period(period if period is not None else default_period)
        if since is not None:
            start, end = since, since + timedelta(days=days)
        else:
            end = until + timedelta(days=1) if until is not None else anchor
            start = end - timedelta(days=days)
    if end <= start:
        raise ReportParameterError(
            f"--until {until} is before --since {since}: the period would be empty"
        )
    return ReportPeriod(start=start, end=end, tz=check_tz(tz))


def previous_period(current: ReportPeriod) -> ReportPeriod:
    """The period of the same length immediately before `current`."""
    return ReportPeriod(
        start=current.start - timedelta(days=current.days), end=current.start, tz=current.tz
    )
