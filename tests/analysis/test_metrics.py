"""Every metric on the hand-built warehouse equals the numbers worked out by hand.

The numbers come from the tables in tests/fixtures/warehouse.py; each expected value is
written as the arithmetic that produces it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from channelkit.errors import InvalidParameterError
from channelkit.storage.connection import open_warehouse
from channelkit.storage.derived import refresh_derived
from channelkit.warehouse import Warehouse
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
    assert list(df["opens"]) == [
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
    assert df["opens"].dtype == "Int64"
    assert str(df["period"].dtype.tz) == BERLIN


def test_weekly_posts_published_in_utc_differ(wh: Warehouse) -> None:
    df = wh.engagement_over_time("week", start="2026-03-16", end="2026-04-06")
    assert list(df["posts_published"]) == [4, 2, 2]
    assert list(df["opens"]) == [752, 460, 400]  # daily rows are UTC days in any tz


def test_monthly_engagement_splits_at_local_month(wh: Warehouse) -> None:
    df = wh.engagement_over_time("month", **WINDOW)
    assert list(df["period"]) == [
        pd.Timestamp("2026-03-01", tz=BERLIN),
        pd.Timestamp("2026-04-01", tz=BERLIN),
    ]
    assert list(df["opens"]) == [
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
    # Days after the last synced day (04-05) are absent, never 0 (issue 28); 04-05 was
    # synced and Company News had no opens: a real 0.
    assert list(df["period"].dt.day) == [4, 5]
    assert list(df["opens"]) == [50, 0]
    assert list(df["days"]) == [1, 1] and df["complete"].all()


def test_all_time_series_starts_at_first_publication(wh: Warehouse) -> None:
    df = wh.engagement_over_time("week", period="All Time", tz=BERLIN)
    assert df["period"].iloc[0] == pd.Timestamp("2026-03-02", tz=BERLIN)  # post_08
    assert df["opens"].sum() == 1612
    assert df["engagements"].sum() == 211
    assert df.attrs["period_label"] == "all time (Europe/Berlin)"


def test_filters_narrow_engagement(wh: Warehouse) -> None:
    eng = wh.engagement_over_time("week", channel="Engineering", **WINDOW)
    assert list(eng["opens"]) == [70 + 20, 70 + 120 + 120, 70 + 30]
    urgent = wh.engagement_over_time("week", priority="urgent", **WINDOW)
    assert list(urgent["opens"]) == [600, 100 + 120, 0]
    tagged = wh.engagement_over_time("week", tag=["finance", "incident"], **WINDOW)
    assert list(tagged["opens"]) == [0, 50 + 120, 300]
    bob = wh.engagement_over_time("week", author="bob@example.com", **WINDOW)
    assert list(bob["opens"]) == [600 + 60 + 2, 100 + 50, 300]


def test_kpis_compare_with_previous_week(wh: Warehouse) -> None:
    df = wh.kpis(**W13).set_index("metric")
    assert list(df.index) == [
        "posts_published",
        "readers",
        "read_rate",
        "opens",
        "engagements",
        "engagement_rate",
        "net_subscribers",
    ]
    assert df.loc["opens", "value"] == 460
    assert df.loc["opens", "previous"] == 752
    assert df.loc["opens", "delta"] == 460 - 752
    assert df.loc["opens", "delta_pct"] == pytest.approx((460 - 752) / 752)
    assert df.loc["engagements", ["value", "previous"]].tolist() == [83, 84]
    assert df.loc["engagement_rate", "value"] == pytest.approx(83 / 460)
    assert df.loc["engagement_rate", "previous"] == pytest.approx(84 / 752)
    assert df.loc["posts_published", ["value", "previous"]].tolist() == [2, 3]
    # Berlin W13: post_02 (audience: Engineering on 03-22 = 172) and post_07 (03-25: 178);
    # W12: post_01 (160), post_03 and post_06 (Company News, 1000 each). W13 ended 7 days
    # before the last synced day (04-05), so W12 is counted as it stood on 03-29, 7 days
    # after its end: post_01 had 14 days x 10 unique viewers = 140 of its 150 readers.
    assert df.attrs["comparison"] == "compared at the same age"
    assert df.attrs["same_age_day"] == date(2026, 3, 29)
    assert df.loc["readers", ["value", "previous"]].tolist() == [100 + 90, 140 + 500 + 50]
    assert df.loc["read_rate", "value"] == 190 / (172 + 178)
    assert df.loc["read_rate", "previous"] == 690 / (160 + 1000 + 1000)
    assert df.loc["net_subscribers", ["value", "previous"]].tolist() == [
        7 * (3 - 1) + 7 * (1 - 4),
        7 * (3 - 1) + 7 * (5 - 2),
    ]
    # Counts below 20 and rates over an audience below 100 are small bases.
    assert df["small_base"].tolist() == [True, False, False, False, False, False, False]
    attrs = wh.kpis(**W13).attrs
    assert attrs["previous_period"] == "2026-03-16 to 2026-03-22 (Europe/Berlin)"
    assert attrs["period"] == "2026-03-23 to 2026-03-29 (Europe/Berlin)"
    assert attrs["complete"] is True and attrs["warnings"] == []


def test_kpis_refuse_all_time(wh: Warehouse) -> None:
    with pytest.raises(InvalidParameterError, match="'all time' has no period before it"):
        wh.kpis(period="all time")


def test_kpis_in_utc_count_publications_by_utc_instant(wh: Warehouse) -> None:
    df = wh.kpis(start="2026-03-23", end="2026-03-30").set_index("metric")
    assert df.loc["posts_published", ["value", "previous"]].tolist() == [2, 4]


def test_kpis_default_period_is_the_last_28_days_of_data(wh: Warehouse) -> None:
    default = wh.kpis(tz=BERLIN)
    assert default.attrs["start"] == datetime(2026, 3, 9, tzinfo=default.attrs["start"].tzinfo)
    assert default.attrs["period"] == "28 days to 5 April 2026"
    assert default.attrs["default_period"] == "last 28 days"
    # Every daily row of the fixture (weeks of 752, 460 and 400 opens); nothing before.
    assert default.set_index("metric").loc["opens", "value"] == 752 + 460 + 400
    assert default.attrs["missing"] == "no synced data for 28 days to 8 March 2026"
    df = wh.kpis(period="7d", tz=BERLIN)
    assert df.attrs["start"] == datetime(2026, 3, 30, tzinfo=df.attrs["start"].tzinfo)
    assert df.attrs["default_period"] is None
    rows = df.set_index("metric")
    assert rows.loc["opens", ["value", "previous"]].tolist() == [400, 460]
    # Net subscribers: -7 after -7; no percentage of a negative base.
    assert rows.loc["net_subscribers", ["value", "previous", "delta"]].tolist() == [-7, -7, 0]
    assert pd.isna(rows.loc["net_subscribers", "delta_pct"])
    from_start = wh.kpis(start="2026-03-23", tz=BERLIN)
    assert from_start.attrs["period_label"] == "2026-03-23 to 2026-03-29 (Europe/Berlin)"
    until_end = wh.kpis(end="2026-03-30", tz=BERLIN)
    assert until_end.set_index("metric").loc["opens", "value"] == 460


def test_kpis_with_post_filters_have_no_subscriber_change(wh: Warehouse) -> None:
    df = wh.kpis(tag="eng", **W13).set_index("metric")
    assert pd.isna(df.loc["net_subscribers", "value"])
    assert df.loc["opens", "value"] == 70 + 120 + 120
    quiet = wh.kpis(start="2026-04-05", end="2026-04-06", channel="old-stuff").set_index("metric")
    assert pd.isna(quiet.loc["engagement_rate", "value"])
    assert pd.isna(quiet.loc["opens", "delta_pct"])


def test_top_posts_by_readers_opens_and_rate(wh: Warehouse) -> None:
    by_readers = wh.top_posts(**W13)  # posts published in the week, by lifetime readers
    assert list(by_readers["post_id"]) == ["post_02", "post_07"]
    assert list(by_readers["readers"]) == [100, 90]
    assert list(by_readers["read_rate"]) == [100 / 172, 90 / 178]
    by_opens = wh.top_posts("opens", **W13)
    assert list(by_opens["post_id"]) == ["post_02", "post_07", "post_03", "post_01", "post_04"]
    assert list(by_opens["opens"]) == [120, 120, 100, 70, 50]
    assert list(by_opens["rank"]) == [1, 2, 3, 4, 5]
    assert by_opens["title"].iloc[0] == XSS_TITLE
    assert list(by_opens["tags"].iloc[0]) == [XSS_TAG, "eng"]
    by_rate = wh.top_posts("engagement_rate", **W13)  # default min_opens 100
    assert list(by_rate["post_id"]) == ["post_07", "post_02", "post_03"]
    assert list(by_rate["engagement_rate"]) == pytest.approx([30 / 120, 24 / 120, 10 / 100])
    low = wh.top_posts("engagement_rate", n=2, min_opens=50, **W13)
    assert list(low["post_id"]) == ["post_07", "post_01"]  # 0.25, then 14/70 = 0.2 < 02's id


def test_channel_comparison_by_read_rate(wh: Warehouse) -> None:
    df = wh.channel_comparison(**W13)
    assert list(df["channel_id"]) == ["chan_eng", "chan_news", "chan_old"]
    rows = _by(df, "channel_id")
    assert rows["chan_eng"]["opens"] == 70 + 120 + 120
    assert rows["chan_eng"]["readers"] == 190
    assert rows["chan_eng"]["audience"] == 172 + 178
    assert rows["chan_eng"]["read_rate"] == 190 / 350
    assert rows["chan_eng"]["posts_published"] == 2
    assert rows["chan_eng"]["subscribers"] == 160 + 2 * 13  # on 03-29, the last day
    assert pd.isna(rows["chan_news"]["read_rate"])  # nothing published that week
    assert rows["chan_news"]["subscribers"] == 1000
    assert rows["chan_old"]["opens"] == 0 and pd.isna(rows["chan_old"]["subscribers"])
    assert "chan_gone" not in rows


# Read rates of the window's posts: 01 150/160, 02 100/172, 05 20/190, 07 90/178, 09 0/194
# (Engineering, median 90/178); 03 500/1000, 04 300/1000, 06 50/1000 (Company News, median
# 0.3). post_08 (Old Stuff) was published before the window.
ENG_MEDIAN = 90 / 178


def test_tag_performance_lift_and_read_rate(wh: Warehouse) -> None:
    rows = _by(wh.tag_performance(**WINDOW), "tag")
    assert set(rows) == {"eng", "company", "finance", "release", "incident", XSS_TAG}
    eng = rows["eng"]  # posts 01, 02, 05, 07, 09 with 210, 140, 30, 120, 0 opens
    assert eng["posts"] == 5
    assert eng["opens"] == 210 + 140 + 30 + 120
    assert eng["median_opens"] == 120
    assert eng["readers"] == 150 + 100 + 20 + 90 + 0
    assert eng["read_rate"] == 360 / (160 + 172 + 190 + 178 + 194)
    assert eng["lift"] == pytest.approx(1.0)  # the channel's own median post
    assert eng["engagement_rate"] == pytest.approx((42 + 28 + 30) / 500)
    assert rows["company"]["posts"] == 2  # the deleted post_10 does not count
    assert rows["company"]["lift"] == pytest.approx((0.5 / 0.3 + 1.0) / 2)
    assert rows["release"]["lift"] == pytest.approx((150 / 160) / ENG_MEDIAN)
    assert all(row["small_sample"] for row in rows.values())
    only = wh.tag_performance(tag="finance", **WINDOW)
    assert list(only["tag"]) == ["finance"]
    # The baseline stays the whole channel's median when a filter narrows the posts.
    assert only["lift"].iloc[0] == pytest.approx(1.0)


def test_priority_impact_lists_every_priority(wh: Warehouse) -> None:
    df = wh.priority_impact(small_sample_n=3, **WINDOW)
    assert list(df["priority"]) == ["normal", "high", "urgent"]
    rows = _by(df, "priority")
    assert rows["normal"]["posts"] == 4  # 01, 05, 06, 09
    assert rows["normal"]["median_opens"] == (30 + 60) / 2
    normal = sorted([(150 / 160) / ENG_MEDIAN, (20 / 190) / ENG_MEDIAN, (50 / 1000) / 0.3, 0])
    assert rows["normal"]["lift"] == pytest.approx((normal[1] + normal[2]) / 2)
    assert not rows["normal"]["small_sample"]
    assert rows["urgent"]["lift"] == pytest.approx((1.0 + 0.5 / 0.3) / 2)
    assert rows["high"]["small_sample"]
    by_channel = wh.priority_impact(by="channel", **WINDOW)
    assert set(by_channel["channel"]) == {"Engineering", "Company News"}
    assert len(by_channel) == 2 * 3
    empty = wh.priority_impact(start="2026-04-03", end="2026-04-05")
    assert list(empty["posts"]) == [0, 0, 0]
    assert empty["small_sample"].all()


def test_publishing_heatmap_uses_local_time(wh: Warehouse) -> None:
    df = wh.publishing_heatmap(**WINDOW)
    assert len(df) == 7 * 24
    busy = df[df["posts_published"] > 0]
    slots = {(r.weekday_name, r.hour): (r.posts_published, r.readers) for r in busy.itertuples()}
    assert slots == {
        ("Mon", 0): (2, 100 + 300),  # post_02 (CET) and post_04 (CEST)
        ("Mon", 9): (1, 150),
        ("Tue", 10): (1, 500),
        ("Wed", 0): (1, 20),
        ("Wed", 15): (1, 90),
        ("Thu", 8): (1, 0),
        ("Fri", 13): (1, 50),
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
    assert df["readers"].dtype == "Int64"
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
        wh.kpis(channel=c, **W13).set_index("metric").loc["opens", "value"]
        for c in ("chan_news", "company-news", "company news", "  COMPANY-NEWS ")
    ]
    assert ids == [150, 150, 150, 150]


def test_not_whole_day_period_counts_days_starting_inside(tmp_path: Path) -> None:
    wh = Warehouse(build_small_warehouse(tmp_path / "w.duckdb"))
    # 03-23 12:00 .. 03-25 12:00: only the daily rows of 03-24 and 03-25 begin inside.
    df = wh.kpis(start="2026-03-23T12:00", end="2026-03-25T12:00").set_index("metric")
    assert df.loc["opens", "value"] == 2 * (10 + 20) + 40
    assert df.loc["posts_published", "value"] == 0


def test_same_numbers_without_any_deleted_post(tmp_path: Path) -> None:
    path = build_small_warehouse(tmp_path / "w.duckdb")
    con = open_warehouse(path, read_only=False)
    con.execute("DELETE FROM post_daily WHERE post_id = 'post_10'")
    con.execute("DELETE FROM post_tags WHERE post_id = 'post_10'")
    con.execute("DELETE FROM posts WHERE id = 'post_10'")
    refresh_derived(con)  # as the writer keeps it
    con.close()
    wh = Warehouse(path)
    assert list(wh.engagement_over_time("week", **WINDOW)["opens"]) == [752, 460, 400]
    assert _by(wh.tag_performance(**WINDOW), "tag")["company"]["posts"] == 2


def test_posts_without_audience_warn_the_same_in_every_metric(tmp_path: Path) -> None:
    # Without Company News' channel analytics, posts 03, 04 and 06 have no audience.
    path = build_small_warehouse(tmp_path / "w.duckdb")
    con = open_warehouse(path, read_only=False)
    con.execute("DELETE FROM channel_daily WHERE channel_id = 'chan_news'")
    con.close()
    wh = Warehouse(path)

    def missing(frame: pd.DataFrame) -> list[str]:
        return [w for w in frame.attrs["warnings"] if "no channel analytics row" in w]

    window: dict[str, Any] = dict(WINDOW)
    assert missing(wh.tag_performance(**window))[0].startswith("3 posts have no channel")
    friday: dict[str, Any] = {"start": "2026-03-20", "end": "2026-03-21", "tz": BERLIN}
    cases = [window, {"tag": "finance", **window}, {"priority": "urgent", **window}, friday]
    for args in cases:  # friday: only post_06
        expected = missing(wh.kpis(**args))
        assert expected, args
        for by in (None, "channel"):
            assert missing(wh.tag_performance(by=by, **args)) == expected, (args, by)
            assert missing(wh.priority_impact(by=by, **args)) == expected, (args, by)
    # post_06 has no tag: no row to carry the count, which is then counted on its own.
    untagged = wh.tag_performance(**friday)
    assert untagged.empty
    assert missing(untagged)[0].startswith("1 post has no channel analytics row")


def test_tags_count_once_per_post_and_never_as_missing(tmp_path: Path) -> None:
    path = build_small_warehouse(tmp_path / "w.duckdb")
    con = open_warehouse(path, read_only=False)
    con.execute("UPDATE posts SET tags = ['eng', 'eng', NULL] WHERE id = 'post_05'")
    con.execute("UPDATE posts SET tags = [NULL]::VARCHAR[] WHERE id = 'post_06'")
    con.close()
    rows = _by(
        Warehouse(path).tag_performance(start="2026-03-16", end="2026-04-06", tz=BERLIN), "tag"
    )
    assert set(rows) == {"eng", "company", "finance", "release", "incident", XSS_TAG}
    assert rows["eng"]["posts"] == 5
    assert rows["eng"]["opens"] == 210 + 140 + 30 + 120
