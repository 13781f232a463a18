"""A process that holds a connection to the warehouse reads the new state after another
process's sync switched it in (issue 45.2). DuckDB's Python client shares one database
instance per path and process, so before this a new `ck.Warehouse`, `freshness()` and a
report in that process all joined the file the held connection had opened, the pre-sync one.

Here the test process holds a plain `duckdb.connect(path, read_only=True)` (a notebook's) and
a `with wh.session():` block; a post is published and a `channelkit sync` in a child process
completes and switches the file in; then every new reader in the test process sees that
post and that sync, and the session says plainly that it reads the state it opened.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

import channelkit as ck
from channelkit.client import Client
from channelkit.reports.generate import build_report
from channelkit.service import LocalService
from channelkit.sync import run_sync

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Switched:
    db: Path
    held: duckdb.DuckDBPyConnection  # opened before the sync, still open
    session: ck.Warehouse  # inside a `with wh.session():` opened before the sync
    posts_before: int
    posts_after: int  # as the sync's own process counts them
    run_after: str  # the run id of the sync in the other process


def _count(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FROM posts WHERE deleted_at IS NULL").fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture(scope="module")
def switched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Switched]:
    db = tmp_path_factory.mktemp("switch") / "warehouse.duckdb"
    # One-second windows: the two syncs never wait out a 60-second window (nothing here
    # checks rate limits)
    with LocalService(seed="demo", rate_window=1.0) as service, ExitStack() as stack:
        key = service.demo_keys["analyst"]
        with Client(service.base_url, key) as client:
            assert run_sync(client, db, progress=False).completed
        held = duckdb.connect(str(db), read_only=True)
        stack.callback(held.close)
        posts_before = _count(held)
        session = ck.Warehouse(db)
        stack.enter_context(session.session())
        assert session.freshness().row_counts["posts"] == posts_before
        with Client(service.base_url, service.demo_keys["admin"]) as admin:
            channel = next(iter(admin.channels.list()))
            admin.posts.create(channel_id=channel.id, title="After the switch", body="New.")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            "CHANNELKIT_BASE_URL": service.base_url,
            "CHANNELKIT_API_KEY": key,
        }
        command = "from channelkit.sync.cli import sync; sync()"
        done = subprocess.run(
            [sys.executable, "-c", command, "--db", str(db), "--no-progress"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert not db.with_name(db.name + ".sync").exists()  # switched in
        # What the file now at the path holds, read by a process that never held the old one.
        script = (
            "import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); "
            "alive = 'SELECT count(*) FROM posts WHERE deleted_at IS NULL'; "
            "print(con.execute(alive).fetchone()[0]); "
            "print(con.execute(\"SELECT run_id FROM sync_runs WHERE status = 'completed' "
            'ORDER BY finished_at DESC LIMIT 1").fetchone()[0])'
        )
        fresh = subprocess.run(
            [sys.executable, "-c", script, str(db)], capture_output=True, text=True, check=True
        ).stdout.split()
        yield Switched(db, held, session, posts_before, int(fresh[0]), fresh[1])


def test_the_sync_added_a_post_the_held_connection_does_not_see(switched: Switched) -> None:
    assert switched.posts_after == switched.posts_before + 1
    assert _count(switched.held) == switched.posts_before  # it keeps the file it opened


def test_a_new_warehouse_reads_the_new_state(switched: Switched) -> None:
    wh = ck.Warehouse(switched.db)
    assert len(wh.posts()) == switched.posts_after
    assert "After the switch" in set(wh.posts()["title"])
    runs = wh.runs()
    assert runs["run_id"].iloc[-1] == switched.run_after
    with wh.duckdb as con:  # the escape hatch too
        assert _count(con) == switched.posts_after


def test_freshness_and_the_card_report_the_new_sync(switched: Switched) -> None:
    wh = ck.Warehouse(switched.db)
    fresh = wh.freshness()
    assert fresh.row_counts["posts"] == switched.posts_after
    assert fresh.warnings == ()
    runs = wh.runs()
    last = runs[runs["outcome"] == "completed"]["finished_at"].max()
    assert fresh.last_sync_at == last.to_pydatetime()
    assert f"{switched.posts_after:,} posts" in repr(wh)


def test_a_report_shows_the_new_sync(switched: Switched) -> None:
    report = build_report(switched.db)
    rows = dict(report.page.freshness)["Rows"]
    assert rows.startswith(f"{switched.posts_after:,} posts"), rows


def test_a_session_opened_before_says_it_reads_the_old_state(switched: Switched) -> None:
    wh = switched.session  # still inside its `with wh.session():` block
    fresh = wh.freshness()
    assert fresh.row_counts["posts"] == switched.posts_before
    assert len(fresh.warnings) == 1 and "leave the block" in fresh.warnings[0]
    assert "a newer sync has replaced this warehouse" in wh._repr_html_()
