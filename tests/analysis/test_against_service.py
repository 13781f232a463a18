"""Metrics on a warehouse synced from the seeded local service equal the API's own numbers.

The expected values are recomputed here from the raw responses of `/posts`,
`/analytics/posts` and `/analytics/channels` (real HTTP), following the definitions of
docs/metrics.md, independently of the warehouse and its SQL; they must match exactly, in
UTC and in a zone far from it.
"""

from __future__ import annotations

import bisect
import statistics
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import channelkit as ck
from channelkit.service import LocalService

pytestmark = pytest.mark.calendar

ZONES = ["UTC", "Asia/Tokyo"]
REACH_DAYS = 14


@pytest.fixture(scope="module")
def raw(demo_service: LocalService, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    key = demo_service.demo_keys["admin"]
    path = tmp_path_factory.mktemp("against") / "w.duckdb"
    with ck.Client(base_url=demo_service.base_url, api_key=key) as client:
        wh = ck.sync(client, path, progress=False)
        posts = [p for page in client.raw_pages("/posts") for p in page.data]
        window = {"start": "2000-01-01", "end": "2100-01-01", "limit": 100}
        post_rows = [r for page in client.raw_pages("/analytics/posts", window) for r in page.data]
        channel_rows = [
            r for page in client.raw_pages("/analytics/channels", window) for r in page.data
        ]
    assert post_rows and channel_rows, "the service produced no analytics to compare"
    return {"wh": wh, "posts": posts, "post_rows": post_rows, "channel_rows": channel_rows}


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _published(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in raw["posts"] if p.get("published_at")]


def _audience(raw: dict[str, Any]) -> dict[str, int | None]:
    """Post id -> subscribers of its channel on the UTC date of publication (or before)."""
    by_channel: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for row in raw["channel_rows"]:
        by_channel[row["channel_id"]].append((row["date"], row["subscribers"]))
    for rows in by_channel.values():
        rows.sort()
    out: dict[str, int | None] = {}
    for post in _published(raw):
        day = _instant(post["published_at"]).date().isoformat()  # the UTC date
        rows = by_channel.get(post["channel_id"], [])
        i = bisect.bisect_right([d for d, _ in rows], day)
        out[post["id"]] = rows[i - 1][1] if i else None
    return out


def _month(moment: datetime, tz: str) -> date:
    return moment.astimezone(ZoneInfo(tz)).date().replace(day=1)


@pytest.mark.parametrize("tz", ZONES)
def test_monthly_posts_readers_and_read_rate_match_the_api(raw: dict[str, Any], tz: str) -> None:
    audience = _audience(raw)
    posts, readers = Counter[date](), Counter[date]()
    rated, seen_by = Counter[date](), Counter[date]()
    for post in _published(raw):
        month = _month(_instant(post["published_at"]), tz)
        posts[month] += 1
        readers[month] += post["views"]
        if audience[post["id"]] is not None:
            rated[month] += post["views"]
            seen_by[month] += audience[post["id"]] or 0
    frame = raw["wh"].engagement_over_time("month", period="all time", tz=tz)
    got = {
        ts.date(): row for ts, row in zip(frame["period"], frame.to_dict("records"), strict=True)
    }
    assert set(posts) <= set(got)
    for month, row in got.items():
        assert row["posts_published"] == posts[month], month
        assert row["readers"] == readers[month], month
        expected_rate = rated[month] / seen_by[month] if seen_by[month] else None
        assert (None if row["read_rate"] != row["read_rate"] else row["read_rate"]) == (
            expected_rate
        ), month
    # The same month through kpis(period=...) agrees with the monthly rows.
    month = sorted(posts)[len(posts) // 2]
    kpis = raw["wh"].kpis(period=month.strftime("%Y-%m"), tz=tz).set_index("metric")
    assert kpis.loc["posts_published", "value"] == posts[month]
    assert kpis.loc["readers", "value"] == readers[month]
    assert kpis.loc["read_rate", "value"] == rated[month] / seen_by[month]


@pytest.mark.parametrize("tz", ZONES)
def test_subscribers_gained_per_month_match_the_api(raw: dict[str, Any], tz: str) -> None:
    gained, lost = Counter[date](), Counter[date]()
    last: dict[date, dict[str, tuple[str, int]]] = defaultdict(dict)
    for row in raw["channel_rows"]:
        month = date.fromisoformat(row["date"]).replace(day=1)  # UTC days keep their date
        gained[month] += row["subscribers_gained"]
        lost[month] += row["subscribers_lost"]
        current = last[month].get(row["channel_id"])
        if current is None or current[0] < row["date"]:
            last[month][row["channel_id"]] = (row["date"], row["subscribers"])
    frame = raw["wh"].subscribers("month", period="all time", tz=tz)
    got = {
        ts.date(): row for ts, row in zip(frame["period"], frame.to_dict("records"), strict=True)
    }
    assert set(got) == set(gained)
    for month, row in got.items():
        assert row["gained"] == gained[month]
        assert row["lost"] == lost[month]
        assert row["net"] == gained[month] - lost[month]
        assert row["subscribers"] == sum(n for _, n in last[month].values())
    assert str(frame["period"].dt.tz) == tz


def _reach_by_hand(
    raw: dict[str, Any], last_day: date, lo: datetime | None = None, hi: datetime | None = None
) -> tuple[list[float], int]:
    """share(k) and the cohort's size, post by post and day by day from the API's rows."""
    daily: dict[str, dict[date, int]] = defaultdict(dict)
    for row in raw["post_rows"]:
        daily[row["post_id"]][date.fromisoformat(row["date"])] = row["unique_viewers"]
    reached = [0] * (REACH_DAYS + 1)
    total = 0
    cohort = 0
    for post in _published(raw):
        published = _instant(post["published_at"])
        pub = published.date()
        if pub + timedelta(days=REACH_DAYS) > last_day:
            continue
        if (lo is not None and published < lo) or (hi is not None and published >= hi):
            continue
        cohort += 1
        total += post["views"]
        seen = 0
        for k in range(REACH_DAYS + 1):
            seen += daily[post["id"]].get(pub + timedelta(days=k), 0)
            reached[k] += min(post["views"], seen)
    assert total > 0
    return [r / total for r in reached], cohort


@pytest.mark.parametrize("tz", ZONES)
def test_reach_curve_matches_the_api(raw: dict[str, Any], tz: str) -> None:
    wh = raw["wh"]
    synced_day = wh.freshness().last_sync_at.date()
    last_day = min(
        max(date.fromisoformat(r["date"]) for r in raw["post_rows"]), synced_day - timedelta(days=1)
    )
    share, cohort = _reach_by_hand(raw, last_day)
    frame = wh.reach_curve(REACH_DAYS, period="all time", tz=tz)
    assert cohort > 100
    assert frame.attrs["posts"] == cohort
    assert list(frame["day"]) == list(range(REACH_DAYS + 1))
    assert list(frame["share"]) == share
    assert list(frame["share"]) == sorted(frame["share"])  # never decreases
    assert frame["share"].iloc[-1] <= 1
    # A period whose local midnights are not UTC ones: the cohort and the daily rows read
    # are bounded by UTC dates on both sides.
    first = min(_instant(p["published_at"]) for p in _published(raw)).date()
    lo = datetime.combine(first + timedelta(days=3), datetime.min.time(), ZoneInfo(tz))
    hi = lo + timedelta(days=12)
    share, cohort = _reach_by_hand(raw, last_day, lo, hi)
    frame = wh.reach_curve(REACH_DAYS, start=lo, end=hi, tz=tz)
    assert 0 < frame.attrs["posts"] == cohort
    assert list(frame["share"]) == share


def test_opens_per_day_match_the_analytics_api(raw: dict[str, Any]) -> None:
    opens, engagements, unique = Counter[str](), Counter[str](), Counter[str]()
    for row in raw["post_rows"]:
        opens[row["date"]] += row["views"]
        unique[row["date"]] += row["unique_viewers"]
        engagements[row["date"]] += (
            row["reactions"] + row["comments"] + row["shares"] + row["clicks"]
        )
    first, last = min(opens), max(opens)
    frame = raw["wh"].engagement_over_time(
        "day", start=first, end=date.fromisoformat(last) + timedelta(days=1)
    )
    got = {
        ts.date().isoformat(): (o, u, e)
        for ts, o, u, e in frame[
            ["period", "opens", "daily_unique_viewers", "engagements"]
        ].itertuples(index=False)
    }
    assert got == {d: (opens[d], unique[d], engagements[d]) for d in got}
    assert set(got) >= set(opens)


def test_posts_published_sum_equals_kpis_in_every_zone(raw: dict[str, Any]) -> None:
    # The first-day bug: a start that is not a local midnight dropped that day's posts.
    wh = raw["wh"]
    last = wh.freshness().last_post_day
    for tz in ("UTC", "Asia/Tokyo", "America/Los_Angeles"):
        start = datetime.combine(last - timedelta(days=20), datetime.min.time()) + timedelta(
            hours=13
        )
        end = datetime.combine(last - timedelta(days=6), datetime.min.time()) + timedelta(hours=5)
        rows = wh.engagement_over_time("day", start=start, end=end, tz=tz)
        kpis = wh.kpis(start=start, end=end, tz=tz).set_index("metric")
        assert rows["posts_published"].sum() == kpis.loc["posts_published", "value"] > 0
        assert rows["readers"].sum() == kpis.loc["readers", "value"]


def _readers_at_age(raw: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """Post id -> its (UTC date, unique viewers) rows, in date order."""
    rows: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for row in raw["post_rows"]:
        rows[row["post_id"]].append((row["date"], row["unique_viewers"]))
    return {post: sorted(days) for post, days in rows.items()}


def _week_at_age(
    raw: dict[str, Any], monday: date, through: date | None
) -> tuple[int, float | None]:
    """Readers and read rate of the posts published in the UTC week starting `monday`,
    each post's readers min(views, unique viewers through `through`) (None: lifetime)."""
    audience, daily = _audience(raw), _readers_at_age(raw)
    readers = rated = seen_by = 0
    for post in _published(raw):
        if not monday <= _instant(post["published_at"]).date() < monday + timedelta(days=7):
            continue
        count = post["views"]
        if through is not None:
            seen = sum(u for d, u in daily.get(post["id"], []) if d <= through.isoformat())
            count = min(count, seen)
        readers += count
        if audience[post["id"]] is not None:
            rated += count
            seen_by += audience[post["id"]] or 0
    return readers, (rated / seen_by if seen_by else None)


def test_the_previous_week_and_the_usual_range_are_at_the_same_age(raw: dict[str, Any]) -> None:
    wh = raw["wh"]
    frame = wh.kpis(period="week", tz="UTC")
    kpis = frame.set_index("metric")
    monday = frame.attrs["start"].date()
    # The current week's readers stand at the end of the last day with daily rows.
    last = max(date.fromisoformat(r["date"]) for r in raw["post_rows"])
    age = (last - (monday + timedelta(days=6))).days
    assert 0 <= age < 28 and frame.attrs["comparison"] == "compared at the same age"
    earlier = [monday - timedelta(days=7 * k) for k in range(1, 9)]
    at_age = [_week_at_age(raw, m, m + timedelta(days=6 + age)) for m in earlier]
    assert kpis.loc["readers", "value"] == _week_at_age(raw, monday, None)[0]
    assert kpis.loc["readers", "previous"] == at_age[0][0]
    assert kpis.loc["read_rate", "previous"] == pytest.approx(at_age[0][1], rel=1e-12)
    for metric, values in (
        ("readers", [float(r) for r, _ in at_age]),
        ("read_rate", [float(rate) for _, rate in at_age if rate is not None]),
    ):
        mean, spread = statistics.mean(values), 2 * statistics.stdev(values)
        assert kpis.loc[metric, "usual_low"] == pytest.approx(mean - spread, rel=1e-9)
        assert kpis.loc[metric, "usual_high"] == pytest.approx(mean + spread, rel=1e-9)


def test_a_year_without_synced_data_is_missing_not_zero(raw: dict[str, Any]) -> None:
    frame = raw["wh"].kpis(period="week", compare="year", tz="UTC")
    first = min(r["date"] for r in raw["post_rows"] + raw["channel_rows"])
    assert frame.attrs["previous_end"].date().isoformat() <= first  # a year before: no data
    assert frame.attrs["missing"] == f"no synced data for {frame.attrs['previous_period']}"
    assert frame.attrs["complete"] is True
    assert frame["previous"].isna().all() and frame["delta"].isna().all()
    assert not frame["small_base"].any()
