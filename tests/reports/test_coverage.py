"""Data checks before a report: missing, stale, and where a relative period ends."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from channelkit.analysis.freshness import Freshness
from channelkit.reports.coverage import (
    check_coverage,
    check_freshness,
    last_data_day,
    period_anchor,
)
from channelkit.reports.period import ReportError, ReportPeriod

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


def test_a_morning_sync_ends_the_period_on_its_day() -> None:
    # Monday 06:30 Berlin: Sunday (UTC) is over and synced
    state = fresh(datetime(2026, 11, 23, 5, 30, tzinfo=UTC), date(2026, 11, 22))
    assert period_anchor(state, "Europe/Berlin") == date(2026, 11, 23)
    assert period_anchor(state, "UTC") == date(2026, 11, 23)


def test_just_after_local_midnight_east_of_utc_the_period_ends_with_the_data() -> None:
    # Monday 00:30 Berlin is Sunday 23:30 UTC: Sunday's analytics do not exist yet
    state = fresh(datetime(2026, 11, 22, 23, 30, tzinfo=UTC), date(2026, 11, 21))
    assert period_anchor(state, "Europe/Berlin") == date(2026, 11, 22)
    assert period_anchor(state, "UTC") == date(2026, 11, 22)


def test_without_a_sync_the_period_ends_after_the_newest_data() -> None:
    state = fresh(None, date(2026, 4, 4), date(2026, 4, 5))
    assert last_data_day(state) == date(2026, 4, 5)
    assert period_anchor(state, "UTC") == date(2026, 4, 6)
    with pytest.raises(ReportError, match="no analytics rows"):
        period_anchor(fresh(None, None), "UTC")


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
    check_coverage(state, ReportPeriod(date(2026, 3, 30), date(2026, 4, 6), "UTC"))
    with pytest.raises(ReportError, match="up to 2026-04-05, but the period runs to 2026-04-06"):
        check_coverage(state, ReportPeriod(date(2026, 3, 31), date(2026, 4, 7), "UTC"))
