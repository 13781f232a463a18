"""What the writer derives from the daily rows (each post's reach, the daily totals) is
written in the batch's own transaction, filled once when an older file is migrated, and
not needed to read a file one version behind."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from channelkit.errors import WarehouseError
from channelkit.storage import writer as writer_module
from channelkit.storage.connection import open_warehouse
from channelkit.storage.schema import REACH_VERSION, TOTALS_VERSION
from channelkit.storage.writer import WarehouseWriter
from channelkit.warehouse import Warehouse
from fixtures.rows import (
    day,
    days,
    older_file,
    post,
    posts,
    reach_kept,
    reach_summed,
    totals_kept,
    totals_summed,
)
from fixtures.warehouse import build_small_warehouse


@pytest.mark.parametrize("step", ["refresh_reach", "shift_totals"])
def test_what_is_derived_is_written_in_the_batchs_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1")))
    writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 3)))

    def fail(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException("disk gone")

    monkeypatch.setattr(writer_module, step, fail)
    with pytest.raises(duckdb.IOException):
        writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 8)))
    # Neither the daily row nor anything derived from it was kept.
    assert con.execute("SELECT unique_viewers FROM post_daily").fetchall() == [(3,)]
    assert reach_kept(con) == reach_summed(con) == {"p1": {date(2026, 11, 1): 3}}
    assert (
        totals_kept(con) == totals_summed(con) == {("chan_1", "2026-11-01"): (1, 4, 3, 0, 0, 0, 0)}
    )
    con.close()


@pytest.mark.parametrize(
    "version",
    [REACH_VERSION - 1, TOTALS_VERSION - 1],
    ids=["before the reach", "before the totals"],
)
def test_an_older_file_gets_what_is_derived_when_migrated(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.duckdb"
    old = older_file(path, version)
    old.execute(
        "INSERT INTO posts (id, channel_id, title, priority, status, published_at, views, "
        "synced_at) VALUES ('p1', 'c', 't', 'normal', 'published', now(), 9, now()), "
        "('p2', 'c', 't', 'normal', 'published', now(), 9, now())"
    )
    old.execute(
        "INSERT INTO post_daily (post_id, channel_id, date, views, unique_viewers, reactions, "
        "comments, shares, clicks, synced_at) "
        "VALUES ('p1', 'c', DATE '2026-11-01', 1, 4, 0, 0, 0, 0, now()), "
        "('p1', 'c', DATE '2026-11-02', 1, 3, 0, 0, 0, 0, now()), "
        "('p2', 'c', DATE '2026-11-01', 2, 3, 1, 0, 0, 0, now())"
    )
    old.close()
    con = open_warehouse(path, read_only=False)
    try:
        if version < REACH_VERSION:  # a later file has the reach its writer kept
            assert reach_kept(con) == {
                "p1": {date(2026, 11, 1): 4, date(2026, 11, 2): 7},
                "p2": {date(2026, 11, 1): 3},
            }
        assert totals_kept(con) == {
            ("c", "2026-11-01"): (2, 3, 7, 1, 0, 0, 0),
            ("c", "2026-11-02"): (1, 1, 3, 0, 0, 0, 0),
        }
    finally:
        con.close()


def test_a_file_one_version_behind_reads_the_same_before_its_next_sync(tmp_path: Path) -> None:
    # A notebook upgraded before the cron job that syncs: the file has no daily totals yet,
    # and reads as it is (summing the daily rows); the next sync adds them.
    full = build_small_warehouse(tmp_path / "full.duckdb")
    expected = Warehouse(full).kpis(start="2026-03-16", end="2026-04-06", by="channel")
    # The same rows in a file made by the migrations before the totals (whatever came after).
    path = tmp_path / "w.duckdb"
    con = older_file(path, TOTALS_VERSION - 1)
    con.execute(f"ATTACH '{full}' AS made (READ_ONLY)")
    tables = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND table_name <> 'schema_meta'"
    ).fetchall()
    for (table,) in tables:
        columns = ", ".join(row[0] for row in con.execute(f"DESCRIBE {table}").fetchall())
        con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM made.{table}")
    con.close()
    behind = Warehouse(path).kpis(start="2026-03-16", end="2026-04-06", by="channel")
    assert behind.equals(expected) and behind.attrs == expected.attrs
    open_warehouse(path, read_only=False).close()  # the sync's open migrates it
    con = open_warehouse(path, read_only=True)
    assert con.execute("SELECT count(*) FROM daily_totals").fetchall()[0][0] > 0
    con.close()


def test_an_older_file_still_asks_for_a_sync_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    older_file(path, REACH_VERSION - 1).close()
    with pytest.raises(WarehouseError, match=r"schema version 3; run `channelkit sync` to migrate"):
        open_warehouse(path, read_only=True)
