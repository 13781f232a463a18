"""How fast posts reach their readers: the reach curve."""

from __future__ import annotations

from datetime import date

import duckdb
import numpy as np
import pandas as pd

from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import instant_range
from channelkit.analysis.sql import Sql, first_row


def reach_curve(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, days: int, last_day: date
) -> tuple[pd.DataFrame, int]:
    """`day` 0..days and `share` of readers reached by then; and the number of posts.

    share(k) = Σ_posts min(readers, Σ unique_viewers over UTC dates pub..pub+k) ÷ Σ readers
    over the posts published at least `days` days before `last_day`. Computed from the
    steps of each post's capped running total (min(R, seen) - min(R, seen before the
    row)), so only the daily rows that exist are read.
    """
    where, params = flt.where("p")
    cohort = (
        Sql(
            "WITH cohort AS (SELECT p.id, coalesce(p.views, 0) AS readers, "
            "timezone('UTC', p.published_at)::DATE AS pub FROM posts p "
            f"WHERE {where} AND timezone('UTC', p.published_at)::DATE + ? <= ? AND ",
            (*params, days, last_day),
        )
        + instant_range(period, "p.published_at")
        + Sql(") ")
    )
    # The explicit date range lets DuckDB skip the daily rows of other months unread; the
    # running total before a row is `seen - uv`, so one window function is enough.
    steps = cohort + Sql(
        ", running AS (SELECT d.date - c.pub AS day, c.readers, d.unique_viewers AS uv, "
        "sum(d.unique_viewers) OVER (PARTITION BY d.post_id ORDER BY d.date "
        "ROWS UNBOUNDED PRECEDING) AS seen "
        "FROM post_daily d JOIN cohort c ON c.id = d.post_id "
        "WHERE d.date >= (SELECT min(pub) FROM cohort) "
        "AND d.date <= (SELECT max(pub) FROM cohort) + ? "
        "AND d.date >= c.pub AND d.date <= c.pub + ?) "
        "SELECT day, sum(least(readers, seen) - least(readers, seen - uv))::BIGINT "
        "FROM running GROUP BY 1",
        (days, days),
    )
    totals = cohort + Sql("SELECT count(*), coalesce(sum(readers), 0)::BIGINT FROM cohort")
    reached = dict(con.execute(steps.text, list(steps.params)).fetchall())
    row = first_row(con, totals.text, totals.params)
    assert row is not None  # an aggregate without GROUP BY always returns one row
    posts_count, readers = int(row[0]), int(row[1])
    day = np.arange(days + 1)
    running = np.cumsum([int(reached.get(int(k), 0)) for k in day])
    share = running / readers if readers else np.full(len(day), np.nan)
    frame = pd.DataFrame({"day": pd.array(day, dtype="Int64"), "share": share.astype("float64")})
    return frame, posts_count
