"""The outlook where people meet it: the report's summary says which of the period's young
posts are heading below their channel's usual range, and a post heading for under a
quarter of its channel's usual readers makes a period news (fixtures/decay.py)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import channelkit as ck
from channelkit.display.outlook import heading_below, heading_far_below
from channelkit.reports.deliver.news import period_news
from channelkit.reports.parameters import ReportPeriod
from channelkit.reports.sections import young_posts
from fixtures.decay import LAST_DAY, build_decaying

pytestmark = pytest.mark.calendar  # the fixture's days

WEEK = ReportPeriod(LAST_DAY - timedelta(days=6), LAST_DAY + timedelta(days=1), "UTC", "week")


def test_the_flops_are_named_heading_below_and_a_third_is_not_news(tmp_path: Path) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=3)
    wh = ck.Warehouse(tmp_path / "w.duckdb")
    young = young_posts(wh, WEEK, [])
    behind = young[young["verdict"] == "behind"]
    assert set(planted.flops.values()) <= set(behind["post_id"])
    text = heading_below(young)
    assert text is not None
    assert text.startswith(f"{len(behind)} posts heading below their channel's usual range: ")
    for ident in planted.flops.values():
        assert f"'Post {ident}'" in text
    assert heading_far_below(young) is None  # a third of the usual is not under a quarter
    # A week before the young posts has none of them to speak of.
    earlier = ReportPeriod(WEEK.start - timedelta(days=28), WEEK.start - timedelta(days=21), "UTC")
    assert young_posts(wh, earlier, []).empty
    # One channel: only its young posts.
    fast = young_posts(wh, WEEK, ["Fast"])
    assert set(fast["channel_id"]) == {"chan_fast"}


def test_a_post_heading_for_under_a_quarter_makes_the_period_news(tmp_path: Path) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=3, flop=0.1)
    wh = ck.Warehouse(tmp_path / "w.duckdb")
    young = young_posts(wh, WEEK, [])
    news = young[young["news"].fillna(False).astype(bool)]
    assert set(news["post_id"]) == set(planted.flops.values())
    found = period_news(wh, WEEK, [], "previous")
    assert found.found
    assert any(r.startswith("2 posts are heading for under 25% of their") for r in found.reasons)
