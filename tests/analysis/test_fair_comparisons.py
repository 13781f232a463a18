"""Fair comparisons on a workspace whose engagement does not change from week to week.

The local service's `steady` seed publishes the same posts every day; each gathers its
readers over several days. Every change the metrics report between two periods must then
be small, and inside the usual range: a comparison of young posts with old ones (the bias
of issue 21) shows up as a drop of several points.

The workspace is seeded and synced at SYNCED_AT, whatever the day the suite runs: the seed
anchors its posts on the service's clock, and its 35-day noise cycle lines up differently
with each day (the calendar run analyses it at other instants).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd
import pytest
import time_machine

import channelkit as ck
from channelkit._constants import REACH_TIME_WINDOW_DAYS
from channelkit.reports.summary import summary_sentences
from channelkit.service import LocalService

SYNCED_AT = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def steady(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    path = tmp_path_factory.mktemp("steady") / "steady.duckdb"
    with time_machine.travel(SYNCED_AT, tick=True):
        with LocalService(seed="steady", rate_window=1.0) as svc:
            with ck.Client(base_url=svc.base_url, api_key=svc.demo_keys["admin"]) as client:
                return ck.sync(client, path, progress=False)


def _rows(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(r["metric"]): r for r in frame.to_dict("records")}


@pytest.mark.parametrize("period", [None, "7d", "week"])
def test_a_steady_week_compares_as_steady(steady: ck.Warehouse, period: str | None) -> None:
    frame = steady.kpis() if period is None else steady.kpis(period=period)
    rows = _rows(frame)
    assert frame.attrs["comparison"] == "compared at the same age"
    assert frame.attrs["usual_periods"] == 8  # 252 days of posts: 8 earlier 28 days too
    assert frame.attrs["default_period"] == ("last 28 days" if period is None else None)
    if period is None:
        assert frame.attrs["period"].startswith("28 days to ")
    assert abs(rows["read_rate"]["delta"]) <= 0.025
    assert abs(rows["readers"]["delta_pct"]) <= 0.06
    for metric in ("readers", "read_rate", "posts_published", "opens"):
        row = rows[metric]
        assert row["usual_low"] <= row["value"] <= row["usual_high"], metric
    sentences = summary_sentences(
        rows,
        period_name=frame.attrs["period"],
        previous_name=frame.attrs["previous_period"],
        comparison=frame.attrs["comparison"],
    )
    assert "within its usual range" in sentences[0].text
    assert "compared at the same age" in sentences[0].text
    assert "within its usual range" in sentences[1].text


def test_lifetime_readers_would_have_shown_a_drop(steady: ck.Warehouse) -> None:
    # The bias this guards against: the previous week's lifetime readers against this
    # week's readers so far (the comparison before issue 21).
    frame = steady.kpis(period="7d")
    before = steady.kpis(start=frame.attrs["previous_start"], end=frame.attrs["previous_end"])
    rows, lifetime = _rows(frame), _rows(before)
    biased = rows["read_rate"]["value"] - lifetime["read_rate"]["value"]
    assert biased < -0.04  # young posts against old ones: several points down
    assert abs(rows["read_rate"]["delta"]) < abs(biased) / 2


def test_low_reach_flags_young_posts_no_more_often_than_old(steady: ck.Warehouse) -> None:
    flagged = steady.low_reach(period="28d")
    posts = steady.posts(period="28d")
    synced = steady.freshness().last_sync_at
    assert synced is not None
    last_day = synced.astimezone(UTC).date() - timedelta(days=1)  # the last complete day
    published = posts["published_at"].dt.tz_convert("UTC").dt.date
    age = published.map(lambda day: (last_day - day).days)
    reach_days = flagged.attrs["reach_days"]
    assert set(reach_days) == set(posts["channel_id"])
    is_young = age < posts["channel_id"].map(reach_days)
    ids = set(flagged["post_id"])

    def flagged_share(chosen: pd.Series) -> float:
        group = set(posts["id"][chosen])
        assert group
        return len(group & ids) / len(group)

    # Younger than its channel's reach time: still collecting readers, listed apart and
    # never judged.
    young = steady.still_collecting_readers(period="28d")
    assert set(young["post_id"]) == set(posts["id"][is_young])
    assert flagged.attrs["still_collecting_readers"] == int(is_young.sum()) > 0
    assert (young["age_days"] < young["reach_days"]).all()
    assert flagged_share(is_young) == 0
    # Posts past their reach time but younger than 14 days are compared at their age: no
    # more often flagged than old ones, beyond two standard errors of the difference of the
    # two shares (judged by their readers so far against lifetime medians they would be
    # twice as often, the bias of issue 21). Both shares are counts of a few flagged posts,
    # so the old one is no exact rate either: taking it as one failed on some days.
    settling, old = ~is_young & (age < 14), age >= 14
    pooled = flagged_share(settling | old)
    both = 1 / int(settling.sum()) + 1 / int(old.sum())
    noise = 2 * math.sqrt(pooled * (1 - pooled) * both)
    assert flagged_share(settling) <= flagged_share(old) + noise
    assert any("still collecting readers" in w for w in flagged.attrs["warnings"])


def test_reach_time_is_where_the_channels_reach_curve_passes_90_percent(
    steady: ck.Warehouse,
) -> None:
    reach_days = steady.low_reach().attrs["reach_days"]
    last_day = steady.freshness().last_sync_at.astimezone(UTC).date() - timedelta(days=1)  # type: ignore[union-attr]
    # The cohort: posts published 14 to 42 days before the last complete day (UTC days).
    window = {
        "start": last_day - timedelta(days=14 + REACH_TIME_WINDOW_DAYS),
        "end": last_day - timedelta(days=13),
        "tz": "UTC",
    }
    for channel, days in reach_days.items():
        curve = steady.reach_curve(14, channel=channel, **window)
        assert curve.attrs["posts"] > 0
        assert days == int(curve.index[curve["share"] >= 0.9][0]), channel
        assert 0 < days < 14  # the steady posts gather their readers over several days


def test_read_rate_ranking_leaves_out_posts_still_collecting_readers(
    steady: ck.Warehouse,
) -> None:
    top = steady.top_posts("read_rate", n=500)
    young = steady.still_collecting_readers()
    assert top.attrs["still_collecting_readers"] == len(young) > 0
    assert not set(top["post_id"]) & set(young["post_id"])
    # Ranked by readers, every post counts, the young too.
    assert "still_collecting_readers" not in steady.top_posts("readers").attrs


def test_one_default_for_every_metric(steady: ck.Warehouse) -> None:
    named = steady.kpis(period="last 28 days").attrs["period"]
    calls = {
        "kpis": steady.kpis,
        "top_posts": steady.top_posts,
        "low_reach": steady.low_reach,
        "reach_curve": steady.reach_curve,
        "subscribers": steady.subscribers,
        "channel_comparison": steady.channel_comparison,
        "engagement_over_time": steady.engagement_over_time,
        "tag_performance": steady.tag_performance,
        "priority_impact": steady.priority_impact,
        "publishing_heatmap": steady.publishing_heatmap,
    }
    for name, call in calls.items():
        frame = call()
        assert frame.attrs["period"] == named, name
        assert frame.attrs["default_period"] == "last 28 days", name
    # The reason for 28 days: the reach curve's cohort (posts 14 days old) is not empty.
    curve = steady.reach_curve()
    assert curve.attrs["posts"] > 0
    assert curve["share"].iloc[-1] > 0.9
    assert steady.posts().attrs["default_period"] is None  # a listing: every post


def test_the_reports_tiles_colour_only_news(steady: ck.Warehouse) -> None:
    """A steady week's tiles are not red: each change lies within its usual range."""
    from channelkit.reports.generate import build_report

    tiles = {t.key: t for t in build_report(steady.path, period="week").page.kpis}
    rows = _rows(steady.kpis(period="week"))
    for metric in ("readers", "read_rate"):
        assert rows[metric]["usual_low"] <= rows[metric]["value"] <= rows[metric]["usual_high"]
        assert tiles[metric].direction == "flat", (metric, tiles[metric].delta)
