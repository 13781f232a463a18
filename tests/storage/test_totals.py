"""The daily rows summed per channel and day (storage/totals.py): kept equal to the rows
that count by the writer, in the batch's own transaction, through new and changed rows,
deletions and returns; filled once when an older file is migrated; and read by the
metrics with the same numbers as the rows themselves."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from channelkit.storage import writer as writer_module
from channelkit.storage.connection import connect, open_warehouse
from channelkit.storage.schema import CONTRACT_MARK, MIGRATIONS, SCHEMA_APP, TOTALS_VERSION
from channelkit.storage.totals import TOTAL_COLUMNS
from channelkit.storage.writer import DeletionScope, WarehouseWriter
from channelkit.warehouse import Warehouse
from fixtures.rows import day, days, post, posts
from fixtures.warehouse import build_small_warehouse

Sums = dict[tuple[str, str], tuple[int, ...]]


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    yield con
    con.close()


COLUMNS = ("row_count", *TOTAL_COLUMNS)


def kept(con: duckdb.DuckDBPyConnection) -> Sums:
    rows = con.execute(
        f"SELECT channel_id, date::VARCHAR, {', '.join(COLUMNS)} FROM daily_totals"
    ).fetchall()
    keys = [(r[0], r[1]) for r in rows]
    assert len(keys) == len(set(keys)), "one row per channel and day"
    return {(r[0], r[1]): tuple(r[2:]) for r in rows}


def summed(con: duckdb.DuckDBPyConnection) -> Sums:
    """The same from the daily rows of the posts that are not deleted."""
    rows = con.execute(
        f"SELECT d.channel_id, d.date::VARCHAR, count(*), "
        f"{', '.join(f'sum(d.{c})' for c in TOTAL_COLUMNS)} "
        "FROM post_daily d WHERE d.post_id NOT IN "
        "(SELECT id FROM posts WHERE deleted_at IS NOT NULL) GROUP BY ALL"
    ).fetchall()
    return {(r[0], r[1]): tuple(int(v) for v in r[2:]) for r in rows}


def test_the_writer_keeps_the_sums_equal_to_the_rows_that_count(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2"), post("p3", channel="chan_2")))
    # A first batch (the table was empty), two channels.
    writer.commit_batch(
        "post_daily",
        days(
            day("p1", "2026-11-01", 30),
            day("p2", "2026-11-01", 7),
            day("p3", "2026-11-01", 5, channel="chan_2"),
            day("p1", "2026-11-02", 4),
        ),
    )
    assert kept(con) == summed(con)
    assert kept(con)[("chan_1", "2026-11-01")][2] == 37
    # Days re-read: one changed, one unchanged, one new.
    writer.commit_batch(
        "post_daily",
        days(day("p1", "2026-11-01", 31), day("p2", "2026-11-01", 7), day("p2", "2026-11-03", 2)),
    )
    assert kept(con) == summed(con)
    assert kept(con)[("chan_1", "2026-11-01")][2] == 38
    # A post's rows that moved channel leave the old channel's sums.
    writer.commit_batch("post_daily", days(day("p2", "2026-11-01", 7, channel="chan_2")))
    assert kept(con) == summed(con)
    assert kept(con)[("chan_2", "2026-11-01")][2] == 5 + 7


def test_deleted_posts_leave_the_sums_and_come_back_to_them(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    begun = datetime.now(UTC)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    writer.commit_batch(
        "post_daily",
        days(day("p1", "2026-11-01", 30), day("p2", "2026-11-01", 7), day("p2", "2026-11-02", 1)),
    )
    # The server answers 404 for p2.
    assert writer.mark_deleted("posts", ["p2"]) == 1
    assert kept(con) == summed(con) == {("chan_1", "2026-11-01"): (1, 31, 30, 0, 0, 0, 0)}
    # p2 is listed again: it comes back, and so do its days.
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert kept(con) == summed(con)
    assert kept(con)[("chan_1", "2026-11-02")][2] == 1
    # A complete walk that no longer lists p1 marks it deleted.
    later = datetime.now(UTC)
    assert later > begun
    writer.commit_batch("posts", posts(post("p2")), deletions=DeletionScope(unseen_since=later))
    assert con.execute("SELECT id FROM posts WHERE deleted_at IS NOT NULL").fetchall() == [("p1",)]
    assert kept(con) == summed(con)
    assert kept(con)[("chan_1", "2026-11-01")][2] == 7


def test_the_sums_are_written_in_the_batchs_transaction(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1")))
    writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 3)))

    def fail(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException("disk gone")

    monkeypatch.setattr(writer_module, "shift_totals", fail)
    with pytest.raises(duckdb.IOException):
        writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 8)))
    assert con.execute("SELECT unique_viewers FROM post_daily").fetchall() == [(3,)]
    assert kept(con) == summed(con) == {("chan_1", "2026-11-01"): (1, 4, 3, 0, 0, 0, 0)}


def test_an_older_file_gets_its_sums_when_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    old = connect(path, read_only=False)
    for step in MIGRATIONS[: TOTALS_VERSION - 1]:
        old.execute(step)
    old.execute(
        "INSERT INTO schema_meta (key, value) "
        "VALUES ('app', ?), ('schema_version', ?), ('contract', ?)",
        [SCHEMA_APP, str(TOTALS_VERSION - 1), CONTRACT_MARK],
    )
    old.execute(
        "INSERT INTO post_daily (post_id, channel_id, date, views, unique_viewers, reactions, "
        "comments, shares, clicks, synced_at) "
        "VALUES ('p1', 'c', DATE '2026-11-01', 1, 4, 0, 0, 0, 0, now()), "
        "('p2', 'c', DATE '2026-11-01', 2, 3, 1, 0, 0, 0, now())"
    )
    old.close()
    con = open_warehouse(path, read_only=False)
    try:
        assert kept(con) == {("c", "2026-11-01"): (2, 3, 7, 1, 0, 0, 0)}
    finally:
        con.close()


@pytest.mark.parametrize(
    "call",
    [
        lambda wh: wh.kpis(start="2026-03-16", end="2026-04-06"),
        lambda wh: wh.kpis(period="week", by="channel"),
        lambda wh: wh.engagement_over_time("day", start="2026-03-16", end="2026-04-06"),
        lambda wh: wh.channel_comparison(start="2026-03-16", end="2026-04-06"),
    ],
    ids=["kpis", "kpis by channel", "trend", "channel comparison"],
)
def test_metrics_read_from_the_sums_equal_those_read_from_the_rows(
    tmp_path: Path, call: object
) -> None:
    # The small warehouse has a deleted post whose daily rows must not count.
    path = build_small_warehouse(tmp_path / "w.duckdb")
    wh = Warehouse(path)
    with_sums = call(wh)  # type: ignore[operator]
    con = open_warehouse(path, read_only=False)
    # They do read the sums: a change to them shows.
    con.execute("UPDATE daily_totals SET views = views + 1000")
    con.close()
    assert not call(Warehouse(path)).equals(with_sums)  # type: ignore[operator]
    con = open_warehouse(path, read_only=False)
    con.execute("DROP TABLE daily_totals")  # the metrics sum the daily rows instead
    con.close()
    from_rows = call(Warehouse(path))  # type: ignore[operator]
    assert with_sums.equals(from_rows)
    assert with_sums.attrs == from_rows.attrs


def test_any_sequence_of_batches_keeps_the_sums_equal_to_the_rows(
    con: duckdb.DuckDBPyConnection,
) -> None:
    # Rows written, re-read changed, moved between channels, in any order; posts marked
    # deleted (by id, and by two walks of one run that share their synced time) and seen
    # again: after every step the sums are what the rows that count add up to.
    rng = random.Random(7)
    writer = WarehouseWriter(con)
    idents = [f"p{i}" for i in range(12)]
    writer.commit_batch("posts", posts(*(post(i) for i in idents)))
    shared = datetime.now(UTC) + timedelta(seconds=1)
    marked = revived = 0
    for step in range(40):
        kind = rng.choice(("days", "days", "days", "delete", "walk", "revive"))
        if kind == "days":
            batch = {
                (i, f"2026-11-{rng.randint(1, 9):02d}"): (rng.randint(0, 50), rng.choice("12"))
                for i in rng.sample(idents, 5)
                for _ in range(3)
            }
            writer.commit_batch(
                "post_daily",
                days(*(day(i, d, v, channel=f"chan_{c}") for (i, d), (v, c) in batch.items())),
            )
        elif kind == "delete":
            marked += writer.mark_deleted("posts", rng.sample(idents, 2))
        elif kind == "walk":
            listed = rng.sample(idents, 9)
            scope = DeletionScope(unseen_since=shared)
            marked += writer.commit_batch(
                "posts", posts(*(post(i) for i in listed)), deletions=scope, synced_at=shared
            ).deleted
        else:
            revived += writer.commit_batch(
                "posts", posts(*(post(i) for i in rng.sample(idents, 4)))
            ).updated
        assert kept(con) == summed(con), f"step {step}: {kind}"
    assert marked > 5 and revived > 3 and kept(con)
