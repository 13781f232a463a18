"""How fast posts reach their readers: the reach curve."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, timedelta

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import (
    KPI_SETTLED_SHARE,
    REACH_CURVE_DAYS,
    REACH_GRID_CELLS,
    REACH_TIME_SHARE,
    REACH_TIME_WINDOW_DAYS,
    SETTLE_DAYS,
)
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import instant_range
from channelkit.analysis.sql import Sql
from channelkit.display.columns import declare
from channelkit.display.kinds import COUNT, RATE


@dataclass(frozen=True)
class ReachTimes:
    """Each channel's typical reach time in days (`reach_times`), as of `last_day`.

    times = reach_times(con, None, last_day=date(2026, 11, 24))
    times.days.get("ch_1", SETTLE_DAYS)   # 3: 90% of its readers by the 4th UTC day
    times.table()                          # SQL: reach_time (channel_id, days)
    """

    days: dict[str, int]
    last_day: date
    curves: dict[str, list[float]] = field(default_factory=dict)  # share by day 0..14

    def table(self) -> Sql:
        """`reach_time AS (...)`: (channel_id, settled_by, curve) for the channels measured:
        the last UTC day of publication of a post that has had its channel's reach time,
        and the channel's reach curve (share of readers by day 0, 1, ...)."""
        names = sorted(self.days)
        return Sql(
            "reach_time AS (SELECT unnest(?::VARCHAR[]) AS channel_id, "
            "unnest(?::DATE[]) AS settled_by, unnest(?::DOUBLE[][]) AS curve)",
            (
                names,
                [self.last_day - timedelta(days=self.days[n]) for n in names],
                [self.curves.get(n, []) for n in names],
            ),
        )

    def at_lifetime(self, rate: str, published: str, channel: str) -> Sql:
        """`rate` (a post's read rate so far) as its channel's posts' lifetime read rate
        would stand at the same age: divided by the channel's share of readers reached by
        the post's age (its reach curve), unchanged once the curve has ended."""
        return Sql(
            f"{rate} / coalesce(nullif({channel}.curve[(?::DATE - "
            f"timezone('UTC', {published})::DATE) + 1], 0), 1)",
            (self.last_day,),
        )

    def settled(self, published: str, channel: str) -> Sql:
        """A condition: the post (its `published` instant, its row of `reach_time` joined
        as `channel`) has had its channel's reach time (SETTLE_DAYS where unmeasured)."""
        return Sql(
            f"timezone('UTC', {published})::DATE <= coalesce({channel}.settled_by, ?)",
            (self.last_day - timedelta(days=SETTLE_DAYS),),
        )


REACH_CURVE = declare("reach_curve", dict(day=COUNT, share=RATE))


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
    chosen = Sql(
        f"{where} AND timezone('UTC', p.published_at)::DATE + ? <= ? AND ",
        (*params, days, last_day),
    ) + instant_range(period, "p.published_at")
    dates = _daily_dates(period, days=days, last_day=last_day)
    found = _cohort_rows(con, chosen, days=days, dates=dates)
    post, day_, uv, readers_ = (found[name] for name in ("k", "day", "uv", "readers"))
    posts_count = int(post.max()) + 1 if len(post) else 0
    cap = np.zeros(posts_count, dtype=np.int64)
    cap[post] = readers_
    readers = int(cap.sum())
    reached = _reached(post, day_, uv, cap, width=days + 1)[0]
    day = np.arange(days + 1)
    share = reached / readers if readers else np.full(len(day), np.nan)
    frame = pd.DataFrame({"day": pd.array(day, dtype="Int64"), "share": share.astype("float64")})
    return frame, posts_count


def _cohort_rows(
    con: duckdb.DuckDBPyConnection,
    chosen: Sql,
    *,
    days: int,
    dates: Sql,
    by_channel: bool = False,
) -> dict[str, np.ndarray]:
    """The daily rows of days 0..days of the posts `chosen` (a condition on `posts p`) on
    the days `dates` (a condition on `post_daily d`), as int64 arrays: `k` (the post's
    number, 0..), `day`, `uv` (unique viewers), `readers`; with `by_channel`, also `ch`,
    the number of the post's channel in `channel_order` (an integer: a string per row
    costs more to hand over than the rest of the row)."""
    cohort = (
        Sql(
            "WITH cohort AS (SELECT (row_number() OVER () - 1)::BIGINT AS k, p.id, "
            f"{'o.ch' if by_channel else 'NULL'} AS ch, coalesce(p.views, 0) AS readers, "
            "timezone('UTC', p.published_at)::DATE AS pub FROM posts p "
            f"{_CHANNEL_NUMBER if by_channel else ''}WHERE "
        )
        + chosen
        + Sql(") ")
    )
    # One row per (post, day with daily rows); a post without any gets one row of 0 on
    # day 0, so the cohort's size and readers come from the same rows.
    rows = (
        cohort
        + Sql(
            "SELECT c.k, c.ch, "
            "coalesce(d.date - c.pub, 0)::BIGINT AS day, "
            "coalesce(d.unique_viewers, 0)::BIGINT AS uv, c.readers::BIGINT AS readers "
            "FROM cohort c LEFT JOIN post_daily d ON c.id = d.post_id "
            "AND d.date >= c.pub AND d.date <= c.pub + ? AND ",
            (days,),
        )
        + dates
    )
    found = con.sql(rows.text, params=list(rows.params)).fetchnumpy()
    out = {name: np.asarray(found[name], dtype=np.int64) for name in ("k", "day", "uv", "readers")}
    if by_channel:
        out["ch"] = np.asarray(found["ch"], dtype=np.int64)
    return out


