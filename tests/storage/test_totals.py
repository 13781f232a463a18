"""The daily rows summed per channel and day (storage/totals.py): kept equal to the rows
that count by the writer, in the batch's own transaction, through new and changed rows,
deletions and returns; filled once when an older file is migrated; and read by the
metrics with the same numbers as the rows themselves."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from channelkit.storage.connection import open_warehouse
from channelkit.storage.writer import DeletionScope, WarehouseWriter
from channelkit.warehouse import Warehouse
from fixtures.rows import day, days, post, posts, totals_kept, totals_summed
from fixtures.warehouse import build_small_warehouse


def test_the_writer_keeps_the_sums_equal_to_the_rows_that_count(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2"), post("p3", channel_id="chan_2")))
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
    assert totals_kept(con) == totals_summed(con)
    assert totals_kept(con)[("chan_1", "2026-11-01")][2] == 37
    # Days re-read: one changed, one unchanged, one new.
    writer.commit_batch(
        "post_daily",
        days(day("p1", "2026-11-01", 31), day("p2", "2026-11-01", 7), day("p2", "2026-11-03", 2)),
    )
    assert totals_kept(con) == totals_summed(con)
    assert totals_kept(con)[("chan_1", "2026-11-01")][2] == 38
    # A post's rows that moved channel leave the old channel's sums.
    writer.commit_batch("post_daily", days(day("p2", "2026-11-01", 7, channel="chan_2")))
    assert totals_kept(con) == totals_summed(con)
    assert totals_kept(con)[("chan_2", "2026-11-01")][2] == 5 + 7


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
    assert (
        totals_kept(con)
        == totals_summed(con)
        == {("chan_1", "2026-11-01"): (1, 31, 30, 0, 0, 0, 0)}
    )
    # p2 is listed again: it comes back, and so do its days.
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert totals_kept(con) == totals_summed(con)
    assert totals_kept(con)[("chan_1", "2026-11-02")][2] == 1
    # A complete walk that no longer lists p1 marks it deleted.
    later = datetime.now(UTC)
    assert later > begun
    writer.commit_batch("posts", posts(post("p2")), deletions=DeletionScope(unseen_since=later))
    assert con.execute("SELECT id FROM posts WHERE deleted_at IS NOT NULL").fetchall() == [("p1",)]
    assert totals_kept(con) == totals_summed(con)
    assert totals_kept(con)[("chan_1", "2026-11-01")][2] == 7


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
    # later than every other write of the test, however slow the machine: the walks mark
    # what no write since `shared` touched, as the two walks of one run do
    shared = datetime.now(UTC) + timedelta(hours=1)
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
        assert totals_kept(con) == totals_summed(con), f"step {step}: {kind}"
    assert marked > 5 and revived > 3 and totals_kept(con)
