"""Missing is not zero (issue 28): every public frame-returning `Warehouse` method, on the
steady workspace with a gap of a week (no daily rows from 9 to 15 November, ISO week 46)
and a period (November 2026) that reaches past the last synced day (25 November, synced
on the 26th at noon). In the steady workspace every day has posts, opens and readers, so
any 0 in a count of readers, opens or engagements stands for "no data".
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import channelkit as ck
from fixtures.steady import SYNC_DAY, build_steady

GAP = [date(2026, 11, 9) + timedelta(days=k) for k in range(7)]
PERIOD = "2026-11"
Call = Callable[[ck.Warehouse, str], pd.DataFrame]

# The calls that cover a method's options (or that it takes no period); every other public
# method that returns a frame is called with the period alone (`CALLS`), so a new metric is
# checked without being listed here.
OPTIONS: dict[str, list[Call]] = {
    "posts": [lambda wh, p: wh.posts(period=p)],
    "channels": [lambda wh, p: wh.channels()],
    "sql": [lambda wh, p: wh.sql("SELECT count(*) AS posts FROM posts")],
    "engagement_over_time": [
        lambda wh, p, freq=freq, by=by: wh.engagement_over_time(freq, period=p, by=by)  # type: ignore[misc]
        for freq in ("day", "week", "month")
        for by in (None, "channel")
    ],
    "kpis": [lambda wh, p: wh.kpis(period=p), lambda wh, p: wh.kpis(period=p, by="channel")],
    "top_posts": [
        lambda wh, p, by=by: wh.top_posts(by, period=p)  # type: ignore[misc]
        for by in ("readers", "read_rate", "opens", "engagement_rate")
    ],
    "channel_comparison": [lambda wh, p: wh.channel_comparison(period=p)],
    "tag_performance": [lambda wh, p: wh.tag_performance(period=p)],
    "priority_impact": [lambda wh, p: wh.priority_impact(period=p)],
    "author_comparison": [lambda wh, p: wh.author_comparison(period=p)],
    "low_reach": [lambda wh, p: wh.low_reach(period=p, share=0.9)],
    "still_collecting_readers": [lambda wh, p: wh.still_collecting_readers(period=p)],
    "reach_curve": [lambda wh, p: wh.reach_curve(period=p)],
    "subscribers": [
        lambda wh, p, f=f, by=by: wh.subscribers(f, period=p, by=by)  # type: ignore[misc]
        for f in ("week", "month")
        for by in (None, "channel")
    ],
    "publishing_heatmap": [lambda wh, p: wh.publishing_heatmap(period=p)],
    "upcoming_scheduled": [lambda wh, p: wh.upcoming_scheduled(start="2026-11-01")],
    "best_times": [lambda wh, p: wh.best_times(period=p)],
    "runs": [lambda wh, p: wh.runs()],
    # the outlook's methods take no period: they read the young and settled posts of now
    "outlook": [lambda wh, p: wh.outlook()],
    "outlook_backtest": [lambda wh, p: wh.outlook_backtest()],
    "decay_profiles": [lambda wh, p: wh.decay_profiles()],
}


def _frame_methods() -> list[str]:
    """Every public `Warehouse` method that returns a frame."""
    return [
        name
        for name, method in inspect.getmembers(ck.Warehouse, inspect.isfunction)
        if not name.startswith("_")
        and "DataFrame" in str(inspect.signature(method).return_annotation)
    ]


def _with_period(name: str) -> Call:
    return lambda wh, p: getattr(wh, name)(period=p)


CALLS: dict[str, list[Call]] = {
    name: OPTIONS.get(name, [_with_period(name)]) for name in _frame_methods()
}
# Methods without a period: no period of theirs can be incomplete or fall inside the gap.
NO_PERIOD = ("channels", "sql", "runs", "upcoming_scheduled", "outlook", "outlook_backtest",
             "decay_profiles")  # fmt: skip
# The counts that never are 0 for a day, week or month of the steady workspace's data.
NEVER_ZERO = ("readers", "opens", "daily_unique_viewers", "engagements", "reactions", "value")


@pytest.fixture(scope="module")
def gapped(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    path = tmp_path_factory.mktemp("gap") / "gap.duckdb"
    synced = datetime(SYNC_DAY.year, SYNC_DAY.month, SYNC_DAY.day, 12, tzinfo=UTC)
    return ck.Warehouse(build_steady(path, synced, days=120, gap=GAP))


def test_every_frame_method_is_called() -> None:
    assert {"posts", "kpis", "best_times", "outlook"} <= set(CALLS)
    assert set(OPTIONS) <= set(CALLS)  # no calls left for a method that is gone


def _span(row: dict[str, Any], frame: pd.DataFrame) -> tuple[date, date]:
    first = row["period"].date()
    freq = frame.attrs.get("freq", "day")
    if freq == "week":
        return first, first + timedelta(days=7)
    if freq == "month":
        return first, (first.replace(day=28) + timedelta(days=4)).replace(day=1)
    return first, first + timedelta(days=1)


def _check(name: str, frame: pd.DataFrame) -> None:
    if "period" in frame and len(frame):
        for row in frame.to_dict("records"):
            first, stop = _span(row, frame)
            assert first <= SYNC_DAY, f"{name}: a row after the last synced day"
            in_gap = set(GAP) >= {first + timedelta(days=k) for k in range((stop - first).days)}
            for column in NEVER_ZERO:
                if column not in row:
                    continue
                if in_gap and column != "readers":
                    assert pd.isna(row[column]), f"{name}: {column} of {first} (in the gap)"
                elif column != "readers" or row["posts_published"]:
                    assert pd.isna(row[column]) or row[column] != 0, f"{name}: {column} {first}"
            if "days" in row and in_gap:
                assert row["days"] == 0 and not row["complete"], name
        return
    if name == "kpis":
        assert not frame.attrs["complete"]
        assert frame["provisional"].all()  # November runs past the synced days
        counts = frame[frame["metric"].isin(["readers", "opens", "engagements"])]
        assert (counts["value"] > 0).all(), name
        return
    if name == "publishing_heatmap":
        frame = frame[frame["posts_published"] > 0]  # posts only at 01, 05, ... 21 h
    if name == "best_times":
        frame = frame[frame["posts"] > 0]  # likewise: the 168 slots, most without posts
    if name == "priority_impact":
        frame = frame[frame["posts"] > 0]  # every priority is listed; all posts are normal
    for column in ("readers", "opens", "engagements"):
        if column in frame and name not in ("top_posts", "upcoming_scheduled"):
            assert (frame[column].dropna() != 0).all(), f"{name}: {column}"
    if "readers" in frame and name in ("top_posts", "low_reach", "still_collecting_readers"):
        assert (frame["readers"] > 0).all(), f"{name}: readers"


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.calendar
def test_missing_is_not_zero(gapped: ck.Warehouse, name: str) -> None:
    for call in CALLS[name]:
        frame = call(gapped, PERIOD)
        _check(name, frame)
        if "complete" in frame.attrs and name not in ("posts", *NO_PERIOD):
            assert not frame.attrs["complete"], name  # the gap, and the days after the 25th


DAILY_METRICS = [n for n in CALLS if n not in ("posts", "subscribers", *NO_PERIOD)]


@pytest.mark.parametrize("name", DAILY_METRICS)
def test_a_period_inside_the_gap_is_refused_not_zero(gapped: ck.Warehouse, name: str) -> None:
    with pytest.raises(ck.InvalidParameterError) as info:
        CALLS[name][0](gapped, "2026-W46")
    assert info.value.param == "period"
    assert "2026-11-09 to 2026-11-15" in str(info.value)


def test_the_gap_is_said(gapped: ck.Warehouse, tmp_path: Path) -> None:
    weekly = gapped.engagement_over_time("week", period=PERIOD)
    gap_week = weekly[weekly["period"].dt.date == GAP[0]].iloc[0]
    assert gap_week["posts_published"] > 0  # the posts table knows them
    assert pd.isna(gap_week["opens"]) and gap_week["days"] == 0
    frame = gapped.kpis(period=PERIOD)
    assert any("not fully covered" in w for w in frame.attrs["warnings"])
