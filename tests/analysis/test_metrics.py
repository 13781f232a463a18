"""Every metric on the hand-built warehouse equals the numbers worked out by hand.

The numbers come from the tables in tests/fixtures/warehouse.py; each expected value is
written as the arithmetic that produces it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from channelkit.warehouse import Warehouse
from channelkit.warehouse.connection import open_warehouse
from fixtures.warehouse import AS_OF, XSS_TAG, XSS_TITLE, build_small_warehouse

BERLIN = "Europe/Berlin"
W13 = {"start": "2026-03-23", "end": "2026-03-30", "tz": BERLIN}
WINDOW = {"start": "2026-03-16", "end": "2026-04-06", "tz": BERLIN}


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return Warehouse(build_small_warehouse(tmp_path_factory.mktemp("wh") / "small.duckdb"))


def _by(frame: pd.DataFrame, key: str) -> dict[object, dict[str, object]]:
    return {row[key]: row for row in frame.to_dict("records")}


def test_weekly_engagement_in_berlin(wh: Warehouse) -> None:
    df = wh.engagement_over_time("week", **WINDOW)
    assert list(df["period"]) == [
        pd.Timestamp("2026-03-16", tz=BERLIN),
        pd.Timestamp("2026-03-23", tz=BERLIN),
        pd.Timestamp("2026-03-30", tz=BERLIN),  # after the DST change: +02:00
    ]
    assert str(df["period"].iloc[2].utcoffset()) == "2:00:00"
    assert list(df["views"]) == [
        7 * 10 + 1 * 20 + 6 * 100 + 2 * 30 + 2 * 1,
        7 * 10 + 6 * 20 + 1 * 100 + 1 * 50 + 3 * 40,
        7 * 10 + 6 * 50 + 6 * 5,
    ]
    assert list(df["engagements"]) == [
        7 * 2 + 1 * 4 + 6 * 10 + 2 * 3,
        7 * 2 + 6 * 4 + 1 * 10 + 1 * 5 + 3 * 10,
        7 * 2 + 6 * 5,
    ]
    assert df["engagement_rate"].iloc[1] == pytest.approx(83 / 460)
    # Berlin: post_02 (Sun 23:30 UTC) falls on Monday of W13, post_04 (Sun 22:30 UTC, after
    # the switch to CEST) on Monday of W14.
    assert list(df["posts_published"]) == [3, 2, 3]
    assert df.attrs["period_label"] == "2026-03-16 to 2026-04-05 (Europe/Berlin)"
    assert df["views"].dtype == "Int64"
    assert str(df["period"].dtype.tz) == BERLIN


def test_weekly_posts_published_in_utc_differ(wh: Warehouse) -> None:
    df = wh.engagement_over_time("week", start="2026-03-16", end="2026-04-06")
    assert list(df["posts_published"]) == [4, 2, 2]
    assert list(df["views"]) == [752, 460, 400]  # daily rows are UTC days in any tz


def test_monthly_engagement_splits_at_local_month(wh: Warehouse) -> None:
    df = wh.engagement_over_time("month", **WINDOW)
    assert list(df["period"]) == [
        pd.Timestamp("2026-03-01", tz=BERLIN),
        pd.Timestamp("2026-04-01", tz=BERLIN),
    ]
    assert list(df["views"]) == [
        16 * 10 + 140 + 700 + 3 * 50 + 1 * 5 + 60 + 120 + 2,
        5 * 10 + 4 * 50 + 5 * 5,
    ]
    # post_05 is published 03-31 22:30 UTC = 04-01 00:30 in Berlin.
    assert list(df["posts_published"]) == [6, 2]
    utc = wh.engagement_over_time("month", start="2026-03-01", end="2026-05-01")
    assert list(utc["posts_published"]) == [8, 1]


def test_daily_series_fills_gaps_and_respects_bounds(wh: Warehouse) -> None:
    df = wh.engagement_over_time(
        "day", start="2026-04-04", end="2026-04-09", channel="company-news"
    )
    assert list(df["period"].dt.day) == [4, 5, 6, 7, 8]
    assert list(df["views"]) == [50, 0, 0, 0, 0]


def test_all_time_series_starts_at_first_publication(wh: Warehouse) -> None:
    df = wh.engagement_over_time("week", tz=BERLIN)
    assert df["period"].iloc[0] == pd.Timestamp("2026-03-02", tz=BERLIN)  # post_08
    assert df["views"].sum() == 1612
    assert df["engagements"].sum() == 211
    assert df.attrs["period_label"] == "all time (Europe/Berlin)"


def test_filters_narrow_engagement(wh: Warehouse) -> None:
    eng = wh.engagement_over_time("week", channel="Engineering", **WINDOW)
    assert list(eng["views"]) == [70 + 20, 70 + 120 + 120, 70 + 30]
    urgent = wh.engagement_over_time("week", priority="urgent", **WINDOW)
    assert list(urgent["views"]) == [600, 100 + 120, 0]
    tagged = wh.engagement_over_time("week", tag=["finance", "incident"], **WINDOW)
    assert list(tagged["views"]) == [0, 50 + 120, 300]
    bob = wh.engagement_over_time("week", author="bob@example.com", **WINDOW)
    assert list(bob["views"]) == [600 + 60 + 2, 100 + 50, 300]


def test_kpis_compare_with_previous_week(wh: Warehouse) -> None:
    df = wh.kpis(**W13).set_index("metric")
    assert df.loc["views", "value"] == 460
    assert df.loc["views", "previous"] == 752
    assert df.loc["views", "delta"] == 460 - 752
    assert df.loc["views", "delta_pct"] == pytest.approx((460 - 752) / 752)
    assert df.loc["engagements", ["value", "previous"]].tolist() == [83, 84]
    assert df.loc["engagement_rate", "value"] == pytest.approx(83 / 460)
    assert df.loc["engagement_rate", "previous"] == pytest.approx(84 / 752)
    assert df.loc["posts_published", ["value", "previous"]].tolist() == [2, 3]
    assert df.loc["reactions", "value"] == 7 * 1 + 6 * 2 + 5 + 2 + 3 * 4
    assert df.loc["net_subscribers", ["value", "previous"]].tolist() == [
        7 * (3 - 1) + 7 * (1 - 4),
        7 * (3 - 1) + 7 * (5 - 2),
    ]
    attrs = wh.kpis(**W13).attrs
    assert attrs["previous_label"] == "2026-03-16 to 2026-03-22 (Europe/Berlin)"
    assert attrs["period_label"] == "2026-03-23 to 2026-03-29 (Europe/Berlin)"


def test_kpis_in_utc_count_publications_by_utc_instant(wh: Warehouse) -> None:
    df = wh.kpis(start="2026-03-23", end="2026-03-30").set_index("metric")
    assert df.loc["posts_published", ["value", "previous"]].tolist() == [2, 4]


def test_kpis_default_period_is_last_week_of_data(wh: Warehouse) -> None:
    df = wh.kpis(tz=BERLIN)
    assert df.attrs["start"] == datetime(2026, 3, 30, tzinfo=df.attrs["start"].tzinfo)
    rows = df.set_index("metric")
    assert rows.loc["views", ["value", "previous"]].tolist() == [400, 460]
    # Net subscribers: -7 after -7; no percentage of a negative base.
    assert rows.loc["net_subscribers", ["value", "previous", "delta"]].tolist() == [-7, -7, 0]
    assert pd.isna(rows.loc["net_subscribers", "delta_pct"])
    from_start = wh.kpis(start="2026-03-23", tz=BERLIN)
    assert from_start.attrs["period_label"] == "2026-03-23 to 2026-03-29 (Europe/Berlin)"
    until_end = wh.kpis(end="2026-03-30", tz=BERLIN)
    assert until_end.set_index("metric").loc["views", "value"] == 460


def test_kpis_with_post_filters_have_no_subscriber_change(wh: Warehouse) -> None:
    df = wh.kpis(tag="eng", **W13).set_index("metric")
    assert pd.isna(df.loc["net_subscribers", "value"])
    assert df.loc["views", "value"] == 70 + 120 + 120
    zero = wh.kpis(start="2026-05-01", end="2026-05-08").set_index("metric")
    assert pd.isna(zero.loc["engagement_rate", "value"])
    assert pd.isna(zero.loc["views", "delta_pct"])


def test_top_posts_by_views_and_rate(wh: Warehouse) -> None:
    by_views = wh.top_posts(**W13)
    assert list(by_views["post_id"]) == ["post_02", "post_07", "post_03", "post_01", "post_04"]
    assert list(by_views["views"]) == [120, 120, 100, 70, 50]
    assert list(by_views["rank"]) == [1, 2, 3, 4, 5]
    assert by_views["title"].iloc[0] == XSS_TITLE
    assert list(by_views["tags"].iloc[0]) == [XSS_TAG, "eng"]
    by_rate = wh.top_posts("engagement_rate", **W13)  # default min_views 100
    assert list(by_rate["post_id"]) == ["post_07", "post_02", "post_03"]
    assert list(by_rate["engagement_rate"]) == pytest.approx([30 / 120, 24 / 120, 10 / 100])
    low = wh.top_posts("engagement_rate", n=2, min_views=50, **W13)
    assert list(low["post_id"]) == ["post_07", "post_01"]  # 0.25, then 14/70 = 0.2 < 02's id


def test_channel_comparison_normalises_by_current_subscribers(wh: Warehouse) -> None:
    df = wh.channel_comparison(**W13)
    assert list(df["channel_id"]) == ["chan_eng", "chan_news", "chan_old"]
    rows = _by(df, "channel_id")
    assert rows["chan_eng"]["views"] == 70 + 120 + 120
    assert rows["chan_eng"]["views_per_subscriber"] == pytest.approx(310 / 200)
    assert rows["chan_eng"]["posts_published"] == 2
    assert rows["chan_news"]["views_per_subscriber"] == pytest.approx((100 + 50) / 1000)
    assert rows["chan_news"]["posts_published"] == 0
    assert rows["chan_old"]["views"] == 0
    assert df["uses_current_subscribers"].all()
    assert "chan_gone" not in rows


def test_tag_performance_medians(wh: Warehouse) -> None:
    rows = _by(wh.tag_performance(**WINDOW), "tag")
    assert set(rows) == {"eng", "company", "finance", "release", "incident", XSS_TAG}
    eng = rows["eng"]  # posts 01, 02, 05, 07, 09 with 210, 140, 30, 120, 0 views
    assert eng["posts"] == 5
    assert eng["views"] == 210 + 140 + 30 + 120
    assert eng["median_views"] == 120
    assert eng["median_engagement_rate"] == pytest.approx(0.2)  # of .2, .2, 0, .25
    assert eng["engagement_rate"] == pytest.approx((42 + 28 + 30) / 500)
    assert rows["company"]["posts"] == 2  # the deleted post_10 does not count
    assert rows["company"]["median_views"] == (700 + 350) / 2
    assert all(row["small_sample"] for row in rows.values())
    only = wh.tag_performance(tag="finance", **WINDOW)
    assert list(only["tag"]) == ["finance"]


def test_priority_impact_lists_every_priority(wh: Warehouse) -> None:
    df = wh.priority_impact(small_sample_n=3, **WINDOW)
    assert list(df["priority"]) == ["normal", "high", "urgent"]
    rows = _by(df, "priority")
    assert rows["normal"]["posts"] == 4  # 01, 05, 06, 09
    assert rows["normal"]["median_views"] == (30 + 60) / 2
    assert rows["normal"]["median_engagement_rate"] == pytest.approx(0.1)  # .2, 0, .1
    assert not rows["normal"]["small_sample"]
    assert rows["urgent"]["median_engagement_rate"] == pytest.approx((0.1 + 0.25) / 2)
    assert rows["high"]["small_sample"]
    empty = wh.priority_impact(start="2026-05-01", end="2026-05-08")
    assert list(empty["posts"]) == [0, 0, 0]
    assert empty["small_sample"].all()


def test_publishing_heatmap_uses_local_time(wh: Warehouse) -> None:
    df = wh.publishing_heatmap(**WINDOW)
    assert len(df) == 7 * 24
    busy = df[df["posts_published"] > 0]
    assert {(r.weekday_name, r.hour): (r.posts_published, r.views) for r in busy.itertuples()} == {
        ("Mon", 0): (2, 140 + 350),  # post_02 (CET) and post_04 (CEST)
        ("Mon", 9): (1, 210),
        ("Tue", 10): (1, 700),
        ("Wed", 0): (1, 30),
        ("Wed", 15): (1, 120),
        ("Thu", 8): (1, 0),
        ("Fri", 13): (1, 60),
    }
    utc = wh.publishing_heatmap(start="2026-03-16", end="2026-04-06")
    sunday = utc[(utc["weekday_name"] == "Sun") & (utc["posts_published"] > 0)]
    assert list(sunday["hour"]) == [22, 23]


def test_upcoming_scheduled_after_as_of(wh: Warehouse) -> None:
    df = wh.upcoming_scheduled(as_of=AS_OF, tz=BERLIN)
    assert list(df["post_id"]) == ["post_11"]
    assert df["scheduled_at"].iloc[0] == pd.Timestamp("2026-04-10 09:00", tz=BERLIN)
    earlier = wh.upcoming_scheduled(as_of="2026-04-01", channel="chan_eng")
    assert list(earlier["post_id"]) == ["post_13", "post_11"]
    assert wh.upcoming_scheduled(as_of=datetime(2026, 5, 1, tzinfo=UTC)).empty


def test_posts_with_filters_and_dtypes(wh: Warehouse) -> None:
    df = wh.posts(tz=BERLIN)
    assert len(df) == 12  # 13 posts, one deleted
    assert "post_10" not in set(df["id"])
    assert df["priority"].dtype == pd.CategoricalDtype(["normal", "high", "urgent"], ordered=True)
    assert set(df["status"].cat.categories) == {"draft", "scheduled", "published", "archived"}
    assert str(df["published_at"].dtype) == "datetime64[us, Europe/Berlin]"
    assert df["views"].dtype == "Int64"
    assert isinstance(df["tags"].iloc[0], list)
    week = wh.posts(**W13)
    assert list(week["id"]) == ["post_02", "post_07"]
    drafts = wh.posts(status=["draft", "scheduled"])
    assert set(drafts["id"]) == {"post_11", "post_12", "post_13"}
    assert list(wh.posts(author="Ada Lovelace", tag="incident")["id"]) == ["post_07"]


def test_channels_leave_out_deleted(wh: Warehouse) -> None:
    df = wh.channels()
    assert list(df["id"]) == ["chan_news", "chan_eng", "chan_old"]  # by name
    assert df["visibility"].dtype.name == "category"
    assert df["subscriber_count"].dtype == "Int64"


def test_filter_by_slug_name_or_id_agree(wh: Warehouse) -> None:
    ids = [
        wh.kpis(channel=c, **W13).set_index("metric").loc["views", "value"]
        for c in ("chan_news", "company-news", "company news")
    ]
    assert ids == [150, 150, 150]


def test_not_whole_day_period_counts_days_starting_inside(tmp_path: Path) -> None:
    wh = Warehouse(build_small_warehouse(tmp_path / "w.duckdb"))
    # 03-23 12:00 .. 03-25 12:00: only the daily rows of 03-24 and 03-25 begin inside.
    df = wh.kpis(start="2026-03-23T12:00", end="2026-03-25T12:00").set_index("metric")
    assert df.loc["views", "value"] == 2 * (10 + 20) + 40
    assert df.loc["posts_published", "value"] == 0


def test_same_numbers_without_any_deleted_post(tmp_path: Path) -> None:
    path = build_small_warehouse(tmp_path / "w.duckdb")
    con = open_warehouse(path, read_only=False)
    con.execute("DELETE FROM post_daily WHERE post_id = 'post_10'")
    con.execute("DELETE FROM post_tags WHERE post_id = 'post_10'")
    con.execute("DELETE FROM posts WHERE id = 'post_10'")
    con.close()
    wh = Warehouse(path)
    assert list(wh.engagement_over_time("week", **WINDOW)["views"]) == [752, 460, 400]
    assert _by(wh.tag_performance(**WINDOW), "tag")["company"]["posts"] == 2
