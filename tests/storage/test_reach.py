"""Each post's stored reach (storage/reach.py): kept equal to its daily rows by the writer,
in the batch's own transaction, and filled once when an older file is migrated."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from channelkit.storage.reach import refresh_reach
from channelkit.storage.writer import WarehouseWriter
from fixtures.rows import day, days, post, posts, reach_kept, reach_summed

pytestmark = pytest.mark.calendar


def test_the_writer_keeps_each_posts_reach_equal_to_its_daily_rows(
    con: duckdb.DuckDBPyConnection,
) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    assert reach_kept(con) == {"p1": {}, "p2": {}}
    # A first batch of daily rows (the table was empty), with a day without a row.
    writer.commit_batch(
        "post_daily",
        days(day("p1", "2026-11-01", 30), day("p1", "2026-11-03", 5), day("p2", "2026-11-01", 7)),
    )
    assert reach_kept(con)["p1"] == {
        date(2026, 11, 1): 30,
        date(2026, 11, 2): 30,
        date(2026, 11, 3): 35,
    }
    assert reach_kept(con) == reach_summed(con)
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
    assert reach_kept(con) == reach_summed(con)
    assert reach_kept(con)["p1"][date(2026, 11, 4)] == 30 + 9 + 2
    assert min(reach_kept(con)["p2"]) == date(2026, 10, 31)
    # A batch of one late day: the post's earlier rows still count.
    writer.commit_batch("post_daily", days(day("p1", "2026-11-06", 1)))
    assert reach_kept(con)["p1"][date(2026, 11, 6)] == 30 + 9 + 2 + 1
    assert reach_kept(con) == reach_summed(con)
    # A post rewritten (its title and readers changed) keeps the reach of its daily rows.
    writer.commit_batch("posts", posts(post("p1", views=500, title="New"), post("p2")))
    assert reach_kept(con) == reach_summed(con) and reach_kept(con)["p1"]
    # A post whose daily rows were synced before the post itself.
    writer.commit_batch("post_daily", days(day("p3", "2026-11-02", 11)))
    writer.commit_batch("posts", posts(post("p3")))
    assert reach_kept(con)["p3"] == {date(2026, 11, 2): 11}
    assert reach_kept(con) == reach_summed(con)


def test_refresh_reach_recomputes_the_posts_asked_or_all(con: duckdb.DuckDBPyConnection) -> None:
    writer = WarehouseWriter(con)
    writer.commit_batch("posts", posts(post("p1"), post("p2")))
    writer.commit_batch("post_daily", days(day("p1", "2026-11-01", 3), day("p2", "2026-11-01", 4)))
    right = reach_kept(con)
    con.execute("UPDATE posts SET reach_from = NULL, reach_cumulative = NULL, reach_digits = NULL")
    refresh_reach(con, "SELECT 'p2'")
    assert reach_kept(con) == {"p1": {}, "p2": right["p2"]}
    refresh_reach(con)
    assert reach_kept(con) == right


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
    assert reach_kept(con)["p2"] == {date(2026, 11, 1): 3, date(2026, 11, 2): 2**62 + 3}
