"""Convergence without --full: after `convergence_runs` incremental runs the warehouse
equals a fresh full sync, table by table; drafts and scheduled posts after one run.

The real local service over HTTP, real DuckDB files. The workspace spans 40 days of
service time (3 posts a day in 3 channels) plus scheduled posts and drafts; the
mutations touch posts far older than the 3-day lookback window.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.sync import run_sync
from channelkit.warehouse import Warehouse

DAY = 86_400.0
DAYS = 40
# Every column but the writer's bookkeeping (synced_at, deleted_at); only live rows.
TABLES = {
    "channels": "SELECT * EXCLUDE (synced_at, deleted_at) FROM channels WHERE deleted_at IS NULL",
    "posts": "SELECT * EXCLUDE (synced_at, deleted_at) FROM posts WHERE deleted_at IS NULL",
    "post_tags": "SELECT t.* FROM post_tags t JOIN posts p ON p.id = t.post_id "
    "WHERE p.deleted_at IS NULL",
    # Daily rows stay when their post is deleted (nothing is dropped); metrics skip them.
    "post_daily": "SELECT d.* EXCLUDE (synced_at) FROM post_daily d "
    "JOIN posts p ON p.id = d.post_id WHERE p.deleted_at IS NULL",
    "channel_daily": "SELECT d.* EXCLUDE (synced_at) FROM channel_daily d "
    "JOIN channels c ON c.id = d.channel_id WHERE c.deleted_at IS NULL",
    # Kept by the writer batch by batch, through re-reads and deletions: the same sums.
    "daily_totals": "SELECT * FROM daily_totals",
}


def snapshot(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = open_warehouse(path, read_only=True)
    try:
        tables = {}
        for table, sql in TABLES.items():
            # epoch/ISO text instead of TIMESTAMPTZ objects (which would need pytz)
            rows = con.execute(f"SELECT COLUMNS(*)::VARCHAR FROM ({sql}) ORDER BY ALL").fetchall()
            tables[table] = [tuple(str(v) for v in row) for row in rows]
        return tables
    finally:
        con.close()


def client_posts(service: LocalService, key: str) -> list[Any]:
    with Client(base_url=service.base_url, api_key=key) as client:
        return list(client.posts.list(limit=100))


def differences(a: Path, b: Path) -> dict[str, int]:
    """Rows per table present in one warehouse and not the other."""
    left, right = snapshot(a), snapshot(b)
    return {t: len(set(left[t]) ^ set(right[t])) for t in TABLES if left[t] != right[t]}


@pytest.fixture
def workspace(service_factory: Callable[..., LocalService]) -> tuple[LocalService, str]:
    service = service_factory(rate_window=1.0)
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=service.base_url, api_key=key) as client:
        channels = [client.channels.create(name=f"Channel {i}").id for i in range(3)]
        for day in range(DAYS):
            for i in range(3):
                client.posts.create(
                    channel_id=channels[i],
                    title=f"Day {day} post {i}",
                    body="Body",
                    tags=[f"tag{(day + i) % 4}"],
                )
            service.advance_clock(DAY)
        later = service.now() + timedelta(days=12)
        for i in range(8):
            client.posts.create(
                channel_id=channels[i % 3], title=f"Soon {i}", body="b", scheduled_at=later
            )
        for i in range(2):
            post = client.posts.create(
                channel_id=channels[0], title=f"Draft {i}", body="b", scheduled_at=later
            )
            client.posts.update(post.id, status="draft")
    return service, key


def test_incremental_runs_converge_to_a_full_sync(
    workspace: tuple[LocalService, str], tmp_path: Path
) -> None:
    service, key = workspace
    path, fresh = tmp_path / "incremental.duckdb", tmp_path / "fresh.duckdb"
    with Client(base_url=service.base_url, api_key=key) as client:
        first = run_sync(client, path, page_limit=10, progress=False)
        assert first.completed and first.mode == "full", first.summary()

        published = sorted(
            (p for p in client.posts.list(limit=100) if p.status == "published"),
            key=lambda p: p.published_at or service.now(),
        )
        old = [p for p in published if p.published_at < service.now() - timedelta(days=10)]
        for post in old[:20]:
            client.posts.update(post.id, title=f"{post.title}, retitled")
        for post in old[20:25]:
            client.posts.delete(post.id)
        for post in old[25:30]:
            client.posts.update(post.id, status="archived")
        scheduled = [p for p in client.posts.list(limit=100) if p.status == "scheduled"]
        moved = {p.id: service.now() + timedelta(days=15, hours=i) for i, p in enumerate(scheduled)}
        for post_id, at in list(moved.items())[:5]:
            client.posts.update(post_id, scheduled_at=at)
        # A colleague schedules posts and keeps a draft: the warehouse has never seen them,
        # and no filter of the spec finds a post without a publication time.
        colleague = service.create_key(user="colleague", team="comms", plan="enterprise")
        with Client(base_url=service.base_url, api_key=colleague) as theirs:
            channel = published[0].channel_id
            at = service.now() + timedelta(days=9)
            planned = [
                theirs.posts.create(
                    channel_id=channel, title=f"Planned {i}", body="b", scheduled_at=at
                )
                for i in range(3)
            ]
            theirs.posts.update(planned[2].id, status="draft")
        # New readers for every post of the last 21 days, most older than the lookback.
        service.advance_clock(2 * DAY)

        runs = []
        for n in range(SYNC_CONVERGENCE_RUNS):
            report = run_sync(client, path, page_limit=10, progress=False)
            assert report.completed and report.mode == "incremental", report.summary()
            runs.append(report)
            if n == 0:
                # Drafts and scheduled posts are current after one run.
                con = open_warehouse(path, read_only=True)
                stored = dict(
                    con.execute(
                        "SELECT id, strftime(timezone('UTC', scheduled_at), '%Y-%m-%dT%H:%M:%S') "
                        "FROM posts "
                        "WHERE status = 'scheduled'"
                    ).fetchall()
                )
                con.close()
                for post_id, at in list(moved.items())[:5]:
                    assert stored[post_id] == at.strftime("%Y-%m-%dT%H:%M:%S")
            if n == SYNC_CONVERGENCE_RUNS - 2:
                before_last = snapshot(path)

        full = run_sync(client, fresh, page_limit=10, progress=False, full=True)
        assert full.completed, full.summary()

    assert differences(path, fresh) == {}
    # Found by the cycle's last run, which lists every post unfiltered.
    assert runs[-1].history_slice and "every post listed" in runs[-1].history_slice
    upcoming = set(Warehouse(path).upcoming_scheduled(as_of=service.now())["post_id"])
    assert {p.id for p in planned[:2]} <= upcoming
    assert upcoming == {p.id for p in client_posts(service, key) if p.status == "scheduled"}
    # The promise is not met one run early: the last slice still had work to do.
    assert before_last != snapshot(fresh)
    # Each run re-read one slice: together they covered the whole history once.
    assert [r.history_slice.split(",")[0] for r in runs if r.history_slice] == [
        f"{n}/{SYNC_CONVERGENCE_RUNS}" for n in range(1, SYNC_CONVERGENCE_RUNS + 1)
    ]
    con = open_warehouse(path, read_only=True)
    try:
        deleted = con.execute("SELECT count(*) FROM posts WHERE deleted_at IS NOT NULL")
        assert deleted.fetchall() == [(5,)]
        slices = con.execute(
            "SELECT slice_number, slice_count FROM sync_runs WHERE mode = 'incremental' "
            "ORDER BY started_at"
        ).fetchall()
        assert slices == [(n, SYNC_CONVERGENCE_RUNS) for n in range(1, SYNC_CONVERGENCE_RUNS + 1)]
        # Every live published post was re-read (synced_at) within the horizon's runs.
        stale = con.execute(
            "SELECT count(*) FROM posts WHERE deleted_at IS NULL AND published_at IS NOT NULL "
            "AND synced_at < (SELECT min(started_at) FROM sync_runs WHERE mode = 'incremental')"
        ).fetchall()
        assert stale == [(0,)]
    finally:
        con.close()


def test_a_run_reads_only_a_share_of_the_older_history(
    workspace: tuple[LocalService, str], tmp_path: Path
) -> None:
    service, key = workspace
    path = tmp_path / "wh.duckdb"
    with Client(base_url=service.base_url, api_key=key) as client:
        full = run_sync(client, path, page_limit=10, progress=False)
        incremental = run_sync(client, path, page_limit=10, progress=False)
    # 120 published posts: a seventh of them is 18 rows, two pages of 10.
    assert incremental.history_rows <= 18 + 31 * 3, incremental.summary()  # + channel days
    assert incremental.requests < full.requests / 3, incremental.summary()
