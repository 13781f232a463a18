"""The calendar grid of a trend: the first day of every day, ISO week or month in a period."""

from __future__ import annotations

from datetime import date, timedelta

from channelkit.analysis.period import Period


def grid_days(period: Period, freq: str, first: date | None, last: date | None) -> list[date]:
    """The first day of every day/week/month from the period's first to its last day.

    The first row starts at the local date of `start` (not the first whole day), so posts
    published on a first day that begins mid-day are counted in it.
    """
    lo = period.start.date() if period.start is not None else first
    hi = (period.end_day - timedelta(days=1)) if period.end_day is not None else last
    if lo is None or hi is None or hi < lo:
        return []
    lo, hi = _truncate(lo, freq), _truncate(hi, freq)
    out, day = [], lo
    while day <= hi:
        out.append(day)
        day = _step(day, freq)
    return out


def grid_size(period: Period, freq: str, first: date | None, last: date | None) -> int:
    """How many rows `grid_days` would give, without building them."""
    lo = period.start.date() if period.start is not None else first
    hi = (period.end_day - timedelta(days=1)) if period.end_day is not None else last
    if lo is None or hi is None or hi < lo:
        return 0
    days = (hi - lo).days
    return {"day": days + 1, "week": days // 7 + 2, "month": days // 28 + 2}[freq]


def whole_buckets(period: Period, freq: str) -> Period:
    """`period` widened back to the first day of its first week or month: the default
    "last 28 days" cut into months would label a few days of October as October."""
    if freq == "day" or period.start is None or period.end is None:
        return period
    first = _truncate(period.start.date(), freq)
    return Period.of_days(first, period.end.date(), period.tz)


def bucket_end(day: date, freq: str) -> date:
    """The first day after the day, week or month that begins on `day`."""
    return _step(day, freq)


def _truncate(day: date, freq: str) -> date:
    if freq == "week":
        return day - timedelta(days=day.weekday())
    if freq == "month":
        return day.replace(day=1)
    return day


def _step(day: date, freq: str) -> date:
    if freq == "week":
        return day + timedelta(days=7)
    if freq == "month":
        return (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return day + timedelta(days=1)