# A channel's number: its place among all channel ids in order (`channel_order`).
_CHANNEL_NUMBER = (
    "JOIN (SELECT id, (row_number() OVER (ORDER BY id) - 1)::BIGINT AS ch FROM channels) o "
    "ON o.id = p.channel_id "
)


def channel_order(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [str(row[0]) for row in con.execute("SELECT id FROM channels ORDER BY id").fetchall()]


def reach_times(
    con: duckdb.DuckDBPyConnection, channel_ids: tuple[str, ...] | None, *, last_day: date
) -> ReachTimes:
    """Each channel's typical reach time: the first day k of its reach curve by which its
    posts have REACH_TIME_SHARE of their readers (REACH_CURVE_DAYS if never), over the
    posts published in the REACH_TIME_WINDOW_DAYS before the curve's cohort ends (posts
    REACH_CURVE_DAYS days old); a channel without such posts gets SETTLE_DAYS."""
    days = REACH_CURVE_DAYS
    found = _window_rows(con, channel_ids, last_day, by_channel=True)
    post, day_, uv, readers_ = (found[name] for name in ("k", "day", "uv", "readers"))
    if not len(post):
        return ReachTimes({}, last_day)
    names = channel_order(con)
    count = int(post.max()) + 1
    cap = np.zeros(count, dtype=np.int64)
    cap[post] = readers_
    channel = np.zeros(count, dtype=np.int64)
    channel[post] = found["ch"]
    reached = _reached(post, day_, uv, cap, width=days + 1, group=channel, groups=len(names))
    totals = np.bincount(channel, weights=cap, minlength=len(names))
    out: dict[str, int] = {}
    curves: dict[str, list[float]] = {}
    for number in np.flatnonzero(totals > 0):
        name, total = names[number], totals[number]
        enough = np.flatnonzero(reached[number] >= REACH_TIME_SHARE * total)
        out[name] = int(enough[0]) if len(enough) else days
        curves[name] = [float(v) for v in reached[number] / total]
    return ReachTimes(out, last_day, curves)


def settled_days(
    con: duckdb.DuckDBPyConnection, channel_ids: tuple[str, ...] | None, *, last_day: date
) -> int:
    """The age in UTC days (0 = the day of publication) by which the posts of the channels
    (the workspace's without `channel_ids`) have KPI_SETTLED_SHARE of their readers: the
    first such day of their reach curve over the posts of the reach time's window
    (`reach_times`);
    REACH_CURVE_DAYS when the curve never gets there or there are no such posts yet (a
    young warehouse: its numbers are taken as still growing)."""
    days = REACH_CURVE_DAYS
    found = _window_rows(con, channel_ids, last_day)
    post, day_, uv, readers_ = (found[name] for name in ("k", "day", "uv", "readers"))
    if not len(post):
        return days
    cap = np.zeros(int(post.max()) + 1, dtype=np.int64)
    cap[post] = readers_
    reached = _reached(post, day_, uv, cap, width=days + 1)[0]
    enough = np.flatnonzero(reached >= KPI_SETTLED_SHARE * cap.sum())
    return int(enough[0]) if len(enough) and cap.sum() > 0 else days


def _window_rows(
    con: duckdb.DuckDBPyConnection,
    channel_ids: tuple[str, ...] | None,
    last_day: date,
    *,
    by_channel: bool = False,
) -> dict[str, np.ndarray]:
    """`_cohort_rows` of the reach time's window: the posts published in the
    REACH_TIME_WINDOW_DAYS before the day REACH_CURVE_DAYS before `last_day`."""
    newest = last_day - timedelta(days=REACH_CURVE_DAYS)
    oldest = newest - timedelta(days=REACH_TIME_WINDOW_DAYS)
    where, params = PostFilter(channel_ids=channel_ids).where("p")
    chosen = Sql(
        f"{where} AND p.published_at IS NOT NULL "
        "AND timezone('UTC', p.published_at)::DATE BETWEEN ? AND ?",
        (*params, oldest, newest),
    )
    dates = Sql("d.date BETWEEN ? AND ?", (oldest, last_day))
    return _cohort_rows(con, chosen, days=REACH_CURVE_DAYS, dates=dates, by_channel=by_channel)


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
    post: np.ndarray,
    day: np.ndarray,
    uv: np.ndarray,
    cap: np.ndarray,
    *,
    width: int,
    group: np.ndarray | None = None,
    groups: int = 1,
) -> np.ndarray:
    """Σ over posts p of min(cap[p], Σ uv of p's rows with day <= k), for k in 0..width-1,
    per group of posts (`group[p]` in 0..groups-1; one group without it): groups × width.

    `post` numbers the posts 0..len(cap)-1 and (post, day) is unique (post_daily's key).
    Posts are summed a block at a time so the grid stays within REACH_GRID_CELLS cells.
    """
    block = max(1, REACH_GRID_CELLS // width)
    out = np.zeros((groups, width), dtype=np.int64)
    if len(cap) > block:  # blocks of consecutive post numbers need the rows in that order
        order = np.argsort(post, kind="stable")
        post, day, uv = post[order], day[order], uv[order]
    firsts = range(0, len(cap), block)
    edges = np.searchsorted(post, [*firsts, len(cap)]) if len(cap) > block else [0, len(post)]
    for i, first in enumerate(firsts):
        rows = slice(edges[i], edges[i + 1])
        grid = np.zeros((len(cap[first : first + block]), width), dtype=np.int64)
        grid[post[rows] - first, day[rows]] = uv[rows]
        capped = np.minimum(np.cumsum(grid, axis=1), cap[first : first + block, None])
        if group is None:
            out[0] += capped.sum(axis=0)
        else:
            np.add.at(out, group[first : first + block], capped)
    return out
