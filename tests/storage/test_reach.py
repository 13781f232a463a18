"""Each post's stored reach (storage/reach.py): kept equal to its daily rows by the writer,
in the batch's own transaction, and filled once when an older file is migrated."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from channelkit.storage import writer as writer_module
from channelkit.storage.connection import connect, open_warehouse
from channelkit.storage.reach import refresh_reach
from channelkit.storage.schema import CONTRACT_MARK, MIGRATIONS, REACH_VERSION, SCHEMA_APP
from channelkit.storage.writer import WarehouseWriter
from fixtures.rows import day, days, post, posts


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    yield con
    con.close()


def stored(con: duckdb.DuckDBPyConnection) -> dict[str, dict[date, int]]:
    """Each post's stored running unique viewers, decoded day by day."""
    out: dict[str, dict[date, int]] = {}
    for ident, first, text, digits in con.execute(
        "SELECT id, reach_from, reach_cumulative, reach_digits FROM posts ORDER BY id"
    ).fetchall():
        if first is None:
            assert text is None and digits is None
            out[ident] = {}
            continue
        values = [int(text[i : i + digits]) for i in range(0, len(text), digits)]
        out[ident] = {first + timedelta(days=k): v for k, v in enumerate(values)}
    return out


def summed(con: duckdb.DuckDBPyConnection) -> dict[str, dict[date, int]]:
    """The same from the daily rows: through every day from a post's first row to its last."""
    rows = con.execute(
        "SELECT p.id, d.date, d.unique_viewers FROM posts p "
        "LEFT JOIN post_daily d ON d.post_id = p.id ORDER BY p.id, d.date"
    ).fetchall()
    out: dict[str, dict[date, int]] = {}
    by_post: dict[str, dict[date, int]] = {}
    for ident, when, viewers in rows:
        by_post.setdefault(ident, {})
        if when is not None:
            by_post[ident][when] = viewers
    for ident, seen in by_post.items():
        out[ident] = {}
        if seen:
            first, last, running = min(seen), max(seen), 0
            for k in range((last - first).days + 1):
                running += seen.get(first + timedelta(days=k), 0)
                out[ident][first + timedelta(days=k)] = running
    return out


def test_the_writer_keeps_each_posts_reach_equal_to_its_daily_rows(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert stored(con) == {"p1": {}, "p2": {}}
    # A first batch of daily rows (the table was empty), with a day without a row.
    writer.commit_batch(
        "post_daily",
        days(day("p1", "2026-11-01", 30), day("p1", "2026-11-03", 5), day("p2", "2026-11-01", 7)),
    )
    assert stored(con)["p1"] == {
        date(2026, 11, 1): 30,
        date(2026, 11, 2): 30,
        date(2026, 11, 3): 35,
    }
    assert stored(con) == summed(con)
    # Days re-read: one changed, one unchanged, one new, a day earlier than the first.
    writer.commit_batch(
        "post_daily",
        days(
            day("p1", "2026-11-03", 9),
            day("p1", "2026-11-01", 30),
            day("p1", "2026-11-04", 2),
            day("p2", "2026-10-31", 4),
        ),
    )
    assert stored(con) == summed(con)
    assert stored(con)["p1"][date(2026, 11, 4)] == 30 + 9 + 2
    assert min(stored(con)["p2"]) == date(2026, 10, 31)
    # A batch of one late day: the post's earlier rows still count.
    writer.commit_batch("post_daily", days(day("p1", "2026-11-06", 1)))
    assert stored(con)["p1"][date(2026, 11, 6)] == 30 + 9 + 2 + 1
    assert stored(con) == summed(con)
    # A post rewritten (its title and readers changed) keeps the reach of its daily rows.
    writer.commit_batch("posts", posts(post("p1", views=500) | {"title": "New"}, post("p2")))
    assert stored(con) == summed(con) and stored(con)["p1"]
    # A post whose daily rows were synced before the post itself.
    writer.commit_batch("post_daily", days(day("p3", "2026-11-02", 11)))
    writer.commit_batch("posts", posts(post("p3")))
    assert stored(con)["p3"] == {date(2026, 11, 2): 11}
    assert stored(con) == summed(con)


def test_the_reach_is_written_in_the_batchs_transaction(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1")))
    writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 3)))

    def fail(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException("disk gone")

    monkeypatch.setattr(writer_module, "refresh_reach", fail)
    with pytest.raises(duckdb.IOException):
        writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 8)))
    # Neither the daily row nor anything else of the batch was kept.
    assert con.execute("SELECT unique_viewers FROM post_daily").fetchall() == [(3,)]
    assert stored(con) == summed(con) == {"p1": {date(2026, 11, 1): 3}}


def test_refresh_reach_recomputes_the_posts_asked_or_all(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 3), day("p2", "2026-11-01", 4)))
    right = stored(con)
    con.execute("UPDATE posts SET reach_from = NULL, reach_cumulative = NULL, reach_digits = NULL")
    refresh_reach(con, "SELECT 'p2'")
    assert stored(con) == {"p1": {}, "p2": right["p2"]}
    refresh_reach(con)
    assert stored(con) == right


def test_each_post_writes_its_sums_with_the_digits_of_its_largest(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    writer.commit_batch(
        "post_daily",
        days(
            day("p1", "2026-11-01", 7),
            day("p1", "2026-11-02", 5),
            day("p2", "2026-11-01", 3),
            day("p2", "2026-11-02", 2**62),
        ),
    )
    assert con.execute("SELECT reach_cumulative FROM posts WHERE id = 'p1'").fetchall() == [
        ("0712",)
    ]
    assert stored(con)["p2"] == {date(2026, 11, 1): 3, date(2026, 11, 2): 2**62 + 3}


def test_an_older_file_gets_every_posts_reach_when_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    old = connect(path, read_only=False)
    for step in MIGRATIONS[: REACH_VERSION - 1]:
        old.execute(step)
    old.execute(
        "INSERT INTO schema_meta (key, value) "
        "VALUES ('app', ?), ('schema_version', ?), ('contract', ?)",
        [SCHEMA_APP, str(REACH_VERSION - 1), CONTRACT_MARK],
    )
    old.execute(
        "INSERT INTO posts (id, channel_id, title, priority, status, published_at, views, "
        "synced_at) VALUES ('p1', 'c', 't', 'normal', 'published', now(), 9, now()), "
        "('p2', 'c', 't', 'normal', 'published', now(), 9, now())"
    )
    old.execute(
        "INSERT INTO post_daily (post_id, channel_id, date, views, unique_viewers, reactions, "
        "comments, shares, clicks, synced_at) "
        "VALUES ('p1', 'c', DATE '2026-11-01', 1, 4, 0, 0, 0, 0, now()), "
        "('p1', 'c', DATE '2026-11-02', 1, 3, 0, 0, 0, 0, now())"
    )
    old.close()
    con = open_warehouse(path, read_only=False)
    try:
        assert stored(con) == {"p1": {date(2026, 11, 1): 4, date(2026, 11, 2): 7}, "p2": {}}
    finally:
        con.close()
