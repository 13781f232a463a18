"""Calendar periods, fair comparisons, honest attrs, empty states and the inputs people type."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import channelkit as ck
from channelkit.errors import NotSyncedError
from channelkit.storage.connection import open_warehouse
from fixtures.warehouse import build_long_warehouse, build_small_warehouse

NUMBERS = ["value", "previous", "delta", "delta_pct"]


@pytest.fixture(scope="module")
def long_wh(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    return ck.Warehouse(build_long_warehouse(tmp_path_factory.mktemp("long") / "long.duckdb"))


@pytest.fixture(scope="module")
def small_wh(tmp_path_factory: pytest.TempPathFactory) -> ck.Warehouse:
    return ck.Warehouse(build_small_warehouse(tmp_path_factory.mktemp("small") / "s.duckdb"))


def _values(frame: pd.DataFrame) -> dict[str, Any]:
    return dict(zip(frame["metric"], frame["value"], strict=True))


def test_october_compares_with_september(long_wh: ck.Warehouse) -> None:
    oct_ = long_wh.kpis(period="2026-10", tz="Europe/Berlin")
    assert oct_.attrs["period"] == "October 2026"
    assert oct_.attrs["previous_period"] == "September 2026"
    assert oct_.attrs["complete"] is True and oct_.attrs["warnings"] == []
    sept = long_wh.kpis(start="2026-09-01", end="2026-10-01", tz="Europe/Berlin")
    octo = long_wh.kpis(start="2026-10-01", end="2026-11-01", tz="Europe/Berlin")
    # Readers are compared at the same age: September as it stood 15 days after its end
    # (October ended 15 days before the last synced day, 2026-11-14); the rest as is.
    assert oct_.attrs["same_age_day"] == date(2026, 10, 15)
    same = ~oct_["metric"].isin(["readers", "read_rate"])
    assert list(oct_["previous"][same]) == list(sept["value"][same])
    assert (oct_["previous"][~same] <= sept["value"][~same]).all()
    assert list(oct_["value"]) == list(octo["value"])
    opens = oct_.set_index("metric").loc["opens"]
    assert opens["delta"] == opens["value"] - opens["previous"]
    assert opens["delta_pct"] == opens["delta"] / opens["previous"]


def test_compare_year_is_the_same_period_a_year_earlier(long_wh: ck.Warehouse) -> None:
    frame = long_wh.kpis(period="2026-10", compare="year")
    assert frame.attrs["previous_period"] == "October 2025"
    same = ~frame["metric"].isin(["readers", "read_rate"])  # those at the same age
    assert list(frame["previous"][same]) == list(long_wh.kpis(period="2025-10")["value"][same])
    week = long_wh.kpis(period="2026-W44", compare="year")
    assert week.attrs["previous_period"] == "Week 44, 2025"
    earlier = long_wh.kpis(period="2025-W44")["value"]
    assert list(week["previous"][same]) == list(earlier[same])


def test_an_incomplete_period_has_no_deltas(long_wh: ck.Warehouse) -> None:
    # Data ends on 2026-11-15: days up to the end of November are not synced.
    frame = long_wh.kpis(start="2026-11-01", end="2026-12-01")
    assert frame.attrs["complete"] is False
    assert "not fully covered" in frame.attrs["warnings"][0]
    rows = frame.set_index("metric")
    for metric in ("posts_published", "readers", "opens", "engagements", "net_subscribers"):
        assert pd.isna(rows.loc[metric, "delta"]) and pd.isna(rows.loc[metric, "delta_pct"])
        assert not pd.isna(rows.loc[metric, "value"])
    assert not pd.isna(rows.loc["read_rate", "delta"])  # a rate of posts vs their audience
    # The current month is also "month" only once it is over: the last complete one.
    assert long_wh.kpis(period="month").attrs["period"] == "October 2026"
    assert long_wh.kpis(period="quarter").attrs["period"] == "Q3 2026"
    assert long_wh.kpis(period="week").attrs["period"] == "Week 46, 2026"  # Mon 9 - Sun 15


def test_a_named_running_month_is_to_date_and_compared_with_the_same_days(
    long_wh: ck.Warehouse,
) -> None:
    # Data ends on 2026-11-15: November, named, is November 1-15, against October 1-15.
    frame = long_wh.kpis(period="2026-11")
    assert frame.attrs["period"] == "November 2026 to date"
    assert frame.attrs["previous_period"] == "October 2026 to date"
    assert frame.attrs["complete"] is True
    this = long_wh.kpis(period="this month")
    assert this.attrs["period"] == frame.attrs["period"]
    pd.testing.assert_frame_equal(this, frame)


def test_relative_periods_end_with_the_last_synced_day(long_wh: ck.Warehouse) -> None:
    frame = long_wh.kpis(period="28d")
    assert frame.attrs["period"] == "28 days to 15 November 2026"
    assert frame.attrs["previous_period"] == "28 days to 18 October 2026"
    assert frame.attrs["complete"] is True
    trend = long_wh.engagement_over_time("week", period="12w")
    assert len(trend) == 12 and trend["period"].iloc[0].day_name() == "Monday"


def test_a_period_without_data_names_the_range_covered(long_wh: ck.Warehouse) -> None:
    with pytest.raises(ck.InvalidParameterError) as info:
        long_wh.kpis(period="2024-03")
    assert info.value.param == "period"
    assert "2025-01-01 to 2026-11-15" in str(info.value)


def test_small_bases_are_flagged(small_wh: ck.Warehouse) -> None:
    frame = small_wh.kpis(start="2026-03-23", end="2026-03-30", channel="engineering")
    flags = dict(zip(frame["metric"], frame["small_base"], strict=True))
    assert bool(flags["posts_published"]) is True  # 2 posts the week before, below 20
    assert bool(flags["read_rate"]) is False  # audience 160 + 172 >= 100


def test_by_channel_rows_add_up_to_the_totals(long_wh: ck.Warehouse) -> None:
    per = long_wh.kpis(period="2026-10", by="channel")
    assert set(per["channel"]) == {"All Hands", "Team B"}
    total = _values(long_wh.kpis(period="2026-10"))
    for metric in ("posts_published", "readers", "opens", "engagements", "net_subscribers"):
        assert per[per["metric"] == metric]["value"].sum() == total[metric]
    trend = long_wh.engagement_over_time("month", period="2026-Q3", by="channel")
    assert len(trend) == 3 * 2 and list(trend.columns[:3]) == ["period", "channel_id", "channel"]
    flat = long_wh.engagement_over_time("month", period="2026-Q3")
    assert trend.groupby("period")["readers"].sum().tolist() == flat["readers"].tolist()
    tags = long_wh.tag_performance(period="2026-Q3", by="channel")
    assert {"channel_id", "channel", "lift", "read_rate"} <= set(tags.columns)


def test_inputs_people_type(long_wh: ck.Warehouse) -> None:
    expected = _values(long_wh.kpis(start="2026-10-01", end="2026-11-01"))
    for start, end in [
        (date(2026, 10, 1), date(2026, 11, 1)),
        (pd.Timestamp("2026-10-01"), pd.Timestamp("2026-11-01")),
        (np.datetime64("2026-10-01"), np.datetime64("2026-11-01T00:00")),
        (datetime(2026, 10, 1), "2026-11-01"),
    ]:
        assert _values(long_wh.kpis(start=start, end=end)) == expected
    assert len(long_wh.top_posts(n=np.int64(3), period="2026-10")) == 3
    assert long_wh.reach_curve(np.int32(5))["day"].tolist() == [0, 1, 2, 3, 4, 5]
    by_name = long_wh.kpis(period="2026-10", channel=" all HANDS ", author="author1@example.COM")
    by_id = long_wh.kpis(period="2026-10", channel="chan_a", author="u1")
    assert _values(by_name) == _values(by_id)
    assert by_name.attrs["filters"] == {
        "channel": ["All Hands"],
        "author": ["author1@example.COM"],
    }
    assert _values(long_wh.kpis(period="2026-10", author="author 1")) == _values(
        long_wh.kpis(period="2026-10", author="u1")
    )


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda wh: wh.kpis(channel=123), "channel"),
        (lambda wh: wh.kpis(channel=[123]), "channel"),
        (lambda wh: wh.kpis(start="0001-01-01", end="9999-12-31"), "start"),
        (lambda wh: wh.kpis(start=date(2026, 1, 1), end=date(9999, 12, 31)), "end"),
        (lambda wh: wh.kpis(period="Octember"), "period"),
        (lambda wh: wh.kpis(period="2026-13"), "period"),
        (lambda wh: wh.kpis(period="2026-W54"), "period"),
        (lambda wh: wh.kpis(period=202610), "period"),
        (lambda wh: wh.kpis(period="0d"), "period"),
        (lambda wh: wh.kpis(period="2026-10", start="2026-10-01"), "period"),
        (lambda wh: wh.kpis(compare="last"), "compare"),
        (lambda wh: wh.kpis(by="tag"), "by"),
        (lambda wh: wh.top_posts(n=2.5), "n"),
        (lambda wh: wh.top_posts(n=True), "n"),
        (lambda wh: wh.reach_curve(days="7"), "days"),
        (lambda wh: wh.reach_curve(days=1000), "days"),
        (lambda wh: wh.low_reach(share=2), "share"),
        (lambda wh: wh.subscribers("day"), "freq"),
        (lambda wh: wh.kpis(tz=5), "tz"),
        (lambda wh: wh.kpis(start=np.datetime64("NaT")), "start"),
        (
            lambda wh: wh.engagement_over_time(
                "day", by="channel", start="1970-01-01", end="2200-12-31"
            ),
            "freq",
        ),
        (lambda wh: wh.engagement_over_time("day", by="channel", period="2026"), None),
    ],
)
def test_every_input_mistake_names_the_parameter(
    long_wh: ck.Warehouse, call: Any, param: str | None
) -> None:
    if param is None:  # a large but sane grid is computed, not refused
        # Two channels a day through the last synced day (2026-11-15), none after it.
        assert len(call(long_wh)) == 2 * ((date(2026, 11, 15) - date(2026, 1, 1)).days + 1)
        return
    with pytest.raises(ck.ChannelkitError) as info:
        call(long_wh)
    assert isinstance(info.value, ck.InvalidParameterError)
    assert info.value.param == param, str(info.value)


def test_a_key_without_analytics_read_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no-analytics.duckdb"
    con = open_warehouse(path, read_only=False)
    con.execute(
        "INSERT INTO channels (id, name, slug, description, visibility, subscriber_count, "
        "post_count, is_default, is_archived, created_at, updated_at, deleted_at, synced_at) "
        "VALUES ('c', 'C', 'c', NULL, 'team', 5, NULL, false, false, NULL, "
        "NULL, NULL, now())"
    )
    con.execute(
        "INSERT INTO posts (id, channel_id, title, body, priority, tags, author_id, "
        "author_name, author_email, status, published_at, scheduled_at, cover_image_url, "
        "views, created_at, updated_at, deleted_at, synced_at) "
        "VALUES ('p', 'c', 'T', 'B', 'normal', [], NULL, NULL, NULL, "
        "'published', now(), NULL, NULL, 3, NULL, NULL, NULL, now())"
    )
    con.execute(
        "INSERT INTO sync_runs "
        "(run_id, started_at, finished_at, status, mode, base_url, counts, requests, "
        "rate_limit_waits, error) "
        "VALUES ('r', now(), now(), 'completed', 'full', 'http://x/v1', "
        """'{"tables": {}, "skipped": {"post_daily": "the API key lacks the analytics:read """
        """scope (403 forbidden)", "channel_daily": "same"}}', 1, 0, NULL)"""
    )
    con.close()
    wh = ck.Warehouse(path)
    assert list(wh.posts()["id"]) == ["p"]  # listings work
    for call in (wh.kpis, wh.engagement_over_time, wh.reach_curve, wh.tag_performance):
        with pytest.raises(NotSyncedError, match="lacks the analytics:read scope"):
            call()
    assert isinstance(NotSyncedError("x"), ck.ChannelkitError)


