"""The daily rows summed per channel and day, kept beside them: what unfiltered metrics read.

Every metric of a channel or of all channels (kpis, the trend, the channel comparison)
sums the daily rows of its days per channel and day first. Over a month and the eight
before it (the usual range) that is 7M of a 1M-post file's 10M rows, read on every call
(140 ms of the Explorer's 300); the sums are 50 channels × 380 days. So the writer keeps
them in `daily_totals`, and the read side (`analysis.rows.daily_sums`) reads them instead
of the rows when no post-level filter (tag, priority, author) has to pick single posts.

- `daily_totals` has one row per `(channel_id, date)` of `post_daily`: the sums of
  TOTAL_COLUMNS over the rows of the posts that are not deleted (the rows the metrics
  count, docs/metrics.md).

The writer recomputes whole dates (every channel of a date: the rows of a post that moved
channel leave one channel's sums and join another's), inside the batch's transaction: the
dates of the daily rows a batch writes, and the dates of the daily rows of posts that are
marked deleted or come back. A file migrated to the version that added the table, and the
warehouses tests and benches build directly, get it from `refresh_totals(con)`.
"""

from __future__ import annotations

from datetime import date

import duckdb

TOTAL_COLUMNS = ("views", "unique_viewers", "reactions", "comments", "shares", "clicks")


def refresh_totals(con: duckdb.DuckDBPyConnection, dates: str | None = None) -> None:
    """(Re)compute `daily_totals` for the dates the SQL query `dates` returns, or for every
    date (None), from `post_daily`; in the caller's transaction."""
    chosen: list[date] = []
    if dates is not None:
        chosen = [row[0] for row in con.execute(f"SELECT DISTINCT * FROM ({dates})").fetchall()]
        if not chosen:
            return
    con.execute(f"DELETE FROM daily_totals {_on(chosen, 'date')}", _params(chosen))
    # Deleted posts' rows never count; reading every row's post id to leave them out costs
    # more than the sums, so only when there are any.
    gone = con.execute(
        "SELECT EXISTS (SELECT 1 FROM posts WHERE deleted_at IS NOT NULL)"
    ).fetchall()[0][0]
    anti = (
        "ANTI JOIN (SELECT id FROM posts WHERE deleted_at IS NOT NULL) gone ON gone.id = d.post_id "
        if gone
        else ""
    )
    sums = ", ".join(f"sum(d.{c})::BIGINT" for c in TOTAL_COLUMNS)
    con.execute(
        f"INSERT INTO daily_totals (channel_id, date, {', '.join(TOTAL_COLUMNS)}) "
        f"SELECT d.channel_id, d.date, {sums} FROM post_daily d {anti}"
        f"{_on(chosen, 'd.date')} GROUP BY d.channel_id, d.date",
        _params(chosen),
    )


def _on(chosen: list[date], column: str) -> str:
    # The dates as a list parameter, bounded by the first and last so that DuckDB skips the
    # row groups of other days (a sync writes the daily rows roughly in date order).
    if not chosen:
        return ""
    return f"WHERE {column} BETWEEN ? AND ? AND {column} IN (SELECT unnest(?::DATE[]))"


def _params(chosen: list[date]) -> list[object]:
    return [min(chosen), max(chosen), chosen] if chosen else []


def dates_of_posts(post_ids: str) -> str:
    """The SQL query of the dates of the daily rows of the posts `post_ids` returns."""
    return f"SELECT DISTINCT date FROM post_daily WHERE post_id IN ({post_ids})"
