"""Metrics on a warehouse synced from the real local service equal the API's own numbers.

The expected values are computed here from the client's walk of `/posts` and
`/analytics/posts`, independently of the warehouse and its SQL.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

import channelkit as ck
from channelkit.service import LocalService


@pytest.fixture
def synced(service: LocalService, admin_key: str, tmp_path: Path) -> dict[str, Any]:
    with ck.Client(base_url=service.base_url, api_key=admin_key) as client:
        alpha = client.channels.create(name="Alpha")
        beta = client.channels.create(name="Beta", visibility="team")
        for i in range(8):
            client.posts.create(
                channel_id=(alpha if i % 2 else beta).id,
                title=f"Post {i}",
                body="Hello",
                tags=["launch"] if i < 3 else ["weekly", "team"],
                priority="urgent" if i in (0, 5) else "normal",
            )
            service.advance_clock(5 * 3600)
        wh = ck.sync(client, tmp_path / "w.duckdb", progress=False)
        posts = {p["id"]: p for page in client.raw_pages("/posts") for p in page.data}
        rows = [
            row
            for page in client.raw_pages(
                "/analytics/posts", {"start": "2000-01-01", "end": "2100-01-01"}
            )
            for row in page.data
        ]
    assert wh.sync_report is not None and wh.sync_report.completed
    assert rows, "the service produced no analytics to compare"
    return {"wh": wh, "posts": posts, "rows": rows, "alpha": alpha.id}


def _engagements(row: dict[str, Any]) -> int:
    return int(row["reactions"] + row["comments"] + row["shares"] + row["clicks"])


def test_daily_engagement_matches_the_analytics_api(synced: dict[str, Any]) -> None:
    rows, wh = synced["rows"], synced["wh"]
    views, engagements = Counter[str](), Counter[str]()
    for row in rows:
        views[row["date"]] += row["views"]
        engagements[row["date"]] += _engagements(row)
    first, last = min(views), max(views)
    end = date.fromisoformat(last) + timedelta(days=1)
    df = wh.engagement_over_time("day", start=first, end=end)
    got = {
        ts.date().isoformat(): (v, e)
        for ts, v, e in df[["period", "views", "engagements"]].itertuples(index=False)
    }
    assert got == {d: (views[d], engagements[d]) for d in got}
    assert set(got) >= set(views)


def test_filters_match_the_posts_api(synced: dict[str, Any]) -> None:
    rows, posts, wh = synced["rows"], synced["posts"], synced["wh"]
    start = min(row["date"] for row in rows)
    end = date.fromisoformat(max(row["date"] for row in rows)) + timedelta(days=1)
    period = {"start": start, "end": end}
    # Posts published on a day whose analytics are not final yet fall after `end`; which
    # ones depends on the time of day the test runs, so the expectation is computed.
    in_period = [p for p in posts.values() if start <= p["published_at"][:10] < end.isoformat()]

    alpha_views = sum(
        r["views"] for r in rows if posts[r["post_id"]]["channel_id"] == synced["alpha"]
    )
    kpis = wh.kpis(channel="Alpha", **period).set_index("metric")
    assert kpis.loc["views", "value"] == alpha_views

    urgent_views = sum(r["views"] for r in rows if posts[r["post_id"]]["priority"] == "urgent")
    urgent = wh.priority_impact(**period).set_index("priority")
    assert urgent.loc["urgent", "views"] == urgent_views
    assert urgent.loc["urgent", "posts"] == sum(p["priority"] == "urgent" for p in in_period)

    per_post = Counter[str]()
    for row in rows:
        per_post[row["post_id"]] += row["views"]
    expected = sorted(per_post, key=lambda pid: (-per_post[pid], pid))[:5]
    assert list(wh.top_posts(n=5, **period)["post_id"]) == expected

    tags = wh.tag_performance(**period).set_index("tag")
    tag_posts = Counter(tag for p in in_period for tag in p["tags"])
    assert tag_posts["launch"] >= 1 and tag_posts["weekly"] >= 1
    assert tags.loc["launch", "posts"] == tag_posts["launch"]
    assert tags.loc["weekly", "posts"] == tag_posts["weekly"]
    assert len(wh.posts()) == len(posts)
