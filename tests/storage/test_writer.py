"""The write side on real DuckDB files: upsert counts, post_tags, checkpoints, sync_runs."""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import pytest

from channelkit.storage.writer import (
    Checkpoint,
    DeletionScope,
    RunCost,
    UpsertCounts,
    WarehouseWriter,
)
from channelkit.sync.arrow import SHAPES, items_to_arrow
from fixtures.rows import post, posts

pytestmark = pytest.mark.calendar


def day(channel: str, date: str, views: int) -> dict[str, Any]:
    """A channel_daily item as the analytics listing gives it."""
    return {
        "channel_id": channel,
        "date": date,
        "subscribers": 10,
        "subscribers_gained": 1,
        "subscribers_lost": 0,
        "posts_published": 1,
        "views": views,
    }


def test_counts_new_updated_unchanged(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    first = writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert first.as_dict() == {"new": 2, "updated": 0, "unchanged": 0, "deleted": 0}
    second = writer.commit_batch("posts", posts(post("p1"), post("p2", views=5), post("p3")))
    assert second.as_dict() == {"new": 1, "updated": 1, "unchanged": 1, "deleted": 0}
    assert con.execute("SELECT id, views FROM posts ORDER BY id").fetchall() == [
        ("p1", 1),
        ("p2", 5),
        ("p3", 1),
    ]


def test_a_row_read_twice_in_one_run_counts_once(con: duckdb.DuckDBPyConnection) -> None:
    """The lookback window and a history slice may both read a post: the run's summary
    counts it once (it said 67 unchanged for 60 posts)."""
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))  # an earlier run's rows
    writer.start_run(mode="incremental", base_url="http://127.0.0.1:1/v1")
    first = writer.commit_batch("posts", posts(post("p1"), post("p2")))
    again = writer.commit_batch("posts", posts(post("p1"), post("p2", views=5), post("p3")))
    assert first.as_dict() == {"new": 0, "updated": 0, "unchanged": 2, "deleted": 0}
    assert again.as_dict() == {"new": 1, "updated": 1, "unchanged": 0, "deleted": 0}


