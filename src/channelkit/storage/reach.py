"""Each post's reach, kept with the post: its cumulative daily unique viewers by day.

A comparison at the same age counts a post's readers as they stood at a cutoff day: the
least of its lifetime readers and its daily unique viewers summed through that day
(docs/metrics.md). Summing them at read time means joining the cohort's posts with their
daily rows; so the writer keeps, on each post, the running sum from its first daily row
to its last, and the read side takes one value out of it (`analysis.metrics`).

- `posts.reach_from`: the date of the post's first `post_daily` row (NULL: none).
- `posts.reach_cumulative`: for every day from `reach_from` to the post's last daily row,
  its unique viewers summed through that day, each written as `reach_digits` decimal
  digits (a day without a row repeats the day before). The sum through day D is the
  `reach_digits` characters at `(D - reach_from) * reach_digits`.
- `posts.reach_digits`: the digits of the post's largest (last) sum, so that each post's
  text is as short as its numbers allow.

Text and not a list: DuckDB updates a VARCHAR in place but rewrites the whole row to update
a LIST column, and the writer updates these on every batch of daily rows (5,000 posts of a
1M-post file: 0.03 s against 0.5 s).

The values are derived from `post_daily` alone. The writer recomputes them with
`refresh_reach`, inside the batch's transaction, for every post whose daily rows a batch
inserts or changes and for every new post (its daily rows may have been synced first); a
post row rewritten by a batch keeps its own. A file migrated to the version that added
them, and the warehouses tests and benches build directly, get them from the same call.
"""

from __future__ import annotations

from datetime import date

import duckdb


def refresh_reach(
    con: duckdb.DuckDBPyConnection, post_ids: str | None = None, *, since: date | None = None
) -> None:
    """(Re)compute the REACH_COLUMNS of the posts whose ids the SQL query `post_ids`
    returns, or of every post (None), from their `post_daily` rows; in the caller's
    transaction.

    `since`, the first day of the daily rows a batch has just written, bounds the rows
    read: a post's other rows are no older than its stored `reach_from`, which the writer
    keeps, so nothing older than the earlier of the two is read (on a file whose daily
    rows lie in date order, DuckDB then skips most of them).
    """
    chosen = f"WHERE post_id IN ({post_ids})" if post_ids is not None else ""
    params: list[object] = []
    if since is not None:
        assert post_ids is not None
        chosen += (
            f" AND date >= least(?, (SELECT min(reach_from) FROM posts WHERE id IN ({post_ids})))"
        )
        params.append(since)
    con.execute(
        "UPDATE posts SET reach_from = r.reach_from, reach_cumulative = r.reach_cumulative, "
        "reach_digits = r.reach_digits FROM (SELECT post_id, min(date) AS reach_from, "
        "string_agg(repeat(lpad(running::VARCHAR, digits, '0'), days), '' ORDER BY date) "
        "AS reach_cumulative, any_value(digits) AS reach_digits FROM (SELECT post_id, date, "
        "sum(unique_viewers) OVER w AS running, "
        # a row stands for its own day and the days without a row up to the next one
        "coalesce(lead(date) OVER w - date, 1) AS days, "
        "length((sum(unique_viewers) OVER (PARTITION BY post_id))::VARCHAR)::INTEGER AS digits "
        f"FROM post_daily {chosen} WINDOW w AS (PARTITION BY post_id ORDER BY date)) "
        "GROUP BY post_id) r WHERE posts.id = r.post_id "
        "AND (posts.reach_from IS DISTINCT FROM r.reach_from "
        "OR posts.reach_cumulative IS DISTINCT FROM r.reach_cumulative "
        "OR posts.reach_digits IS DISTINCT FROM r.reach_digits)",
        params,
    )
