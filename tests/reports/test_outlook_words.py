"""The outlook where people meet it: the report's summary says which of the period's young
posts are heading below their channel's usual range, and a post heading for under a
quarter of its channel's usual readers makes a period news, and the morning digest names
the posts already out that are heading below (fixtures/decay.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from markupsafe import escape

import channelkit as ck
from channelkit._tz import UTC_ZONE
from channelkit.display.outlook import heading_below, heading_far_below
from channelkit.reports.deliver.config import UpcomingJob
from channelkit.reports.deliver.news import period_news
from channelkit.reports.deliver.upcoming import _heading_below
from channelkit.reports.parameters import ReportPeriod
from channelkit.reports.sections import young_posts
from channelkit.reports.upcoming import UpcomingDigest
from fixtures.decay import LAST_DAY, build_decaying

WEEK = ReportPeriod(LAST_DAY - timedelta(days=6), LAST_DAY + timedelta(days=1), UTC_ZONE, "week")


def test_the_flops_are_named_heading_below_and_a_third_is_not_news(tmp_path: Path) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=3).planted
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
    earlier = ReportPeriod(
        WEEK.start - timedelta(days=28), WEEK.start - timedelta(days=21), UTC_ZONE
    )
    assert young_posts(wh, earlier, []).empty
    # One channel: only its young posts.
    fast = young_posts(wh, WEEK, ["Fast"])
    assert set(fast["channel_id"]) == {"chan_fast"}


def test_a_post_heading_for_under_a_quarter_makes_the_period_news(tmp_path: Path) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=3, flop=0.1).planted
    wh = ck.Warehouse(tmp_path / "w.duckdb")
    young = young_posts(wh, WEEK, [])
    news = young[young["news"].fillna(False).astype(bool)]
    assert set(news["post_id"]) == set(planted.flops.values())
    found = period_news(wh, WEEK, [], "previous")
    assert found.found
    assert any(r.startswith("2 posts are heading for under 25% of their") for r in found.reasons)


def test_the_morning_digest_says_which_posts_already_out_are_heading_below(
    tmp_path: Path,
) -> None:
    planted = build_decaying(tmp_path / "w.duckdb", seed=3).planted
    job = UpcomingJob(name="morning", within=timedelta(hours=36), channels=("Slow",))
    line = _heading_below(tmp_path / "w.duckdb", job)
    assert line is not None
    assert f"'Post {planted.flops['chan_slow']}'" in line
    assert f"'Post {planted.flops['chan_fast']}'" not in line  # not one of the job's channels
    start = datetime(2026, 11, 27, 7, 0, tzinfo=UTC)
    digest = UpcomingDigest(start, start + timedelta(hours=36), UTC_ZONE, (), outlook=line)
    assert digest.text().splitlines()[-1] == f"Already out: {line} (provisional)"
    assert str(escape(line)) in digest.html()  # autoescaped, as Jinja2 does
    # Without a synced warehouse the digest goes out without the line.
    assert _heading_below(tmp_path / "none.duckdb", job) is None