def test_null_to_value_counts_as_updated(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1", cover_image_url=None)))
    counts = writer.commit_batch("posts", posts(post("p1", cover_image_url="https://x.test/a")))
    assert counts.updated == 1


def test_last_row_of_a_key_wins_within_a_batch(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    counts = writer.commit_batch("posts", posts(post("p1", views=1), post("p1", views=9)))
    assert counts.new == 1
    assert con.execute("SELECT views FROM posts").fetchall() == [(9,)]


def test_a_first_sync_inserts_without_comparing_yet_survives_a_repeated_key(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    assert writer.commit_batch("posts", posts(post("p1"), post("p2"))).new == 2
    # The server repeats p2 in a later batch (it may not, but nothing breaks if it does).
    counts = writer.commit_batch("posts", posts(post("p2", title="New"), post("p3")))
    assert (counts.new, counts.updated) == (1, 1)
    assert con.execute("SELECT count(*) FROM post_tags WHERE post_id = 'p2'").fetchall() == [(2,)]
    assert con.execute("SELECT title FROM posts WHERE id = 'p2'").fetchall() == [("New",)]


def test_post_tags_follow_the_post(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1", tags=["a", "b", "a"]), post("p2", tags=[])))
    writer.commit_batch("posts", posts(post("p1", tags=["b", "c"])))
    assert con.execute("SELECT post_id, tag FROM post_tags ORDER BY ALL").fetchall() == [
        ("p1", "b"),
        ("p1", "c"),
    ]


def test_check_constraint_rolls_back_the_whole_batch(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    checkpoint = Checkpoint("posts", "run", cursor="c1", params={"q": 1})
    with pytest.raises(duckdb.ConstraintException):
        writer.commit_batch(
            "posts", posts(post("p1"), post("p2", priority="critical")), checkpoint=checkpoint
        )
    assert con.execute("SELECT count(*) FROM posts").fetchall() == [(0,)]
    assert writer.checkpoint("posts") is None


def test_checkpoint_round_trip(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    mark = datetime(2026, 11, 20, 8, 30, 0, 123456, tzinfo=UTC)
    saved = Checkpoint(
        "posts", "run1", cursor="abc", params={"published_after": "x"}, high_water_mark=mark
    )
    writer.commit_batch("posts", posts(post("p1")), checkpoint=saved)
    assert writer.checkpoint("posts") == saved
    assert saved.in_progress
    done = Checkpoint("posts", "run1", high_water_mark=mark)
    writer.save_checkpoint(done)
    loaded = writer.checkpoint("posts")
    assert loaded == done and loaded is not None and not loaded.in_progress


def test_unseen_rows_are_marked_deleted_and_revived(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    old = datetime.now(UTC) - timedelta(hours=1)
    writer.commit_batch("posts", posts(post("p1"), post("p2")), synced_at=old)
    walk_start = datetime.now(UTC) - timedelta(minutes=1)
    counts = writer.commit_batch("posts", posts(post("p1")), deletions=DeletionScope(walk_start))
    assert (counts.unchanged, counts.deleted) == (1, 1)
    deleted = "SELECT id FROM posts WHERE deleted_at IS NOT NULL"
    assert con.execute(deleted).fetchall() == [("p2",)]
    revived = writer.commit_batch("posts", posts(post("p2")))
    assert revived.updated == 1
    assert con.execute(deleted).fetchall() == []


def test_a_history_slice_marks_only_its_own_range_deleted(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    old = datetime.now(UTC) - timedelta(hours=1)
    writer.commit_batch(
        "posts",
        posts(
            post("jan", published_at="2026-01-10T00:00:00Z"),
            post("feb", published_at="2026-02-01T00:00:00Z"),  # the slice's first instant
            post("feb2", published_at="2026-02-20T00:00:00Z"),
            post("mar", published_at="2026-03-01T00:00:00Z"),  # the next slice's first
            post("draft", status="draft", published_at=None),
        ),
        synced_at=old,
    )
    scope = DeletionScope(
        datetime.now(UTC) - timedelta(minutes=1),
        sliced=True,
        published_from=datetime(2026, 2, 1, tzinfo=UTC),
        published_before=datetime(2026, 3, 1, tzinfo=UTC),
    )
    counts = writer.commit_batch("posts", posts(post("feb2")), deletions=scope)
    assert counts.deleted == 1
    deleted = con.execute("SELECT id FROM posts WHERE deleted_at IS NOT NULL").fetchall()
    assert deleted == [("feb",)]
    open_ended = DeletionScope(datetime.now(UTC), sliced=True, published_from=None)
    assert writer.commit_batch("posts", None, deletions=open_ended).deleted == 3  # not drafts


def test_record_slice_and_checkpoint_state(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    run_id = writer.start_run(mode="incremental", base_url="http://x/v1")
    writer.record_slice(
        run_id, number=2, count=7, after=datetime(2026, 2, 1, tzinfo=UTC), before=None
    )
    row = con.execute(
        "SELECT slice_number, slice_count, epoch(slice_after), slice_before FROM sync_runs"
    ).fetchall()
    assert row == [(2, 7, datetime(2026, 2, 1, tzinfo=UTC).timestamp(), None)]
    writer.save_checkpoint(Checkpoint("posts:history", run_id, state={"runs": 2}))
    loaded = writer.checkpoint("posts:history")
    assert loaded is not None and loaded.state == {"runs": 2} and not loaded.in_progress


def test_mark_deleted_by_id(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert writer.mark_deleted("posts", ["p2", "p9"]) == 1
    assert writer.mark_deleted("posts", ["p2"]) == 0


def test_composite_key_upsert(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)

    table = items_to_arrow(
        SHAPES["channel_daily"],
        [day("chan_1", "2026-11-01", 1), day("chan_1", "2026-11-02", 2)],
        "t",
    )
    assert writer.commit_batch("channel_daily", table).new == 2
    table = items_to_arrow(
        SHAPES["channel_daily"],
        [day("chan_1", "2026-11-02", 3), day("chan_1", "2026-11-03", 1)],
        "t",
    )
    counts = writer.commit_batch("channel_daily", table)
    assert (counts.new, counts.updated, counts.unchanged) == (1, 1, 0)
    # A batch is compared with the days it covers: the others are neither read nor touched.
    synced = "SELECT date, epoch_us(synced_at) FROM channel_daily ORDER BY date"
    before = con.execute(synced).fetchall()
    table = items_to_arrow(SHAPES["channel_daily"], [day("chan_1", "2026-11-03", 1)], "t")
    assert writer.commit_batch("channel_daily", table).unchanged == 1
    after = con.execute(synced).fetchall()
    assert after[:2] == before[:2] and after[2][1] > before[2][1]


def test_last_row_of_a_composite_key_wins_within_a_batch(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)

    items = [
        day("a", "2026-11-01", 1),
        day("b", "2026-11-01", 2),
        day("a", "2026-11-02", 3),
        day("a", "2026-11-01", 4),
    ]
    counts = writer.commit_batch(
        "channel_daily", items_to_arrow(SHAPES["channel_daily"], items, "t")
    )
    assert counts.new == 3
    assert con.execute(
        "SELECT channel_id, date::VARCHAR, views FROM channel_daily ORDER BY ALL"
    ).fetchall() == [("a", "2026-11-01", 4), ("a", "2026-11-02", 3), ("b", "2026-11-01", 2)]


def test_checkpoints_read_after_a_write_are_what_was_committed(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    kept = Checkpoint("posts", "run1", cursor="c1", params={"q": 1})
    writer.save_checkpoint(kept)
    assert writer.checkpoint("channels") is None  # every checkpoint read (and remembered)
    assert writer.checkpoint("posts") == kept
    with pytest.raises(duckdb.ConstraintException):
        writer.commit_batch(
            "posts",
            posts(post("p1", priority="critical")),
            checkpoint=Checkpoint("posts", "run2", cursor="c2", params={"q": 2}),
        )
    assert writer.checkpoint("posts") == kept
    done = Checkpoint("posts", "run2")
    writer.commit_batch("posts", posts(post("p1")), checkpoint=done)
    assert writer.checkpoint("posts") == done
    # Written by another writer (a later run) since: a new writer reads it afresh.
    WarehouseWriter(con).save_checkpoint(Checkpoint("channels", "run3"))
    assert WarehouseWriter(con).checkpoint("channels") == Checkpoint("channels", "run3")


def test_sync_runs_bookkeeping(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    killed = writer.start_run(mode="full", base_url="http://x/v1")
    run = writer.start_run(mode="incremental", base_url="http://x/v1")
    assert not writer.has_completed_run()  # a killed run does not count
    status = "SELECT status, error FROM sync_runs WHERE run_id = ?"
    killed_status, killed_error = con.execute(status, [killed]).fetchall()[0]
    assert killed_status == "failed" and "interrupted" in killed_error
    counts = {"posts": UpsertCounts(new=3).as_dict()}
    writer.finish_run(
        run, status="completed", counts=counts, cost=RunCost(requests=7, rate_limit_waits=1)
    )
    assert writer.has_completed_run()
    row = con.execute(
        "SELECT status, mode, counts, requests, finished_at IS NOT NULL FROM sync_runs "
        "WHERE run_id = ?",
        [run],
    ).fetchall()[0]
    assert row[:2] == ("completed", "incremental")
    assert json.loads(row[2])["posts"]["new"] == 3
    assert row[3:] == (7, True)


def test_batches_of_scattered_rows_match_an_independent_upsert(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The writer finds a batch's rows by key, then reads them whole by rowid: with opaque
    ids (the service's are random strings), rows scattered over the whole table, rows
    deleted and seen again, every batch's counts and the table after it equal a plain
    dictionary upsert of the same rows."""
    rng = random.Random(45)
    writer = WarehouseWriter(con)
    kept: dict[str, dict[str, Any]] = {}
    deleted: set[str] = set()

    def item(ident: str, views: int, title: str) -> dict[str, Any]:
        return post(ident, views=views, title=title, tags=[f"t{views % 3}"])

    first = [item(uuid.UUID(int=rng.getrandbits(128)).hex, 1, "first") for _ in range(3000)]
    writer.commit_batch("posts", posts(*first))  # a first sync: the table fills in id order
    kept.update((i["id"], i) for i in first)
    for _ in range(12):
        again = rng.sample(sorted(deleted), min(3, len(deleted)))  # deleted, now seen again
        live = sorted(set(kept) - deleted)
        known = rng.sample(live, 150)  # anywhere in the table
        gone = rng.sample(sorted(set(live) - set(known)), 5)
        assert writer.mark_deleted("posts", gone) == len(gone)
        deleted |= set(gone)
        batch = []
        expected = {"new": 0, "updated": 0, "unchanged": 0, "deleted": 0}
        for ident in [*known, *again]:
            old = kept[ident]
            if rng.random() < 0.3 or ident in again:
                new = item(ident, old["views"] + 1, rng.choice(["first", "second"]))
            else:
                new = old
            expected["updated" if new != old or ident in deleted else "unchanged"] += 1
            batch.append(new)
        fresh = [item(uuid.UUID(int=rng.getrandbits(128)).hex, 1, "new") for _ in range(40)]
        expected["new"] = len(fresh)
        batch += fresh
        rng.shuffle(batch)
        assert writer.commit_batch("posts", posts(*batch)).as_dict() == expected
        kept.update((i["id"], i) for i in batch)
        deleted -= set(again)
        rows = con.execute(
            "SELECT id, views, title, deleted_at IS NOT NULL FROM posts ORDER BY id"
        ).fetchall()
        assert rows == [(i, kept[i]["views"], kept[i]["title"], i in deleted) for i in sorted(kept)]
    tags = con.execute("SELECT post_id, tag FROM post_tags ORDER BY ALL").fetchall()
    assert tags == sorted((i, t) for i in kept for t in kept[i]["tags"])
