"""How fast posts reach their readers: the reach curve."""

from __future__ import annotations

from datetime import UTC, date, timedelta

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import REACH_GRID_CELLS
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import instant_range
from channelkit.analysis.sql import Sql


def reach_curve(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, days: int, last_day: date
) -> tuple[pd.DataFrame, int]:
    """`day` 0..days and `share` of readers reached by then; and the number of posts.

    share(k) = Σ_posts min(readers, Σ unique_viewers over UTC dates pub..pub+k) ÷ Σ readers
    over the posts published at least `days` days before `last_day`. DuckDB hands over
    the cohort's daily rows of days 0..days as (post, day, unique viewers); the running
    totals are cumulative sums over a small posts × days grid in NumPy (a window function
    over the same rows takes several times longer).
    """
    where, params = flt.where("p")
    cohort = (
        Sql(
            "WITH cohort AS (SELECT (row_number() OVER () - 1)::BIGINT AS k, p.id, "
            "coalesce(p.views, 0) AS readers, timezone('UTC', p.published_at)::DATE AS pub "
            f"FROM posts p WHERE {where} AND timezone('UTC', p.published_at)::DATE + ? <= ? AND ",
            (*params, days, last_day),
        )
        + instant_range(period, "p.published_at")
        + Sql(") ")
    )
    # One row per (post, day with daily rows); a post without any gets one row of 0 on
    # day 0, so the cohort's size and readers come from the same rows.
    rows = (
        cohort
        + Sql(
            "SELECT c.k, coalesce(d.date - c.pub, 0)::BIGINT AS day, "
            "coalesce(d.unique_viewers, 0)::BIGINT AS uv, c.readers::BIGINT AS readers "
            "FROM cohort c LEFT JOIN post_daily d ON c.id = d.post_id "
            "AND d.date >= c.pub AND d.date <= c.pub + ? AND ",
            (days,),
        )
        + _daily_dates(period, days=days, last_day=last_day)
    )
    found = con.sql(rows.text, params=list(rows.params)).fetchnumpy()
    post, day_, uv, readers_ = (
        np.asarray(found[name], dtype=np.int64) for name in ("k", "day", "uv", "readers")
    )
    posts_count = int(post.max()) + 1 if len(post) else 0
    cap = np.zeros(posts_count, dtype=np.int64)
    cap[post] = readers_
    readers = int(cap.sum())
    reached = _reached(post, day_, uv, cap, width=days + 1)
    day = np.arange(days + 1)
    share = reached / readers if readers else np.full(len(day), np.nan)
    frame = pd.DataFrame({"day": pd.array(day, dtype="Int64"), "share": share.astype("float64")})
    return frame, posts_count


def _daily_dates(period: Period, *, days: int, last_day: date) -> Sql:
    """Constant bounds on `d.date` that hold for every cohort row, so DuckDB skips the
    daily rows of other months unread (bounds taken from the cohort by a subquery turn
    the join into a nested loop)."""
    latest = last_day
    if period.end is not None:
        latest = min(latest, period.end.astimezone(UTC).date() + timedelta(days=days))
    sql = Sql("d.date <= ?", (latest,))
    if period.start is not None:
        sql = sql + Sql(" AND d.date >= ?", (period.start.astimezone(UTC).date(),))
    return sql


def _reached(
    post: np.ndarray, day: np.ndarray, uv: np.ndarray, cap: np.ndarray, *, width: int
) -> np.ndarray:
    """Σ over posts p of min(cap[p], Σ uv of p's rows with day <= k), for k in 0..width-1.

    `post` numbers the posts 0..len(cap)-1 and (post, day) is unique (post_daily's key).
    Posts are summed a block at a time so the grid stays within REACH_GRID_CELLS cells.
    """
    block = max(1, REACH_GRID_CELLS // width)
    if len(cap) <= block:
        return _grid_sum(post, day, uv, cap, width=width)
    # Blocks of consecutive post numbers need the rows in that order.
    order = np.argsort(post, kind="stable")
    post, day, uv = post[order], day[order], uv[order]
    firsts = range(0, len(cap), block)
    edges = np.searchsorted(post, [*firsts, len(cap)])
    out = np.zeros(width, dtype=np.int64)
    for i, first in enumerate(firsts):
        rows = slice(edges[i], edges[i + 1])
        out += _grid_sum(
            post[rows] - first, day[rows], uv[rows], cap[first : first + block], width=width
        )
    return out


def _grid_sum(
    post: np.ndarray, day: np.ndarray, uv: np.ndarray, cap: np.ndarray, *, width: int
) -> np.ndarray:
    grid = np.zeros((len(cap), width), dtype=np.int64)
    grid[post, day] = uv
    reached: np.ndarray = np.minimum(np.cumsum(grid, axis=1), cap[:, None]).sum(axis=0)
    return reached
