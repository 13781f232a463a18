"""The incremental-window logic (pure): what each run reads and where its marks move."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from channelkit._constants import SYNC_ANALYTICS_END_SLACK_DAYS, SYNC_HWM_MARGIN_SECONDS
from channelkit.sync import windows

T = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T10:00:00Z", datetime(2026, 11, 1, 10, tzinfo=UTC)),
        ("2026-11-01T10:00:00+02:00", datetime(2026, 11, 1, 8, tzinfo=UTC)),
        (date(2026, 11, 1), datetime(2026, 11, 1, tzinfo=UTC)),
        (T, T),
    ],
)
def test_parse_since(value: str | date | datetime, expected: datetime) -> None:
    assert windows.parse_since(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-11-01T10:00:00", "needs an offset"),
        ("last week", "is not a date; use YYYY-MM-DD"),
        (datetime(2026, 11, 1), "needs a timezone"),
    ],
)
def test_parse_since_rejects(value: str | datetime, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        windows.parse_since(value)


def test_posts_plan() -> None:
    assert windows.plan_posts(full=False, since=None, high_water_mark=None, lookback_days=3).full
    assert windows.plan_posts(full=True, since=None, high_water_mark=T, lookback_days=3).full
    incremental = windows.plan_posts(full=False, since=None, high_water_mark=T, lookback_days=3)
    assert incremental == windows.PostsPlan(published_after=T - timedelta(days=3), full=False)
    since = windows.plan_posts(full=True, since=T, high_water_mark=None, lookback_days=3)
    assert since == windows.PostsPlan(published_after=T, full=False)


def test_posts_mark_trails_the_newest_post_by_the_walk_duration() -> None:
    mark = windows.next_posts_mark(previous=None, published_after=None, max_seen=T, walk_seconds=90)
    assert mark == T - timedelta(seconds=90 + SYNC_HWM_MARGIN_SECONDS)
    earlier = T - timedelta(days=1)
    kept = windows.next_posts_mark(previous=T, published_after=earlier, max_seen=T, walk_seconds=0)
    assert kept == T  # never moves back
    # A --since walk that started after the mark leaves a gap: the mark stays.
    gap = windows.next_posts_mark(
        previous=earlier - timedelta(days=5), published_after=earlier, max_seen=T, walk_seconds=0
    )
    assert gap == earlier - timedelta(days=5)
    assert (
        windows.next_posts_mark(previous=T, published_after=None, max_seen=None, walk_seconds=5)
        == T
    )


@pytest.mark.parametrize(
    ("pending", "known", "expected"),
    [(0, 1000, False), (10, 1000, False), (11, 1000, True), (3, 150, True), (2, 150, False)],
)
def test_prefer_full_walk_when_fewer_requests(pending: int, known: int, expected: bool) -> None:
    assert windows.prefer_full_walk(pending=pending, known_posts=known, page_limit=100) is expected


def test_analytics_plan_and_mark() -> None:
    today = date(2026, 11, 21)
    first = windows.plan_analytics(
        full=False,
        since=None,
        high_water_mark=None,
        earliest_in_data=datetime(2026, 6, 1, 8, tzinfo=UTC),
        today=today,
        lookback_days=3,
    )
    assert first == windows.AnalyticsPlan(
        start=date(2026, 6, 1),
        end=today + timedelta(days=SYNC_ANALYTICS_END_SLACK_DAYS),
        final_before=date(2026, 11, 18),
    )
    mark = windows.next_analytics_mark(previous=None, plan=first)
    assert mark == datetime(2026, 11, 18, tzinfo=UTC)
    later = windows.plan_analytics(
        full=False,
        since=None,
        high_water_mark=mark,
        earliest_in_data=datetime(2026, 6, 1, tzinfo=UTC),
        today=today + timedelta(days=1),
        lookback_days=3,
    )
    assert later is not None and later.start == date(2026, 11, 18)
    assert windows.next_analytics_mark(previous=mark, plan=later) == datetime(
        2026, 11, 19, tzinfo=UTC
    )
    nothing = windows.plan_analytics(
        full=True, since=None, high_water_mark=None, earliest_in_data=None, today=today,
        lookback_days=3,
    )  # fmt: skip
    assert nothing is None


def test_today_follows_a_server_clock_ahead_of_ours() -> None:
    assert windows.analytics_today(T, None) == date(2026, 11, 21)
    assert windows.analytics_today(T, T + timedelta(days=40)) == date(2026, 12, 31)
    assert windows.analytics_today(T, T - timedelta(days=40)) == date(2026, 11, 21)
