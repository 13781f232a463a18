"""Every declared resource (`channelkit._resources`) is synced, reaches the Parquet and lake
copies, and, when declared deletable, has the rows the server no longer lists marked
deleted: by construction, from its one declaration, not from lists of tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import channelkit as ck
from channelkit._resources import GROUPS, PHASES, RESOURCES, Resource
from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.storage.lake import open_lake
from channelkit.storage.parquet import PARQUET_TABLES
from channelkit.sync import run_sync
from channelkit.warehouse import Warehouse

pytest.importorskip("deltalake", reason="the lake needs channelkit[lake]")

DAY = 86_400.0
GHOST = "ghost_0"  # a row the warehouse holds and the server never listed


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small workspace synced in full twice, a ghost row of every deletable resource
    planted in between: (warehouse file, lake root)."""
    tmp = tmp_path_factory.mktemp("resources")
    db, lake = tmp / "wh.duckdb", tmp / "lake"
    with LocalService(admin=True, rate_window=1.0) as svc:
        key = svc.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=svc.base_url, api_key=key) as client:
            channels = [client.channels.create(name=f"Channel {i}").id for i in range(2)]
            for day in range(3):
                for channel in channels:
                    client.posts.create(
                        channel_id=channel, title=f"Post {day}", body="b", tags=[f"t{day}"]
                    )
                svc.advance_clock(DAY)
            assert run_sync(client, db, lake=lake, progress=False).completed
            con = open_warehouse(db, read_only=False)
            try:
                for resource in RESOURCES:
                    if resource.deletable:
                        (key_column,) = resource.key
                        con.execute(
                            f"INSERT INTO {resource.table} SELECT * REPLACE "
                            f"('{GHOST}' AS {key_column}) FROM {resource.table} LIMIT 1"
                        )
            finally:
                con.close()
            report = run_sync(client, db, lake=lake, full=True, progress=False)
            assert report.completed, report.error
    return db, lake


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.table)
def test_a_declared_resource_is_synced_into_the_warehouse_and_the_lake(
    synced: tuple[Path, Path], resource: Resource
) -> None:
    db, lake = synced
    con, copy = open_warehouse(db, read_only=True), open_lake(lake)
    try:
        keys = ", ".join(resource.key)
        held = con.execute(f"SELECT {keys} FROM {resource.table} ORDER BY ALL").fetchall()
        in_lake = copy.execute(f"SELECT {keys} FROM {resource.table} ORDER BY ALL").fetchall()
    finally:
        con.close()
        copy.close()
    assert held, f"the sync wrote no {resource.table}"
    assert in_lake == held
    assert resource.table in PARQUET_TABLES


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.table)
def test_a_full_walk_marks_what_the_server_no_longer_lists_when_declared_deletable(
    synced: tuple[Path, Path], resource: Resource
) -> None:
    db, lake = synced
    con, copy = open_warehouse(db, read_only=True), open_lake(lake)
    try:
        columns = {row[0] for row in con.execute(f"DESCRIBE {resource.table}").fetchall()}
        if not resource.deletable:
            # Nothing to mark with: a daily row, once counted, stays.
            assert "deleted_at" not in columns
            return
        (key_column,) = resource.key
        where = f"WHERE {key_column} = '{GHOST}'"
        marked = con.execute(f"SELECT deleted_at FROM {resource.table} {where}").fetchall()
        # Filtered here: a filter pushed down to the Delta dataset meets its string views.
        lake_rows = copy.execute(f"SELECT {key_column}, deleted_at FROM {resource.table}")
        in_lake = [(at,) for key, at in lake_rows.fetchall() if key == GHOST]
        others = con.execute(
            f"SELECT count(*) FROM {resource.table} WHERE deleted_at IS NOT NULL "
            f"AND {key_column} <> '{GHOST}'"
        ).fetchall()
    finally:
        con.close()
        copy.close()
    assert marked and marked[0][0] is not None, f"{resource.table}: the ghost row is not deleted"
    assert in_lake == marked
    assert others == [(0,)]


def test_the_phases_and_groups_cover_every_declared_resource_once() -> None:
    tables = [r.table for r in RESOURCES]
    assert sorted(t for phase in PHASES for t in phase) == sorted(tables)
    assert sorted(t for group in GROUPS.values() for t in group) == sorted(tables)


def test_freshness_counts_every_declared_resource(synced: tuple[Path, Path]) -> None:
    db, _ = synced
    wh = Warehouse(db)
    with wh.session():
        counts = wh.freshness().row_counts
    assert list(counts) == [r.table for r in RESOURCES] and all(counts.values())


def test_the_only_help_and_the_sync_docstring_name_every_group() -> None:
    help_text = CliRunner().invoke(main, ["sync", "--help"]).output
    assert f"subset of {','.join(GROUPS)}" in " ".join(help_text.split())
    doc = " ".join((ck.sync.__doc__ or "").split())
    assert all(f'"{group}"' in doc for group in GROUPS), doc
