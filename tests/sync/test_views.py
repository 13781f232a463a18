"""Whose view a warehouse holds (issue 36.2): a key that sees fewer channels than the one
that filled the warehouse marks nothing deleted; it is refused, naming both views and the
flag, before anything is written. `status` shows the view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.sync import run_sync
from channelkit.sync.view import View


@pytest.fixture
def two_views() -> tuple[LocalService, str, str]:
    """ann (team comms) sees "All hands" and the comms team's channel; bob (team eng) only
    "All hands". Three posts in each channel."""
    service = LocalService(admin=True)
    service.start()
    ann = service.create_key(user="ann", team="comms", plan="enterprise")
    bob = service.create_key(user="bob", team="eng", plan="enterprise")
    with Client(service.base_url, ann) as client:
        for name, visibility in (("All hands", "organization"), ("Comms team", "team")):
            channel = client.channels.create(name=name, visibility=visibility)
            for n in range(3):
                client.posts.create(channel_id=channel.id, title=f"{name} {n}", body="Hello.")
    return service, ann, bob


def _deleted(db: Path) -> dict[str, int]:
    con = open_warehouse(db, read_only=True)
    try:
        return {
            table: con.execute(
                f"SELECT count(*) FROM {table} WHERE deleted_at IS NOT NULL"
            ).fetchall()[0][0]
            for table in ("posts", "channels")
        }
    finally:
        con.close()


def test_a_narrower_key_is_refused_and_marks_nothing_deleted(
    two_views: tuple[LocalService, str, str], tmp_path: Path
) -> None:
    service, ann, bob = two_views
    db = tmp_path / "w.duckdb"
    try:
        with Client(service.base_url, ann) as client:
            first = run_sync(client, db, progress=False)
            wide = View.listed(client)
        assert first.completed and first.view_text == wide.describe()
        with Client(service.base_url, bob) as client:
            narrow = View.listed(client)
            for full in (False, True):
                refused = run_sync(client, db, progress=False, full=full)
                assert not refused.completed
                assert refused.error is not None
                assert refused.error.startswith(
                    f"this key sees {narrow.describe()}, but the warehouse was filled through "
                    f"{wide.describe()}, 1 of whose channels with posts this key cannot see "
                    "('Comms team')"
                )
                assert "--new-view" in refused.error and bob not in refused.error
                assert _deleted(db) == {"posts": 0, "channels": 0}
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": bob}
        cli = CliRunner().invoke(main, ["sync", "--db", str(db), "-q"], env=env)
        assert cli.exit_code == 1 and "pass --new-view" in cli.output
        assert _deleted(db) == {"posts": 0, "channels": 0}
        # the key that filled it goes on as before; a wider view is taken as it is
        with Client(service.base_url, ann) as client:
            assert run_sync(client, db, progress=False, full=True).completed
        assert _deleted(db) == {"posts": 0, "channels": 0}
        # accepted on purpose: the channel bob cannot see, and its posts, count as gone
        accepted = CliRunner().invoke(
            main, ["sync", "--db", str(db), "--new-view", "--full", "-q"], env=env
        )
        assert accepted.exit_code == 0, accepted.output
        assert _deleted(db) == {"posts": 3, "channels": 1}
        status = CliRunner().invoke(main, ["status", "--db", str(db)])
        assert f"through {narrow.describe()}" in status.output
    finally:
        service.stop()


def test_status_json_after_a_failed_first_sync_prints_the_run_it_recorded(
    tmp_path: Path,
) -> None:
    db = tmp_path / "w.duckdb"
    with LocalService() as service, Client(service.base_url, "ck_not_a_key") as client:
        report = run_sync(client, db, progress=False)  # the library keeps the file
    assert not report.completed and report.error and "401" in report.error
    status = CliRunner().invoke(main, ["status", "--db", str(db), "--json"])
    assert status.exit_code == 0, status.output
    shown = json.loads(status.stdout)
    assert [(run["run_id"], run["outcome"]) for run in shown["runs"]] == [(report.run_id, "failed")]
    assert "401" in shown["runs"][0]["error"] and shown["last_sync_at"] is None
    plain = CliRunner().invoke(main, ["status", "--db", str(db)])
    assert plain.exit_code == 0 and "no sync has completed yet" in plain.output
