"""Whose view a warehouse holds (issue 36.2, 45.3): a key that sees fewer channels than the
one that filled the warehouse, or cannot list channels at all, marks nothing deleted; it is
refused, naming the channels on both sides and the flag, once, before anything is written.
`status` shows the view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.sync import run_sync
from channelkit.sync.view import KeyView


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
            wide = KeyView.of_key(client)
        assert first.completed and first.view_text == wide.describe()
        with Client(service.base_url, bob) as client:
            narrow = KeyView.of_key(client)
            for full in (False, True):
                refused = run_sync(client, db, progress=False, full=full)
                assert not refused.completed
                assert refused.error is not None
                assert refused.error.startswith(
                    f"this key sees {narrow.describe()}, but the warehouse was filled through "
                    f"{wide.describe()}, and 1 of the channels with posts there this key "
                    "cannot see ('Comms team')"
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


# The minimal analyst key of issue 45: it reads posts and analytics, not the channel list.
_NO_CHANNELS = ("posts:read", "analytics:read")


def _sync_cli(service: LocalService, key: str, db: Path, *flags: str) -> Any:
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    return CliRunner().invoke(main, ["sync", "--db", str(db), *flags], env=env)


def test_a_key_without_channels_read_is_refused_and_marks_nothing_deleted(
    two_views: tuple[LocalService, str, str], tmp_path: Path
) -> None:
    service, ann, _ = two_views
    minimal = service.create_key(user="bob", team="eng", scopes=_NO_CHANNELS, plan="enterprise")
    db = tmp_path / "w.duckdb"
    try:
        with Client(service.base_url, ann) as client:
            assert run_sync(client, db, progress=False).completed
            wide = KeyView.of_key(client)
        with Client(service.base_url, minimal) as client:
            for full in (False, True):
                refused = run_sync(client, db, progress=False, full=full)
                assert not refused.completed and refused.error is not None
                assert refused.error.startswith(
                    "this key cannot list channels (it lacks channels:read), so it cannot be "
                    f"told whether it sees the channels of {wide.describe()} that filled the "
                    "warehouse ('All hands', 'Comms team'); nothing was written"
                )
                assert _deleted(db) == {"posts": 0, "channels": 0}
        cli = _sync_cli(service, minimal, db, "--full")
        assert cli.exit_code == 1
        # said once: on stderr, not again in the summary on stdout
        assert cli.output.count("cannot be told") == 1, cli.output
        assert "cannot be told" in cli.stderr and "Traceback" not in cli.output
        assert _deleted(db) == {"posts": 0, "channels": 0}
        # accepted on purpose, it writes what it sees and still marks nothing deleted
        accepted = _sync_cli(service, minimal, db, "--full", "--new-view", "-q")
        assert accepted.exit_code == 0, accepted.output
        assert _deleted(db) == {"posts": 0, "channels": 0}
    finally:
        service.stop()


def test_a_warehouse_a_key_without_channels_read_filled(
    two_views: tuple[LocalService, str, str], tmp_path: Path
) -> None:
    """Its own warehouse syncs again and again, marking nothing deleted (a post it does not
    see may be one it may not see); a key that lists fewer channels than hold posts there is
    refused, naming them."""
    service, ann, bob = two_views
    minimal = service.create_key(user="ann", team="comms", scopes=_NO_CHANNELS, plan="enterprise")
    db = tmp_path / "own.duckdb"
    try:
        with Client(service.base_url, minimal) as client:
            for full in (True, False, True):
                report = run_sync(client, db, progress=False, full=full)
                assert report.completed, report.error
                assert report.view_text == "a key that cannot list channels (no channels:read)"
        with Client(service.base_url, ann) as client:
            client.posts.delete(next(iter(client.posts.list())).id)
        with Client(service.base_url, minimal) as client:
            assert run_sync(client, db, progress=False, full=True).completed
        assert _deleted(db) == {"posts": 0, "channels": 0}
        status = CliRunner().invoke(main, ["status", "--db", str(db)])
        assert "through a key that cannot list channels" in status.output
        with Client(service.base_url, bob) as client:
            refused = run_sync(client, db, progress=False, full=True)
        assert not refused.completed and refused.error is not None
        assert "filled through a key that cannot list channels (no channels:read), and 1 of" in (
            refused.error
        )
        assert _deleted(db) == {"posts": 0, "channels": 0}
        with Client(service.base_url, ann) as client:  # sees every channel holding posts
            assert run_sync(client, db, progress=False, full=True).completed
        assert _deleted(db) == {"posts": 1, "channels": 0}
    finally:
        service.stop()


def test_the_refusal_names_the_channels_on_both_sides(
    two_views: tuple[LocalService, str, str], tmp_path: Path
) -> None:
    """Two views of the same size ("2 vs 2 channels" said nothing): the refusal names the
    channel the key sees that the warehouse lacks, and the one with posts it cannot see."""
    service, ann, bob = two_views
    db = tmp_path / "w.duckdb"
    try:
        with Client(service.base_url, bob) as client:
            client.channels.create(name="Eng team", visibility="team")
        with Client(service.base_url, ann) as client:
            assert run_sync(client, db, progress=False).completed
        cli = _sync_cli(service, bob, db)
        assert cli.exit_code == 1
        assert cli.output.count("this key sees") == 1, cli.output
        assert "(2 channels), 1 of them not in the warehouse's ('Eng team'), but" in cli.stderr
        assert "and 1 of the channels with posts there this key cannot see ('Comms team')" in (
            cli.stderr
        )
        assert _deleted(db) == {"posts": 0, "channels": 0}
    finally:
        service.stop()
