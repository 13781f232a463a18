"""Data checks before a report: missing, stale, or a last day past the data."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from channelkit.analysis.freshness import Freshness
from channelkit.errors import ReportError
from channelkit.reports.checks import (
    check_coverage,
    check_freshness,
    last_data_day,
)
from channelkit.reports.parameters import ReportPeriod

COUNTS = {"channels": 2, "posts": 10, "post_daily": 50, "channel_daily": 20}


def fresh(
    synced: datetime | None, post_day: date | None, channel_day: date | None = None
) -> Freshness:
    return Freshness(
        last_sync_at=synced,
        last_sync_mode=None if synced is None else "full",
        base_url="http://127.0.0.1:1/v1",
        row_counts=COUNTS,
        last_post_day=post_day,
        last_channel_day=channel_day,
    )


def test_the_newest_data_day_is_the_later_of_posts_and_channels() -> None:
    # where a named period ends is analysis.coverage's (last_complete_day), tested there
    state = fresh(None, date(2026, 4, 4), date(2026, 4, 5))
    assert last_data_day(state) == date(2026, 4, 5)
    assert last_data_day(fresh(None, None)) is None


def test_freshness_checks() -> None:
    synced = datetime(2026, 11, 23, 5, 30, tzinfo=UTC)
    state = fresh(synced, date(2026, 11, 22))
    check_freshness(state, None, None)
    check_freshness(state, timedelta(hours=26), synced + timedelta(hours=25, minutes=59))
    with pytest.raises(ReportError, match=r"finished 2026-11-23T05:30:00\+00:00, 26h01m ago"):
        check_freshness(state, timedelta(hours=26), synced + timedelta(hours=26, minutes=1))
    with pytest.raises(ReportError, match="no completed sync"):
        check_freshness(fresh(None, date(2026, 11, 22)), timedelta(hours=1), synced)
    with pytest.raises(ReportError, match="analytics:read"):
        check_freshness(fresh(synced, None), None, None)
    empty = Freshness(synced, "full", None, row_counts={**COUNTS, "posts": 0})
    with pytest.raises(ReportError, match="no posts"):
        check_freshness(empty, None, None)


def test_coverage() -> None:
    state = fresh(None, date(2026, 4, 5))
    check_coverage(state, ReportPeriod(date(2026, 3, 30), date(2026, 4, 6), ZoneInfo("UTC")))
    with pytest.raises(ReportError, match="up to 2026-04-05, but the period runs to 2026-04-06"):
        check_coverage(state, ReportPeriod(date(2026, 3, 31), date(2026, 4, 7), ZoneInfo("UTC")))
