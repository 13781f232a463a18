"""The daily rows summed per channel and day, kept beside them: what unfiltered metrics read.

Every metric of a channel or of all channels (kpis, the trend, the channel comparison)
sums the daily rows of its days per channel and day first. Over a month and the eight
before it (the usual range) that is 7M of a 1M-post file's 10M rows, read on every call
(140 ms of the Explorer's 300); the sums are 50 channels × 380 days. So the writer keeps
them in `daily_totals`, and the read side (`analysis.rows.daily_sums`) reads them instead
of the rows when no post-level filter (tag, priority, author) has to pick single posts.

- `daily_totals` has one row per `(channel_id, date)` that has daily rows that count (those
  of posts not deleted, docs/metrics.md): `row_count`, how many, and the sums of TOTAL_COLUMNS.

The writer shifts the sums by what each batch changes, in the batch's transaction: it adds
the rows a batch writes and takes away the rows they replace; it takes away a post's rows
when the post is marked deleted and adds them back when it comes back. That costs what the
batch costs, whatever order the server lists rows in (recomputing the days a batch touches
would read all their rows again, every batch). A file migrated to the version that added
the table, and the warehouses tests and benches build directly, get it from
`refresh_totals`, which sums every row.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

TOTAL_COLUMNS = ("views", "unique_viewers", "reactions", "comments", "shares", "clicks")
_DELTA = "_ck_totals_delta"


def refresh_totals(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute all of `daily_totals` from `post_daily`, in the caller's transaction."""
    con.execute("DELETE FROM daily_totals")
    con.execute(
        f"INSERT INTO daily_totals (channel_id, date, row_count, {', '.join(TOTAL_COLUMNS)}) "
        f"{_sums(counted('SELECT * FROM post_daily'), 1)}"
    )


def shift_totals(
    con: duckdb.DuckDBPyConnection, rows: str, sign: int, params: Sequence[object] = ()
) -> None:
    """Add (`sign` 1) or take away (-1) the daily rows the SQL query `rows` (given `params`)
    returns, with the columns of `post_daily`, to or from `daily_totals`, in the caller's
    transaction. The caller chooses the rows: those that count, or counted until now."""
    con.execute(f"CREATE TEMP TABLE {_DELTA} AS {_sums(rows, sign)}", list(params))
    try:
        match = f"t.channel_id = {_DELTA}.channel_id AND t.date = {_DELTA}.date"
        columns = ("row_count", *TOTAL_COLUMNS)
        con.execute(
            "UPDATE daily_totals t SET "
            + ", ".join(f"{c} = t.{c} + {_DELTA}.{c}" for c in columns)
            + f" FROM {_DELTA} WHERE {match}"
        )
        con.execute(
            f"INSERT INTO daily_totals (channel_id, date, {', '.join(columns)}) "
            f"SELECT * FROM {_DELTA} WHERE NOT EXISTS "
            f"(SELECT 1 FROM daily_totals t WHERE {match})"
        )
        # A day and channel left without rows has no sums (as if summed from the rows).
        con.execute("DELETE FROM daily_totals WHERE row_count = 0")
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_DELTA}")


def counted(rows: str) -> str:
    """The daily rows of the SQL query `rows` that count: those of posts not deleted."""
    return (
        f"SELECT r.* FROM ({rows}) r ANTI JOIN "
        "(SELECT id FROM posts WHERE deleted_at IS NOT NULL) gone ON gone.id = r.post_id"
    )


def shift_posts(
    con: duckdb.DuckDBPyConnection, post_ids: str, sign: int, params: Sequence[object] = ()
) -> None:
    """`shift_totals` by all the daily rows of the posts the SQL query `post_ids` (given
    `params`) returns: posts about to be marked deleted (-1), or that came back (1)."""
    # Finding a post's rows reads every row's post id: not for a batch without such posts.
    if con.execute(f"SELECT count(*) FROM ({post_ids})", list(params)).fetchall()[0][0]:
        rows = f"SELECT * FROM post_daily WHERE post_id IN ({post_ids})"
        shift_totals(con, rows, sign, params)


def _sums(rows: str, sign: int) -> str:
    sums = ", ".join(f"{sign} * sum(r.{c})::BIGINT AS {c}" for c in TOTAL_COLUMNS)
    return (
        f"SELECT r.channel_id, r.date, {sign} * count(*)::BIGINT AS row_count, {sums} "
        f"FROM ({rows}) r GROUP BY r.channel_id, r.date"
    )