def test_readers_older_than_the_sync_horizon_are_warned_about(tmp_path: Path) -> None:
    path = build_small_warehouse(tmp_path / "w.duckdb")
    con = open_warehouse(path, read_only=False)
    con.execute(
        "INSERT INTO sync_runs "
        "(run_id, started_at, finished_at, status, mode, base_url, counts, requests, "
        "rate_limit_waits, error) "
        "SELECT 'inc_' || i, TIMESTAMPTZ '2026-04-07 05:00:00+00' "
        "+ to_days(i::INTEGER), TIMESTAMPTZ '2026-04-07 05:01:00+00' + to_days(i::INTEGER), "
        "'completed', 'incremental', 'http://x/v1', NULL, 0, 0, NULL FROM range(7) t(i)"
    )
    con.execute(
        "UPDATE posts SET synced_at = TIMESTAMPTZ '2026-04-13 05:00:30+00' "
        "WHERE id IN ('post_01', 'post_02')"
    )
    con.close()
    wh = ck.Warehouse(path)
    fresh = wh.freshness()
    assert fresh.oldest_post_synced_at == datetime.fromisoformat("2026-04-06 05:00:00+00:00")
    assert fresh.revisited_share == pytest.approx(2 / 8)  # 2 of 8 published posts re-read
    warnings = wh.kpis(start="2026-03-16", end="2026-03-23").attrs["warnings"]
    assert any("Readers of 2 posts were last synced before the last 7 syncs" in w for w in warnings)
