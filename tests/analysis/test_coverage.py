"""Every number knows what it covers (issue 28), on the steady workspace of
tests/fixtures/steady.py, where the truth is known.

- One cutoff for both sides: a sync at 00:30, 12:00 or 23:30 UTC gives the same numbers,
  flat against the previous period and inside the usual range.
- Whole periods only in a usual range, judged per kind of data (posts vs channel analytics).
- Provisional while the period's posts still gather readers.
- Partial periods marked (`days`, `complete`), periods after the last synced day absent.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest

import channelkit as ck
from channelkit.plots.trend import metric_over_time
from fixtures.steady import AUDIENCES, POST_HOURS, SYNC_DAY, build_steady, readers_by

HOURS = {"00:30": time(0, 30), "12:00": time(12, 0), "23:30": time(23, 30)}
LAST = SYNC_DAY - timedelta(days=1)  # the last complete synced day of every sync


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ck.Warehouse]:
    """The steady workspace synced at three hours of the same day."""
    folder = tmp_path_factory.mktemp("steady")
    return {
        name: ck.Warehouse(
            build_steady(folder / f"{name[:2]}.duckdb", datetime.combine(SYNC_DAY, at, tzinfo=UTC))
        )
        for name, at in HOURS.items()
    }


def _rows(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(r["metric"]): r for r in frame.to_dict("records")}


def _kpis(wh: ck.Warehouse, period: str | None, **kw: Any) -> pd.DataFrame:
    return wh.kpis(**kw) if period is None else wh.kpis(period=period, **kw)


@pytest.mark.parametrize("period", [None, "7d", "week"])
@pytest.mark.parametrize("hour", list(HOURS))
def test_the_hour_of_the_sync_moves_nothing(
    synced: dict[str, ck.Warehouse], hour: str, period: str | None
) -> None:
    frame = _kpis(synced[hour], period)
    rows = _rows(frame)
    assert frame.attrs["comparison"] == "compared at the same age"
    assert frame.attrs["readers_through"] == LAST
    assert abs(rows["read_rate"]["delta"]) <= 0.025
    assert abs(rows["readers"]["delta_pct"]) <= 0.06
    for metric in ("readers", "read_rate"):
        row = rows[metric]
        assert row["usual_periods"] == 8
        assert row["usual_low"] <= row["value"] <= row["usual_high"], metric
    # Readers gathered after the last complete day never count: every hour gives the same.
    first = _rows(_kpis(synced["00:30"], period))
    for metric in ("readers", "read_rate", "posts_published"):
        assert rows[metric]["value"] == first[metric]["value"], metric
        assert rows[metric]["previous"] == first[metric]["previous"], metric


def test_readers_are_counted_through_the_last_complete_day(
    synced: dict[str, ck.Warehouse],
) -> None:
    # An independent recomputation from the workspace's model: each post's readers at
    # the midnight that ends the last complete day, however late on the next day the sync.
    wh = synced["23:30"]
    frame = wh.kpis(period="7d", tz="UTC")
    posts = wh.posts(period="7d", tz="UTC")
    assert len(posts) == 7 * len(POST_HOURS) * len(AUDIENCES)
    cutoff = datetime.combine(SYNC_DAY, time(), tzinfo=UTC)
    hours = np.array([(cutoff - p).total_seconds() / 3600 for p in posts["published_at"]])
    # The model's R is unknown here but its readers at the sync are the lifetime readers:
    # R × (1 − 0.4^(h/24)) at the sync's hour, so R follows from them (up to rounding).
    at_sync = np.array([(datetime.combine(SYNC_DAY, HOURS["23:30"], tzinfo=UTC) - p)
                        .total_seconds() / 3600 for p in posts["published_at"]])  # fmt: skip
    totals = posts["readers"].to_numpy() / (1 - 0.4 ** (at_sync / 24))
    expected = readers_by(hours, totals).sum()
    value = _rows(frame)["readers"]["value"]
    assert abs(value - expected) <= len(posts)  # one reader of rounding per post at most
    assert value < posts["readers"].sum()  # the lifetime readers include today's


def test_provisional_while_posts_still_gather_readers(synced: dict[str, ck.Warehouse]) -> None:
    wh = synced["12:00"]
    week = wh.kpis(period="7d")  # the last 7 days: posts of yesterday among them
    # 95% of readers by the end of day 3 (0 = the day of publication) at 60% a day,
    # for most posts; by day 4 for those of the evening.
    assert week.attrs["settled_days"] in (3, 4)
    flags = dict(zip(week["metric"], week["provisional"], strict=True))
    assert flags["readers"] and flags["read_rate"]
    assert not flags["posts_published"] and not flags["opens"]
    ended = LAST - timedelta(days=60)
    month = f"{ended.year}-{ended.month:02d}"
    settled = wh.kpis(period=month)
    assert not settled["provisional"].any()
    assert settled.attrs["period"] == calendar.month_name[ended.month] + f" {ended.year}"


def test_a_mid_month_start_leaves_the_partial_month_out(tmp_path: Path) -> None:
    # Posts from 30 May, channel analytics from 20 April: May is whole for subscribers
    # only, so October's usual range of posts rests on June..September.
    wh = ck.Warehouse(
        build_steady(
            tmp_path / "late.duckdb",
            datetime.combine(SYNC_DAY, time(12), tzinfo=UTC),
            posts_from=date(2026, 5, 30),
            channels_from=date(2026, 4, 20),
        )
    )
    rows = _rows(wh.kpis(period="2026-10"))
    for metric in ("posts_published", "readers", "read_rate", "opens"):
        assert rows[metric]["usual_periods"] == 4, metric
        assert rows[metric]["usual_low"] <= rows[metric]["value"] <= rows[metric]["usual_high"]
    assert rows["net_subscribers"]["usual_periods"] == 5  # May..September
    september = _rows(wh.kpis(period="2026-09"))
    assert september["readers"]["usual_periods"] == 3
    assert pd.isna(september["readers"]["usual_low"])  # below 4 whole months: no range
    monthly = wh.engagement_over_time("month", period="2026")
    may = monthly[monthly["period"].dt.month == 5].iloc[0]
    assert (may["days"], bool(may["complete"])) == (2, False)


def test_no_row_past_the_last_synced_day(synced: dict[str, ck.Warehouse]) -> None:
    wh = synced["12:00"]
    weekly = wh.engagement_over_time("week", period="2026-Q4", tz="UTC")
    starts = weekly["period"].dt.date
    assert starts.max() <= SYNC_DAY
    assert starts.iloc[0] == date(2026, 9, 28)  # the week the quarter begins in...
    assert (weekly["days"].iloc[0], bool(weekly["complete"].iloc[0])) == (4, False)  # ...cut
    assert not weekly["complete"].iloc[-1]  # the week of the sync, still going on
    assert weekly["complete"].iloc[1:-1].all() and (weekly["days"].iloc[1:-1] == 7).all()
    assert weekly["readers"].notna().all() and (weekly["readers"] > 0).all()
    # November is still running: "to date", through the last complete day (the sync's own
    # day, partial, is not in it), every day complete.
    daily = wh.engagement_over_time("day", period="2026-11", tz="UTC")
    assert daily["period"].dt.date.max() == SYNC_DAY - timedelta(days=1)
    assert daily["complete"].all() and daily.attrs["period"] == "November 2026 to date"
    whole = wh.engagement_over_time("day", start="2026-11-01", end="2026-12-01", tz="UTC")
    assert whole["period"].dt.date.max() == SYNC_DAY  # the sync's own day, partial...
    assert not whole["complete"].iloc[-1] and whole["complete"].iloc[:-1].all()


def test_monthly_subscribers_are_whole_months_or_marked(
    synced: dict[str, ck.Warehouse],
) -> None:
    frame = synced["12:00"].subscribers(freq="month")
    assert frame.attrs["default_period"].startswith("last 28 days, from the first day")
    assert (frame["period"].dt.day == 1).all()
    for row in frame.to_dict("records"):
        month_days = calendar.monthrange(row["period"].year, row["period"].month)[1]
        assert bool(row["complete"]) == (row["days"] == month_days)
    october = frame.iloc[0]
    assert october["complete"] and october["gained"] == 5 * 31 * len(AUDIENCES)
    assert not frame["complete"].iloc[-1]  # November, through the 25th
    weekly = synced["12:00"].subscribers()  # the default 28 days: the first week cut
    assert weekly.attrs["period"] == synced["12:00"].kpis().attrs["period"]
    assert weekly["period"].dt.day_of_week.eq(0).all()
    assert list(weekly["complete"]) == [d == 7 for d in weekly["days"]]
    assert not weekly["complete"].iloc[0] and not weekly["complete"].iloc[-1]


def test_rankings_by_readers_use_the_same_cutoff(synced: dict[str, ck.Warehouse]) -> None:
    early, late = synced["00:30"], synced["23:30"]
    for by in ("readers", "read_rate"):
        a, b = (wh.top_posts(by, period="7d") for wh in (early, late))
        assert list(a["post_id"]) == list(b["post_id"]), by
        assert list(a["readers"]) == list(b["readers"]), by
    a, b = (wh.low_reach(period="28d", share=0.95) for wh in (early, late))
    assert len(a) > 0
    assert list(a["post_id"]) == list(b["post_id"])
    assert list(a["readers"]) == list(b["readers"])


def test_plots_draw_partial_periods_apart_and_never_fall_to_zero(
    synced: dict[str, ck.Warehouse],
) -> None:
    weekly = synced["12:00"].engagement_over_time("week", period="2026-Q4", tz="UTC")
    fig = ck.plots.engagement_over_time(weekly)
    bars, line = fig.data[:2]  # a dashed read rate of the weeks still gathering readers follows
    partial = [not c for c in weekly["complete"]]
    assert [s == "/" for s in bars.marker.pattern.shape] == partial
    assert [s == "circle-open" for s in line.marker.symbol] == partial
    assert partial[0] and partial[-1] and not any(partial[1:-1])
    assert min(bars.y) > 0  # the last bar is the partial week, not a drop to 0
    trend = metric_over_time(weekly, "opens")
    assert [s == "circle-open" for s in trend.data[0].marker.symbol] == partial
    monthly = synced["12:00"].subscribers(freq="month")
    subs = ck.plots.subscribers(monthly)
    assert [s == "/" for s in subs.data[0].marker.pattern.shape] == [
        not c for c in monthly["complete"]
    ]


def test_a_channel_created_mid_period_is_not_whole_for_it() -> None:
    # Coverage per kind of data and per channel: a channel whose rows begin on 20 October
    # does not cover October, though the workspace does; a gap spoils both.
    from channelkit.analysis.coverage import Coverage
    from channelkit.analysis.period import parse_period

    days = tuple(date(2026, 9, 1) + timedelta(days=k) for k in range(86) if k != 70)
    cov = Coverage(
        synced=True,
        analytics_skipped=None,
        first_day=days[0],
        last_day=days[-1],
        last_complete_day=days[-1],
        horizon_start=None,
        synced_days=days,
        firsts={
            "posts": {"old": date(2026, 9, 1), "new": date(2026, 10, 20)},
            "channels": {"old": date(2026, 9, 1), "new": date(2026, 10, 20)},
        },
    )
    october = parse_period("2026-10", tz=ZoneInfo("UTC"), last_day=days[-1])
    assert cov.covers(october) and cov.covers(october, "posts", ["old"])
    assert not cov.covers(october, "posts", ["new"])
    assert cov.covers(october, "channels", ["old", "new"])  # the earliest of the two
    assert cov.days_in(date(2026, 10, 1), date(2026, 11, 1), "posts", ["new"]) == 12
    november = parse_period("2026-11", tz=ZoneInfo("UTC"), last_day=days[-1])
    assert not cov.covers(november)  # runs past the last day, and 10 November is a gap
    assert cov.gaps() == [(date(2026, 11, 10), date(2026, 11, 10))]
