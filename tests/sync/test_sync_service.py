"""The sync against the real local service over HTTP, into real DuckDB files.

The workspace is small and hand-made (three channels, ~120 posts spread over 30 days of
service time, a few scheduled/draft/archived posts) and walked with small pages, so every
behaviour crosses several pages and batches while the tests stay fast.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from channelkit._facade import sync
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.sync import SyncError, run_sync

DAY = 86_400.0
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
POST_FIELDS = (
    "channel_id",
    "title",
    "body",
    "priority",
    "status",
    "cover_image_url",
    "views",
)
POST_TIMES = ("published_at", "scheduled_at", "created_at", "updated_at")


@dataclass
class Workspace:
    service: LocalService
    key: str
    channels: list[str]
    posts: list[str]  # in creation order: oldest first

    def client(self, key: str | None = None) -> Client:
        return Client(base_url=self.service.base_url, api_key=key or self.key)


def build_workspace(service: LocalService, *, batches: int = 10, per_batch: int = 12) -> Workspace:
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=service.base_url, api_key=key) as client:
        channels = [
            client.channels.create(name="Company news").id,
            client.channels.create(name="Comms team", visibility="team").id,
            client.channels.create(name="Leads", visibility="private").id,
        ]
        posts: list[str] = []
        priorities = ("normal", "high", "urgent")
        for batch in range(batches):
            for i in range(per_batch):
                n = batch * per_batch + i
                post = client.posts.create(
                    channel_id=channels[n % 3],
                    title=f"Post {n}",
                    body=f"Body of **post {n}**",
                    priority=priorities[n % 3],
                    tags=[f"tag{n % 4}", "all"] if n % 5 else [],
                    cover_image_url=f"https://img.example.com/{n}.png" if n % 7 == 0 else None,
                )
                posts.append(post.id)
            service.advance_clock(3 * DAY)
        # Not yet published: a draft and two scheduled posts; one archived post.
        later = service.now() + timedelta(days=5)
        scheduled = [
            client.posts.create(
                channel_id=channels[0], title=f"Soon {i}", body="soon", scheduled_at=later
            ).id
            for i in range(3)
        ]
        client.posts.update(scheduled[0], status="draft")
        client.posts.update(posts[5], status="archived")
        posts.extend(scheduled)
    return Workspace(service, key, channels, posts)


@pytest.fixture
def workspace(service_factory: Callable[..., LocalService]) -> Workspace:
    # A one-second rate window: the client paces to the window, so a long one slows setup.
    return build_workspace(service_factory(rate_window=1.0))


@pytest.fixture
def client(workspace: Workspace) -> Iterator[Client]:
    with workspace.client() as client:
        yield client


# --- comparing the warehouse with the service ---------------------------------------------


def _us(value: str | None) -> int | None:
    if value is None:
        return None
    return (datetime.fromisoformat(value) - EPOCH) // timedelta(microseconds=1)


def service_posts(client: Client) -> dict[str, tuple[Any, ...]]:
    """Every post as the service lists it, walked independently of the sync."""
    posts: dict[str, tuple[Any, ...]] = {}
    for page in client.raw_pages("/posts", limit=100):
        for item in page.data:
            author = item.get("author") or {}
            posts[item["id"]] = (
                *(item.get(f) for f in POST_FIELDS),
                tuple(sorted(set(item.get("tags") or []))),
                author.get("id"),
                author.get("name"),
                author.get("email"),
                *(_us(item.get(t)) for t in POST_TIMES),
            )
    return posts


def warehouse_posts(path: Path) -> dict[str, tuple[Any, ...]]:
    con = open_warehouse(path, read_only=True)
    try:
        rows = con.execute(
            f"SELECT id, {', '.join(POST_FIELDS)}, "
            "(SELECT list_sort(list(tag)) FROM post_tags t WHERE t.post_id = p.id), "
            "author_id, author_name, author_email, "
            f"{', '.join(f'epoch_us({t})' for t in POST_TIMES)} "
            "FROM posts p WHERE deleted_at IS NULL"
        ).fetchall()
    finally:
        con.close()
    return {r[0]: (*r[1:8], tuple(r[8] or ()), *r[9:]) for r in rows}


def service_channels(client: Client) -> dict[str, tuple[Any, ...]]:
    return {
        item["id"]: (
            item["name"],
            item["slug"],
            item["visibility"],
            item["post_count"],
            item["is_archived"],
            _us(item["updated_at"]),
        )
        for page in client.raw_pages("/channels", limit=100)
        for item in page.data
    }


def warehouse_channels(path: Path) -> dict[str, tuple[Any, ...]]:
    con = open_warehouse(path, read_only=True)
    try:
        rows = con.execute(
            "SELECT id, name, slug, visibility, post_count, is_archived, epoch_us(updated_at) "
            "FROM channels WHERE deleted_at IS NULL"
        ).fetchall()
    finally:
        con.close()
    return {r[0]: tuple(r[1:]) for r in rows}


ANALYTICS = {
    "post_daily": ("/analytics/posts", ("post_id", "date")),
    "channel_daily": ("/analytics/channels", ("channel_id", "date")),
}


def service_daily(client: Client, table: str) -> list[tuple[Any, ...]]:
    """Every daily row the service has, from long before the workspace to long after."""
    path, key = ANALYTICS[table]
    rows = []
    for page in client.raw_pages(path, {"start": "2000-01-01", "end": "2100-01-01"}, limit=100):
        for item in page.data:
            values = [v for k, v in sorted(item.items()) if k not in key]
            rows.append((*(item[k] for k in key), *values))
    return sorted(rows)


def warehouse_daily(path: Path, table: str) -> list[tuple[Any, ...]]:
    key = ANALYTICS[table][1]
    con = open_warehouse(path, read_only=True)
    try:
        columns = [c for c in con.table(table).columns if c not in key and c != "synced_at"]
        rows = con.execute(
            f"SELECT {key[0]}, strftime(date, '%Y-%m-%d'), {', '.join(sorted(columns))} "
            f"FROM {table}"
        ).fetchall()
    finally:
        con.close()
    return sorted(rows)


def table_snapshot(path: Path, table: str) -> list[tuple[Any, ...]]:
    """Every column but the bookkeeping ones, sorted: equal tables, equal snapshots."""
    con = open_warehouse(path, read_only=True)
    try:
        columns = [c for c in con.table(table).columns if c != "synced_at"]
        query = f"SELECT {', '.join(columns)} FROM {table} ORDER BY ALL"
        rows: list[dict[str, Any]] = con.sql(query).to_arrow_table().to_pylist()
        return [tuple(row.values()) for row in rows]
    finally:
        con.close()


# --- tests --------------------------------------------------------------------------------


def test_full_sync_equals_the_service(workspace: Workspace, client: Client, tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    report = run_sync(client, path, page_limit=10, batch_rows=25, only="posts,channels")
    assert report.completed, report.summary()
    expected = service_posts(client)
    assert len(expected) == len(workspace.posts)
    assert warehouse_posts(path) == expected
    assert warehouse_channels(path) == service_channels(client)
    assert report.counts["posts"].new == len(workspace.posts)
    assert report.counts["channels"].new == 3
    statuses = dict(
        duckdb.connect(str(path), read_only=True)
        .execute("SELECT status, count(*) FROM posts GROUP BY ALL")
        .fetchall()
    )
    assert statuses == {"published": 119, "archived": 1, "scheduled": 2, "draft": 1}


def test_full_sync_with_analytics_equals_the_service(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    report = run_sync(client, path, page_limit=100, batch_rows=500)
    assert report.completed, report.summary()
    for table in ANALYTICS:
        expected = service_daily(client, table)
        assert len(expected) > 60, table  # 3 channels x 30 days at least
        assert warehouse_daily(path, table) == expected, table
        assert report.counts[table].new == len(expected)


@pytest.mark.calendar
def test_incremental_analytics_rereads_only_days_not_final(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    full = run_sync(client, path, page_limit=20, lookback_days=2)
    workspace.service.advance_clock(DAY)
    incremental = run_sync(client, path, page_limit=20, lookback_days=2)
    assert incremental.completed, incremental.summary()
    assert incremental.requests < full.requests / 3, (full.summary(), incremental.summary())
    con = open_warehouse(path, read_only=True)
    newest = con.execute("SELECT max(date) FROM post_daily").fetchall()[0][0]
    con.close()
    for table in ANALYTICS:
        # Days older than the lookback were final at the first run: those rows must match.
        live = {r[:2]: r for r in service_daily(client, table)}
        stored = {r[:2]: r for r in warehouse_daily(path, table)}
        assert stored.keys() == live.keys(), table
        assert stored == live, table
    assert newest is not None


def test_second_run_changes_nothing(workspace: Workspace, client: Client, tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    run_sync(client, path, page_limit=20, only="posts,channels")
    before = table_snapshot(path, "posts")
    report = run_sync(client, path, page_limit=20, only="posts,channels", full=True)
    assert report.completed
    assert report.counts["posts"].as_dict() == {
        "new": 0,
        "updated": 0,
        "unchanged": len(workspace.posts),
        "deleted": 0,
    }
    assert table_snapshot(path, "posts") == before


def test_incremental_reads_few_pages_and_its_history_slice(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    first = run_sync(client, path, page_limit=10, only="posts,channels")
    assert first.requests >= 14  # 123 posts in pages of 10, channels
    new = [
        client.posts.create(channel_id=workspace.channels[0], title=f"New {i}", body="b").id
        for i in range(3)
    ]
    recent, old = workspace.posts[-4], workspace.posts[0]
    client.posts.update(recent, title="Recent, edited")
    client.posts.update(old, title="Old, edited")
    client.posts.update(
        workspace.posts[-1], scheduled_at=workspace.service.now() + timedelta(days=9)
    )

    incremental = run_sync(client, path, page_limit=10, only="posts,channels")
    assert incremental.completed, incremental.summary()
    # 27 posts from the 3-day lookback (3 pages), 1 channels page, 2 scheduled + 1 draft,
    # and the key's view (1 listing of its channels, sync.view); besides, the first slice of
    # older history (the oldest seventh of the posts).
    assert incremental.requests - incremental.history_requests <= 8, incremental.summary()
    assert 0 < incremental.history_requests <= 3, incremental.summary()
    assert incremental.counts["posts"].new == 3
    stored = warehouse_posts(path)
    live = service_posts(client)
    for post_id in [*new, recent, workspace.posts[-1], workspace.posts[-2]]:
        assert stored[post_id] == live[post_id]
    assert stored[old][1] == "Old, edited"  # the oldest: in this run's history slice
    assert stored[workspace.posts[60]][1] == "Post 60"  # a later slice's: not yet

    full = run_sync(client, path, page_limit=10, only="posts,channels", full=True)
    assert full.completed
    assert warehouse_posts(path) == service_posts(client)


def test_scheduled_post_that_gets_published_is_picked_up(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    run_sync(client, path, page_limit=50, only="posts")
    workspace.service.advance_clock(6 * DAY)  # the two scheduled posts publish themselves
    report = run_sync(client, path, page_limit=50, only="posts")
    assert report.completed
    stored, live = warehouse_posts(path), service_posts(client)
    assert stored.keys() == live.keys()
    for post_id in workspace.posts[-3:]:  # the draft and the two formerly scheduled posts
        assert stored[post_id] == live[post_id]
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM posts WHERE status = 'scheduled'").fetchall() == [(0,)]


def test_full_sync_marks_deleted_posts_and_channels(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    run_sync(client, path, page_limit=20, only="posts,channels")
    empty = client.channels.create(name="Short-lived").id
    run_sync(client, path, page_limit=20, only="posts,channels")
    client.posts.delete(workspace.posts[10])
    client.channels.delete(empty)

    incremental = run_sync(client, path, page_limit=20, only="posts,channels")
    assert incremental.counts["channels"].deleted == 1  # channels are walked whole each run
    full = run_sync(client, path, page_limit=20, only="posts,channels", full=True)
    assert full.counts["posts"].deleted == 1
    con = duckdb.connect(str(path), read_only=True)
    deleted = con.execute(
        "SELECT id FROM posts WHERE deleted_at IS NOT NULL UNION ALL "
        "SELECT id FROM channels WHERE deleted_at IS NOT NULL ORDER BY 1"
    ).fetchall()
    assert sorted(d[0] for d in deleted) == sorted([workspace.posts[10], empty])


def test_key_without_analytics_scope_syncs_the_rest(workspace: Workspace, tmp_path: Path) -> None:
    key = workspace.service.create_key(
        user="admin", team="comms", scopes=("posts:read", "channels:read"), plan="enterprise"
    )
    with workspace.client(key) as client:
        report = run_sync(client, tmp_path / "wh.duckdb", page_limit=50)
    assert report.completed, report.summary()
    assert set(report.skipped) == {"post_daily", "channel_daily"}
    assert "analytics:read" in report.skipped["post_daily"]
    assert report.counts["posts"].new == len(workspace.posts)
    assert "skipped post_daily: the API key lacks the analytics:read scope" in report.summary()


def test_sync_returns_a_warehouse_or_raises_with_the_report(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    wh = sync(client, path, only="posts,channels", progress=False)
    assert wh.sync_report is not None and wh.sync_report.completed
    assert len(wh.posts()) == len(workspace.posts)
    key = workspace.service.create_key(user="reader", scopes=("channels:read",))
    with workspace.client(key) as limited, pytest.raises(SyncError) as info:
        sync(limited, tmp_path / "other.duckdb", only="posts")
    assert "every requested resource was skipped" in str(info.value)
    assert info.value.report.skipped["posts"].startswith("the API key lacks the posts:read")


def test_sync_through_faults_equals_a_clean_one(
    service_factory: Callable[..., LocalService], tmp_path: Path
) -> None:
    # Two services on one SQLite file: the same workspace, one of them failing ~10% of
    # requests (errors, dropped connections, truncated bodies, slow answers).
    db = str(tmp_path / "service.sqlite")
    workspace = build_workspace(service_factory(db=db, rate_window=1.0), batches=5)
    faults = "500=0.03,503=0.02,drop=0.02,truncate=0.02,slow=0.01"
    faulty = service_factory(db=db, rate_window=1.0, faults=faults, fault_seed=11)
    with Client(base_url=faulty.base_url, api_key=workspace.key, max_retries=8) as client:
        report = run_sync(client, tmp_path / "faulty.duckdb", page_limit=10, batch_rows=20)
    assert report.completed, report.summary()
    assert report.retries > 0  # the faults did happen
    with workspace.client() as client:
        assert run_sync(client, tmp_path / "clean.duckdb", page_limit=100).completed
    for table in ("channels", "posts", "post_tags", "post_daily", "channel_daily"):
        faulty_rows = table_snapshot(tmp_path / "faulty.duckdb", table)
        assert faulty_rows == table_snapshot(tmp_path / "clean.duckdb", table), table


def test_since_limits_posts_and_analytics(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    since = workspace.service.now() - timedelta(days=10)
    report = run_sync(client, path, since=since.date().isoformat(), page_limit=50)
    assert report.completed, report.summary()
    cutoff = datetime.combine(since.date(), datetime.min.time(), UTC)
    published = len(POST_FIELDS) + 4  # after the fields, tags and the three author ones
    after = _us(cutoff.isoformat())
    expected = {
        post_id
        for post_id, row in service_posts(client).items()
        if row[published] is not None and row[published] > after
    }
    assert set(warehouse_posts(path)) == expected
    assert 0 < len(expected) < 60
    con = duckdb.connect(str(path), read_only=True)
    first_day = con.execute("SELECT min(date) FROM post_daily").fetchall()[0][0]
    assert first_day is not None and first_day >= since.date()


def test_posts_created_during_a_walk_are_picked_up_then_or_next_run(
    workspace: Workspace, client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    run_sync(client, path, page_limit=50, only="posts")
    created: list[str] = []

    def create_while_walking() -> None:
        with workspace.client() as writer:
            for i in range(15):
                post = writer.posts.create(
                    channel_id=workspace.channels[i % 3], title=f"During {i}", body="b"
                )
                created.append(post.id)
                time.sleep(0.02)  # spread over the walk

    # A long walk (pages of 2) while posts arrive, then a run without lookback: only the
    # high-water mark (newest post seen minus the walk's duration) keeps none from being lost.
    thread = threading.Thread(target=create_while_walking)
    thread.start()
    during = run_sync(client, path, page_limit=2, batch_rows=4, only="posts", full=True)
    thread.join()
    after = run_sync(client, path, page_limit=2, only="posts", lookback_days=0)
    assert during.completed and after.completed
    assert len(created) == 15
    assert during.counts["posts"].new + after.counts["posts"].new == 15, (during, after)
    assert set(warehouse_posts(path)) == set(service_posts(client))
