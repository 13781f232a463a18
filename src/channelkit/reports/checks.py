"""Is the warehouse's data there, fresh and long enough for the report? Pure checks.

Everything here reads a `Freshness` (what `Warehouse.freshness()` returns) and either
answers or raises `ReportError` with what is missing and what to run.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from channelkit.analysis.freshness import Freshness
from channelkit.errors import ReportError
from channelkit.reports.parameters import ReportPeriod


def check_freshness(fresh: Freshness, max_age: timedelta | None, now: datetime | None) -> None:
    """Refuse a warehouse without posts or analytics, or last synced more than `max_age` ago."""
    if not fresh.row_counts.get("posts"):
        raise ReportError("the warehouse holds no posts; run `channelkit sync` first")
    if fresh.last_post_day is None:
        raise ReportError(
            "the warehouse holds no analytics rows; run `channelkit sync` with a key that "
            "has the analytics:read scope"
        )
    if max_age is None:
        return
    age = fresh.age(now)
    if age is None or fresh.last_sync_at is None:
        raise ReportError(
            f"--max-age {_duration(max_age)}: the warehouse records no completed sync"
        )
    if age > max_age:
        raise ReportError(
            f"data is stale: the last completed sync finished "
            f"{fresh.last_sync_at.isoformat(timespec='seconds')}, {_duration(age)} ago, "
            f"more than --max-age {_duration(max_age)}"
        )


def _duration(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return f"{int(delta.total_seconds())}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m"


def last_data_day(fresh: Freshness) -> date | None:
    """The newest day (a UTC date) with analytics rows, posts' or channels'."""
    days = [d for d in (fresh.last_post_day, fresh.last_channel_day) if d is not None]
    return max(days) if days else None


def check_coverage(fresh: Freshness, report_range: ReportPeriod) -> None:
    """Refuse a period that runs past the last day with analytics."""
    last = last_data_day(fresh)
    if last is not None and last < report_range.last_day:
        raise ReportError(
            f"the warehouse has analytics up to {last}, but the period runs to "
            f"{report_range.last_day}; sync first or choose an earlier --until"
        )
