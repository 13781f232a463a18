"""The engagement model on its own: exact sums, determinism, and the effects it promises."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

from channelkit.service.engagement import (
    channel_day,
    lifetime_readers,
    post_daily_rows,
    subscribers_on,
)

MONDAY_10H = int(datetime(2026, 11, 16, 10, tzinfo=UTC).timestamp())
SUNDAY_10H = int(datetime(2026, 11, 15, 10, tzinfo=UTC).timestamp())


def test_rows_add_up_to_the_reach_and_are_reproducible() -> None:
    for i in range(50):
        post_id = f"post_{i:04d}"
        rows = post_daily_rows(post_id, MONDAY_10H, "normal", ["ops"], 500, has_cover=i % 2 == 0)
        assert sum(r.unique_viewers for r in rows) == lifetime_readers(
            post_id, MONDAY_10H, "normal", ["ops"], 500
        )
        assert all(r.views >= r.unique_viewers > 0 for r in rows)
        assert rows == post_daily_rows(
            post_id, MONDAY_10H, "normal", ["ops"], 500, has_cover=i % 2 == 0
        )
        assert rows[0].day == MONDAY_10H // 86_400


def test_priority_weekday_and_audience_effects() -> None:
    ids = [f"post_{i}" for i in range(200)]

    def median_reach(when: int, priority: str, audience: int) -> float:
        return statistics.median(lifetime_readers(p, when, priority, [], audience) for p in ids)

    assert median_reach(MONDAY_10H, "urgent", 500) > median_reach(MONDAY_10H, "normal", 500)
    assert median_reach(MONDAY_10H, "normal", 500) > median_reach(SUNDAY_10H, "normal", 500)
    assert median_reach(MONDAY_10H, "normal", 1000) > median_reach(MONDAY_10H, "normal", 100)
    assert median_reach(MONDAY_10H + 8 * 3600, "normal", 500) < median_reach(
        MONDAY_10H, "normal", 500
    )


def test_channel_days_balance() -> None:
    created = 20_000
    for day in range(created, created + 60):
        now, gained, lost = channel_day("chan_x", 800, created, day)
        before = subscribers_on("chan_x", 800, created, day - 1)
        assert gained - lost == now - before
        assert min(gained, lost) >= 0
