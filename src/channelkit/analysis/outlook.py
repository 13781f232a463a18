"""Will this post land? Each young post's final readers forecast from its readers so far,
with an interval from its channel's own past errors; and how each channel's posts decay
(definitions and a worked example: docs/metrics.md, "Outlook").

Szabo and Huberman (2008): the log of an item's settled count is the log of its early
count plus a constant of its channel and age. Each channel aims at its own settled age
S_c (`settled_ages`: the first age by which its posts have 99% of their readers at 28
days). For a post of age a (whole UTC days since its day of publication: daily rows cannot
see hours) with x readers so far, over its channel's posts settled on the day of the
forecast and published on the same weekday (so their first a days covered the same
weekdays: weekends gather fewer readers):

    ratio of such a post  = log(1 + its readers by the day of the forecast, at most its
                            readers at 28 days) - log(1 + its readers at age a)
    forecast              = (1 + x) · exp(median ratio) - 1, rounded, never below x
    80% interval          = the same with the ratios' 10% and 90% quantiles at plotting
                            positions p(n + 1): split conformal prediction in its Mondrian
                            form, the classes channel × age × weekday ("pinterval_mondrian":
                            coverage holds within each class when its scores are
                            exchangeable, rdocumentation.org/packages/pintervals)

    history = History(load_readers(con, flt, first=None, last=L), last=day_number(L),
                      fallback=S)
    judged = history.judge(targets)   # channel_id, day, age_days, readers, audience
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from channelkit._constants import (
    OUTLOOK_BACKTEST_AGES,
    OUTLOOK_HIGH,
    OUTLOOK_HISTORY_DAYS,
    OUTLOOK_HORIZON_DAYS,
    OUTLOOK_LOW,
    OUTLOOK_MAX_POSTS,
    OUTLOOK_MIN_AGE_DAYS,
    OUTLOOK_MIN_CLASS_POSTS,
    OUTLOOK_MIN_POSTS,
    OUTLOOK_NEWS_SHARE,
    OUTLOOK_SCAN_DAYS,
    OUTLOOK_SCAN_MARGIN,
    OUTLOOK_SETTLE_SHARE,
)
from channelkit._tz import UTC_ZONE
from channelkit.analysis.dtypes import to_frame
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import Only, cohort_rows, instant_range
from channelkit.analysis.sql import Sql
from channelkit.display.columns import declare
from channelkit.display.kinds import COUNT, DAYS, RATE, RATIO

EPOCH = date(1970, 1, 1)
ON_TRACK, AHEAD, BEHIND = "on track", "ahead", "behind"
TOO_EARLY = "too early to say"
TOO_FEW = "too few settled posts to forecast"
VERDICTS = (ON_TRACK, AHEAD, BEHIND, TOO_EARLY, TOO_FEW)
WHOLE_TOLERANCE = 1e-6  # readers: far above the float error of exp(log(x)), far below 1
RESOLUTION = "whole UTC days: daily rows cannot see the hour a reader came"


def day_number(day: date) -> int:
    """Days since 1970-01-01 (the `day` columns of this module)."""
    return (day - EPOCH).days


# A post's UTC day of publication (as rows.cohort_rows takes it).
_PUB = "make_timestamp(epoch_us(p.published_at))::DATE"


def load_readers(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    *,
    first: date | None,
    last: date,
    horizon: int = OUTLOOK_HORIZON_DAYS,
    recent: int | None = None,
    until: int | None = None,
    tz: ZoneInfo = UTC_ZONE,
) -> pd.DataFrame:
    """The posts published from `first` (all without it) through `last`, with their readers
    at each age 0..horizon (`at_0`...: unique viewers summed from the day of publication,
    at most the post's lifetime readers, as the reach curve counts them) and `final`, their
    readers at the end of the synced history (the same sum through `last`; with `until`,
    through age `until` at most: the daily rows after it are not read).

    Every post of the filtered channels is read (the tag, priority and author filters
    become `selected`): a channel's history is all its posts. With `recent`, only each
    channel's `recent` latest posts published by `last - horizon` are kept, beside the
    younger ones (every channel settles by the horizon, so the older ones hold its
    history). Columns: post_id, title, channel_id, channel, published_at, day (days since
    1970-01-01 of the UTC date of publication), readers (lifetime), audience, selected,
    at_0..at_{horizon}, final.
    """
    period = _days(first, last)
    only = None
    if recent is not None:
        # From the earliest day kept on: fewer posts to join, fewer daily rows to read.
        newest = last - timedelta(days=horizon)
        only, first = _recent_only(con, flt, period, newest, recent)
        period = _days(first, last)
    bounds = Sql("d.date <= ?", (last,))
    if first is not None:
        bounds = bounds + Sql(" AND d.date >= ?", (first,))
    older = "" if until is None else f"d.date <= c.pub + {until} AND "
    # The posts first (titles read with them, not joined to their daily rows), then their
    # daily rows as (row of the post, age, unique viewers) integers, every age past the
    # horizon as horizon + 1, summed into ages in numpy: no grouping in SQL (grouping the
    # daily rows by post into lists cost a third of the outlook; by post and age, or a
    # FILTER a column, more).
    sql = (
        Sql("WITH cohort AS (")
        + cohort_rows(flt, [period], baseline=True, only=only, titled=True)
        + Sql(
            "), kept AS (SELECT c.*, ch.name AS channel, "
            "make_timestamp(epoch_us(c.published_at))::DATE AS pub FROM cohort c "
            "LEFT JOIN channels ch ON ch.id = c.channel_id) SELECT c.id AS post_id, c.title, "
            "c.channel_id, c.channel, c.published_at, (c.pub - DATE '1970-01-01')::BIGINT AS "
            "day, c.readers, c.audience, c.selected, c.pub FROM kept c"
        )
    )
    table = con.sql(sql.text, params=list(sql.params)).to_arrow_table()
    order = [("channel_id", "ascending"), ("day", "ascending"), ("post_id", "ascending")]
    table = table.take(pc.sort_indices(table, sort_keys=order))
    grid = _by_age(con, table, horizon, Sql(older) + bounds)
    frame = to_frame(table.drop_columns(["pub"]), tz)
    readers = frame["readers"].to_numpy(dtype="float64", na_value=0.0)
    cumulative = np.minimum(np.cumsum(grid, axis=1), readers[:, None]).astype("int64")
    ages = {f"at_{a}": cumulative[:, a] for a in range(horizon + 1)}
    frame = pd.concat([frame, pd.DataFrame(ages, index=frame.index)], axis=1)
    frame["final"] = cumulative[:, -1]
    return frame


def _by_age(
    con: duckdb.DuckDBPyConnection, posts: pa.Table, horizon: int, bounds: Sql
) -> np.ndarray:
    """Posts × (horizon + 2) unique viewers per age of the posts of `posts` (post_id, pub:
    the day of publication) from their daily rows within `bounds` (on `d.date`, `c.pub`;
    the last column: every day past the horizon). The posts reach DuckDB as an arrow
    table registered on the connection for this query alone (DuckDB reads an arrow
    table in place, "Import from Apache Arrow", duckdb.org/docs/guides/python/
    import_arrow.html), so the daily rows are joined to the chosen posts without
    choosing them again."""
    width = horizon + 2
    name = f"_outlook_posts_{uuid.uuid4().hex}"
    keys = pa.table(
        {
            "id": posts.column("post_id"),
            "pub": posts.column("pub"),
            "k": pa.array(np.arange(posts.num_rows, dtype="int64")),
        }
    )
    con.register(name, keys)
    try:
        sql = (
            Sql(
                f"SELECT c.k, least(d.date - c.pub, {horizon + 1})::BIGINT AS age, "
                f"d.unique_viewers::BIGINT AS seen FROM {name} c JOIN post_daily d "
                "ON d.post_id = c.id AND d.date >= c.pub AND "
            )
            + bounds
        )
        daily = con.sql(sql.text, params=list(sql.params)).to_arrow_table()
    finally:
        con.unregister(name)
    post, age, seen = (
        pc.fill_null(daily.column(c), 0).to_numpy().astype("int64") for c in ("k", "age", "seen")
    )
    summed = np.bincount(
        post * width + age, weights=seen.astype("float64"), minlength=posts.num_rows * width
    )
    return summed.reshape(posts.num_rows, width)


def _days(first: date | None, last: date) -> Period:
    """The UTC days from `first` (the beginning without it) through `last`."""
    start = None if first is None else datetime.combine(first, time(), tzinfo=UTC)
    end = datetime.combine(last + timedelta(days=1), time(), tzinfo=UTC)
    return Period(tz=UTC_ZONE, start=start, end=end)


def _recent_only(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    newest: date,
    recent: int,
) -> tuple[Only, date]:
    """Each channel's `recent` latest posts published by `newest` (at least: every post of
    the day of its `recent`-th, `History.window` takes the exact ones) and every post
    after it, as `cohort_rows` keeps them (from the earliest day returned on)."""
    since = _since(con, flt, period, newest, recent)
    names = sorted(since)
    earliest = min(since.values(), default=newest + timedelta(days=1))
    join = Sql(
        "LEFT JOIN (SELECT unnest(?::VARCHAR[]) AS channel_id, unnest(?::DATE[]) AS since) s "
        "ON s.channel_id = p.channel_id",
        (names, [since[n] for n in names]),
    )
    condition = Sql(f"({_PUB} > ? OR {_PUB} >= s.since)", (newest,))
    return Only(join, condition), earliest


def _since(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, newest: date, recent: int
) -> dict[str, date]:
    """Per channel with posts in `period` published by `newest`: the newest day by which
    it has `recent` of them (or its first day). From the channels' posts per day (a few
    rows: the posts are counted, not sorted), over the last OUTLOOK_SCAN_DAYS days to
    `newest` first, widened until every channel has `recent` posts in it or it spans
    `period`: a busy workspace's channels have theirs within days, and a narrow range of
    `published_at` lets DuckDB skip the row groups outside it by their min/max (zone
    maps, "Indexing", duckdb.org/docs/current/guides/performance/indexing.html; as far
    as the posts are stored roughly in order of publication), where half a year of
    posts cost more than the rest of the outlook. A channel in `channels` without such
    a post makes it read the whole period."""
    where, params = PostFilter(channel_ids=flt.channel_ids).where("p")
    known_sql = "SELECT count(*) FROM channels"
    known_params: list[object] = []
    if flt.channel_ids is not None:
        known_sql += " WHERE id = ANY(?::VARCHAR[])"
        known_params.append(list(flt.channel_ids))
    found = con.execute(known_sql, known_params).fetchone()
    known = 0 if found is None else int(found[0])
    first = None if period.start is None else period.start.date()
    days = OUTLOOK_SCAN_DAYS
    while True:
        lower = newest - timedelta(days=days - 1)
        whole = first is None or lower <= first
        start = _days(lower, newest).start
        window = period if whole else Period(tz=UTC_ZONE, start=start, end=period.end)
        counted = (
            Sql(
                "SELECT channel_id, min(pub) FILTER (WHERE newer < ?), max(newer + posts) "
                "FROM (SELECT channel_id, pub, posts, sum(posts) OVER (PARTITION BY channel_id "
                "ORDER BY pub DESC) - posts AS newer FROM "
                f"(SELECT p.channel_id, {_PUB} AS pub, count(*) AS posts FROM posts p "
                f"WHERE {where} AND {_PUB} <= ? AND ",
                (recent, *params, newest),
            )
            + instant_range(window, "p.published_at")
            + Sql(" GROUP BY ALL)) GROUP BY ALL")
        )
        rows = con.execute(counted.text, list(counted.params)).fetchall()
        enough = len(rows) >= known and all(total >= recent for _, _, total in rows)
        if whole or enough:
            return {str(c): day for c, day, _ in rows}
        # Widened to where the sparsest channel's pace in this window reaches `recent`
        # posts, with OUTLOOK_SCAN_MARGIN to spare (at least doubled; a channel without a
        # post here: the whole period), so a quiet workspace costs two reads, not six.
        fewest = min((int(total) for _, _, total in rows), default=0) if len(rows) >= known else 0
        days = (
            OUTLOOK_HISTORY_DAYS + OUTLOOK_HORIZON_DAYS
            if fewest == 0
            else max(2 * days, math.ceil(days * recent / fewest * OUTLOOK_SCAN_MARGIN))
        )


def channel_settles(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, *, last: date, fallback: int
) -> dict[str, Settles]:
    """`settled_ages` on `last`: the same rule on the same posts (each channel's
    OUTLOOK_MAX_POSTS latest published at least OUTLOOK_HORIZON_DAYS before it, within
    OUTLOOK_HISTORY_DAYS), from those posts' daily rows alone (no title, audience or
    channel name: `load_readers` joins those for every post), summed per post and age in
    numpy (a running sum in SQL, a window over 10,000 posts, cost more than the whole
    outlook's reading)."""
    horizon = OUTLOOK_HORIZON_DAYS
    newest = last - timedelta(days=horizon)
    period = _days(last - timedelta(days=horizon + OUTLOOK_HISTORY_DAYS - 1), last)
    since = _since(con, flt, period, newest, OUTLOOK_MAX_POSTS)
    names = sorted(since)
    earliest = min(since.values(), default=newest)
    where, params = PostFilter(channel_ids=flt.channel_ids).where("p")
    sql = Sql(
        "WITH since AS (SELECT unnest(?::VARCHAR[]) AS channel_id, unnest(?::DATE[]) AS since) "
        f"SELECT p.id AS post_id, p.channel_id, {_PUB} AS pub, coalesce(p.views, 0) AS readers "
        f"FROM posts p JOIN since s ON s.channel_id = p.channel_id WHERE {where} AND "
        f"p.published_at >= ? AND {_PUB} <= ? AND {_PUB} >= s.since",
        (names, [since[n] for n in names], *params, _days(earliest, newest).start, newest),
    )
    table = con.sql(sql.text, params=list(sql.params)).to_arrow_table()
    # Each channel's latest OUTLOOK_MAX_POSTS, newest day first, then by id: numbered
    # here (a window numbering them in SQL cost as much as reading their daily rows).
    order = [("channel_id", "ascending"), ("pub", "descending"), ("post_id", "descending")]
    table = table.take(pc.sort_indices(table, sort_keys=order))
    channel = np.asarray(table.column("channel_id").to_pylist(), dtype=object)
    starts = _run_starts(channel)
    nth = np.arange(len(channel)) - np.repeat(starts, np.diff(np.r_[starts, len(channel)]))
    table = table.filter(pa.array(nth < OUTLOOK_MAX_POSTS))
    channel = channel[nth < OUTLOOK_MAX_POSTS]
    window = Sql(f"d.date <= c.pub + {horizon} AND d.date >= ? AND d.date <= ?", (earliest, last))
    daily = _by_age(con, table, horizon, window)[:, : horizon + 1]
    lifetime = table.column("readers").to_numpy().astype("float64")
    by_age = np.minimum(np.cumsum(daily, axis=1), lifetime[:, None])
    firsts = _run_starts(channel)
    chosen = [str(channel[k]) for k in firsts]
    per_channel = np.add.reduceat(by_age, firsts, axis=0) if len(firsts) else by_age
    reached = dict(zip(chosen, per_channel, strict=True))
    counts = np.diff(np.r_[firsts, len(channel)])
    posts = {name: int(n) for name, n in zip(chosen, counts, strict=True)}
    pooled = sum(posts.values())
    found = (
        _settle_age(np.sum([*reached.values(), np.zeros(horizon + 1)], axis=0))
        if pooled >= OUTLOOK_MIN_POSTS
        else None
    )
    workspace = Settles(fallback if found is None else max(found, 1), WORKSPACE, pooled)
    out = {"": workspace}
    for name in sorted(posts):
        own = _settle_age(reached[name]) if posts[name] >= OUTLOOK_MIN_POSTS else None
        # At least a day: the forecast of a post of age 1 or more always has a target ahead.
        out[name] = Settles(max(own, 1), OWN, posts[name]) if own is not None else workspace
    return out


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Where each run of equal neighbours in `values` begins."""
    if not len(values):
        return np.zeros(0, dtype="int64")
    return np.flatnonzero(np.r_[True, values[1:] != values[:-1]])


def recent_readers(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    *,
    last: date,
    settles: dict[str, Settles],
    tz: ZoneInfo = UTC_ZONE,
) -> pd.DataFrame:
    """`load_readers` of the posts a forecast on `last` needs, at ages up to the latest of
    the channels' settled ages (`settles`, from `channel_settles`) and `final` at most at
    OUTLOOK_HORIZON_DAYS: the young ones, and each channel's OUTLOOK_MAX_POSTS latest
    settled within OUTLOOK_HISTORY_DAYS (`History.window`). Reading to each channel's own
    settled age, not the horizon, keeps out the posts of the weeks between (most of them,
    on a busy workspace)."""
    aim = max(s.days for s in settles.values())
    start = last - timedelta(days=aim + OUTLOOK_HISTORY_DAYS - 1)
    return load_readers(
        con,
        flt,
        first=start,
        last=last,
        horizon=aim,
        recent=OUTLOOK_MAX_POSTS,
        until=OUTLOOK_HORIZON_DAYS,
        tz=tz,
    )


def ages_of(frame: pd.DataFrame) -> np.ndarray:
    """The posts × (horizon + 1) readers at each age of `load_readers`' frame."""
    columns = [c for c in frame.columns if str(c).startswith("at_")]
    return frame[columns].to_numpy(dtype="float64", na_value=0.0)


def weekday_of(day: np.ndarray) -> np.ndarray:
    """Monday 0 .. Sunday 6 of days since 1970-01-01 (a Thursday)."""
    return (day + 3) % 7


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
OWN, WORKSPACE = "its posts", "the workspace's"


@dataclass(frozen=True)
class Settles:
    """Where a channel's posts stop gaining readers: `days` (the age its forecast aims
    at), whose posts said so (`source`: "its posts" or "the workspace's") and how many."""

    days: int
    source: str
    posts: int


def _settle_day(grid: np.ndarray) -> int | None:
    """The first age by which the posts of `grid` (posts × ages 0..horizon) have
    OUTLOOK_SETTLE_SHARE of their readers at the horizon; None without readers."""
    return _settle_age(grid.sum(axis=0))


def _settle_age(reached: np.ndarray) -> int | None:
    """`_settle_day` of posts whose readers at ages 0..horizon add up to `reached`."""
    total = reached[-1]
    if total <= 0:
        return None
    return int(np.argmax(reached >= OUTLOOK_SETTLE_SHARE * total - WHOLE_TOLERANCE))


def settled_ages(frame: pd.DataFrame, *, last: int, fallback: int) -> dict[str, Settles]:
    """Each channel's `Settles` on day `last` from its OUTLOOK_MAX_POSTS latest posts
    published at least OUTLOOK_HORIZON_DAYS before it (within OUTLOOK_HISTORY_DAYS); with
    fewer than OUTLOOK_MIN_POSTS of them, the same rule over every channel's such posts
    (or `fallback`, the workspace's settled age, when those are fewer too). The key ""
    holds the workspace's, for channels without any post."""
    at = ages_of(frame)
    day = frame["day"].to_numpy(dtype="int64")
    newest = last - OUTLOOK_HORIZON_DAYS
    old = np.flatnonzero((day <= newest) & (day > newest - OUTLOOK_HISTORY_DAYS))
    channel = frame["channel_id"].astype(str).to_numpy()
    grids: dict[str, np.ndarray] = {}
    for name, found in pd.Series(old).groupby(channel[old], sort=False).indices.items():
        rows = old[found]
        rows = rows[np.argsort(day[rows], kind="stable")][-OUTLOOK_MAX_POSTS:]
        grids[str(name)] = at[rows]
    pooled = np.concatenate([*grids.values(), np.zeros((0, at.shape[1]))])
    found_day = _settle_day(pooled) if len(pooled) >= OUTLOOK_MIN_POSTS else None
    workspace = Settles(
        fallback if found_day is None else max(found_day, 1), WORKSPACE, len(pooled)
    )
    out = {"": workspace}
    for name in pd.unique(channel):
        grid = grids.get(str(name), np.zeros((0, at.shape[1])))
        own = _settle_day(grid) if len(grid) >= OUTLOOK_MIN_POSTS else None
        # At least a day: the forecast of a post of age 1 or more always has a target ahead.
        out[str(name)] = Settles(max(own, 1), OWN, len(grid)) if own is not None else workspace
    return out


class _Posts(NamedTuple):
    """One channel's settled posts in order of publication."""

    day: np.ndarray  # days since 1970-01-01
    weekday: np.ndarray  # of publication, Monday 0
    settled: np.ndarray  # readers at the channel's settled age
    rate: np.ndarray  # settled ÷ audience (NaN without an audience)
    at: np.ndarray  # posts × (ages read + 1): readers at each age
    by_horizon: np.ndarray  # readers at OUTLOOK_HORIZON_DAYS, or by the last day if sooner


@dataclass(frozen=True)
class Fit:
    """What a channel's history says at one age on one day: the median ratio and its
    interval, how many posts and whose (`basis`), and the channel's usual settled read
    rate (and readers, for posts without an audience): 10%, 50%, 90%. Without a forecast
    (`shift` NaN), `reason` says why."""

    shift: float
    low: float
    high: float
    posts: int
    basis: str
    rates: tuple[float, float, float]
    readers: tuple[float, float, float]
    reason: str = ""


def order_interval(
    values: np.ndarray, low: float = OUTLOOK_LOW, high: float = OUTLOOK_HIGH
) -> tuple[float, float, float]:
    """The median of `values` and its `low`..`high` interval from their order statistics
    at plotting positions p·(n + 1), interpolated between neighbours (Hyndman and Fan's
    type 6, numpy's method "weibull"): a new value exchangeable with them falls inside
    with probability about high - low, whatever the spread's shape (split conformal
    prediction with the values as scores)."""
    mid, lo, hi = sorted_quantiles(np.sort(values), (0.5, low, high), weibull=True)
    return mid, lo, hi


def _quantiles(values: np.ndarray) -> tuple[float, float, float]:
    kept = np.sort(values[np.isfinite(values)])
    if not len(kept):
        return (math.nan, math.nan, math.nan)
    low, mid, high = sorted_quantiles(kept, (OUTLOOK_LOW, 0.5, OUTLOOK_HIGH), weibull=False)
    return low, mid, high


def sorted_quantiles(
    ordered: np.ndarray, probabilities: tuple[float, ...], *, weibull: bool
) -> list[float]:
    """`np.quantile(ordered, probabilities, method="weibull" if weibull else "linear")` of
    sorted values without NaN, to the last bit: the same index and the same two-sided
    interpolation as numpy's `_quantile` and `_lerp` (numpy 2.x,
    numpy/lib/_function_base_impl.py). numpy's call costs a partition, a unique and a
    dozen checks each time; the outlook makes hundreds of them on a few dozen values."""
    n = len(ordered)
    out = []
    for p in probabilities:
        virtual = n * p + p - 1 if weibull else (n - 1) * p
        if virtual >= n - 1:
            out.append(float(ordered[-1]))
        elif virtual < 0:
            out.append(float(ordered[0]))
        else:
            below = math.floor(virtual)
            a, b, t = float(ordered[below]), float(ordered[below + 1]), virtual - below
            out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


_NONE = (math.nan, math.nan, math.nan)


class History:
    """Every channel's settled posts, to forecast from as they stood on any day, each
    channel aiming at its own settled age (`settles`).

    history = History(frame, last=day_number(L), fallback=5)
    history.settles["chan_1"].days                       # its settled age
    fit = history.fit("chan_1", day_number(L), age=2)    # fit.reason when it abstains

    From `recent_readers`' frame (ages up to the settled ages only, `settles` given), it
    forecasts on `last` only: the readers its posts had by an earlier day are not there.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        *,
        last: int,
        fallback: int,
        settles: dict[str, Settles] | None = None,
    ) -> None:
        self.last = last
        self.settles = (
            settled_ages(frame, last=last, fallback=fallback) if settles is None else settles
        )
        at = ages_of(frame)
        self.read_to = at.shape[1] - 1  # the last age read
        full = self.read_to >= OUTLOOK_HORIZON_DAYS
        by_horizon = (
            at[:, OUTLOOK_HORIZON_DAYS]
            if full
            else frame["final"].to_numpy(dtype="float64", na_value=0.0)
        )
        day = frame["day"].to_numpy(dtype="int64")
        audience = frame["audience"].to_numpy(dtype="float64", na_value=np.nan)
        channel = frame["channel_id"].astype(str).to_numpy()
        self.channels: dict[str, _Posts] = {}
        for name, found in pd.Series(np.arange(len(frame))).groupby(channel).indices.items():
            settle = self.settle_of(str(name))
            rows = np.asarray(found)
            kept = rows[day[rows] <= last - settle]
            mine = kept[np.argsort(day[kept], kind="stable")]
            settled = at[mine, settle]
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = np.where(audience[mine] > 0, settled / audience[mine], np.nan)
            self.channels[str(name)] = _Posts(
                day[mine],
                np.asarray(weekday_of(day[mine])),
                settled,
                rate,
                at[mine],
                by_horizon[mine],
            )
        self._fits: dict[tuple[str, int, int], Fit] = {}
        Usual = tuple[float, float, float]
        self._usual: dict[tuple[str, int], tuple[Usual, Usual]] = {}

    def settle_of(self, channel: str) -> int:
        """The age `channel`'s forecasts aim at."""
        return self.settles.get(channel, self.settles[""]).days

    def window(self, channel: str, day: int) -> slice:
        """The channel's posts settled by `day` (published at least its settled age before
        it) and published within OUTLOOK_HISTORY_DAYS of that, the OUTLOOK_MAX_POSTS
        latest."""
        posts = self.channels.get(channel)
        if posts is None:
            return slice(0, 0)
        newest = day - self.settle_of(channel)
        hi = int(np.searchsorted(posts.day, newest, side="right"))
        lo = int(np.searchsorted(posts.day, newest - OUTLOOK_HISTORY_DAYS, side="right"))
        return slice(max(lo, hi - OUTLOOK_MAX_POSTS), hi)

    def fit(self, channel: str, day: int, age: int) -> Fit:
        """The fit for a post of `channel` at `age` on `day` (docs/metrics.md "Outlook":
        the Mondrian classes and the abstentions)."""
        if self.read_to < OUTLOOK_HORIZON_DAYS and day != self.last:
            raise ValueError(f"read to age {self.read_to} only: forecasts on day {self.last}")
        key = (channel, day, age)
        if key not in self._fits:
            self._fits[key] = self._fit(channel, day, age)
        return self._fits[key]

    def _fit(self, channel: str, day: int, age: int) -> Fit:
        own = self.window(channel, day)
        posts = self.channels.get(channel)
        weekday = int(weekday_of(np.asarray(day - age)))
        if posts is None or own.stop == own.start:
            reason = "no settled post in its history"
            return Fit(*_NONE, 0, "", _NONE, _NONE, reason)
        if (channel, day) not in self._usual:  # the same at every age
            self._usual[channel, day] = (
                _quantiles(posts.rate[own]),
                _quantiles(posts.settled[own]),
            )
        usual = self._usual[channel, day]
        rows = np.arange(own.start, own.stop)[posts.weekday[own] == weekday]
        # Each settled post's readers by the day of the forecast (at most the horizon's):
        # what it had ended with as far as anyone could know then (past the ages read,
        # on `last`: `by_horizon`).
        lived = day - posts.day[rows]
        reached = np.where(
            lived <= self.read_to,
            posts.at[rows, np.minimum(lived, self.read_to)],
            posts.by_horizon[rows],
        )
        same = np.log1p(reached) - np.log1p(posts.at[rows, age])
        if len(same) < OUTLOOK_MIN_CLASS_POSTS:
            # Fewer cannot give an 80% interval from their own errors; other weekdays' or
            # other channels' errors would be an interval for other posts (weekends gather
            # fewer readers, channels decay at their own pace).
            reason = (
                f"{len(same)} settled {WEEKDAYS[weekday]} {'post' if len(same) == 1 else 'posts'}"
                f" at age {age}; an 80% interval needs {OUTLOOK_MIN_CLASS_POSTS}"
            )
            return Fit(*_NONE, len(same), "", *usual, reason)
        return Fit(*order_interval(same), len(same), "channel", *usual)

    def judge(self, targets: pd.DataFrame) -> pd.DataFrame:
        """`targets` (channel_id, day: the day of the forecast, age_days, readers so far,
        audience) with the forecast columns."""
        n = len(targets)
        out = {name: np.full(n, np.nan) for name in _NUMBERS}
        verdict = np.full(n, TOO_FEW, dtype=object)
        basis = np.full(n, None, dtype=object)
        reason = np.full(n, None, dtype=object)
        channel = targets["channel_id"].astype(str).to_numpy()
        day = targets["day"].to_numpy(dtype="int64")
        age = targets["age_days"].to_numpy(dtype="int64")
        so_far = targets["readers"].to_numpy(dtype="float64", na_value=0.0)
        audience = targets["audience"].to_numpy(dtype="float64", na_value=np.nan)
        early = age < OUTLOOK_MIN_AGE_DAYS
        verdict[early] = TOO_EARLY
        reason[early] = "day 0's readers depend on the hour of publication"
        # One fit per channel, day and age, spread over its rows, then every row at once.
        i = np.flatnonzero(~early)
        codes, names = pd.factorize(channel[i])
        # One integer a class (np.unique of rows, axis=0, sorts them as bytes: slower
        # than the rest of the judging).
        first = int(day[i].min()) if len(i) else 0
        days, ages = int(day[i].max()) - first + 1 if len(i) else 1, int(age[i].max(initial=0)) + 1
        keys, inverse = np.unique(
            (codes * days + day[i] - first) * ages + age[i], return_inverse=True
        )
        fits = [
            self.fit(str(names[k // ages // days]), int(k // ages % days + first), int(k % ages))
            for k in keys.tolist()
        ]
        inverse = inverse.reshape(-1)

        def each(values: list[object], dtype: str = "float64") -> np.ndarray:
            if not fits:  # no post old enough to forecast: nothing to spread
                return np.empty(0, dtype=dtype)
            return np.asarray(values, dtype=dtype).reshape(len(fits), -1)[inverse].squeeze(-1)

        known = audience[i] > 0
        for k, column in enumerate(("usual_low", "usual", "usual_high")):
            rate, readers = each([f.rates[k] for f in fits]), each([f.readers[k] for f in fits])
            out[column][i] = np.where(known, rate * audience[i], readers)
        shift = each([f.shift for f in fits])
        made = ~np.isnan(shift)
        reason[i[~made]] = each([f.reason for f in fits], "object")[~made]
        basis[i[made]] = each([f.basis for f in fits], "object")[made]
        out["based_on"][i[made]] = each([f.posts for f in fits])[made]
        grown = np.log1p(so_far[i])
        # In whole readers: the forecast rounded, the interval the whole numbers inside it
        # (a bound that is whole up to the float error of exp(log(...)) counts as whole: a
        # settled count equal to it is inside).
        for column, shifts, whole in (
            ("forecast", shift, np.rint),
            ("low", each([f.low for f in fits]), lambda v: np.ceil(v - WHOLE_TOLERANCE)),
            ("high", each([f.high for f in fits]), lambda v: np.floor(v + WHOLE_TOLERANCE)),
        ):
            with np.errstate(invalid="ignore"):
                values = np.maximum(whole(np.expm1(grown + shifts)), so_far[i])
            out[column][i[made]] = values[made]
        j = i[made]
        verdict[j] = _verdicts(
            *(out[c][j] for c in ("forecast", "low", "high", "usual_low", "usual_high"))
        )
        frame = pd.DataFrame(
            {
                "forecast_readers": _whole(out["forecast"]),
                "forecast_low": _whole(out["low"]),
                "forecast_high": _whole(out["high"]),
                "usual_low": _whole(out["usual_low"]),
                "usual_readers": _whole(out["usual"]),
                "usual_high": _whole(out["usual_high"]),
                "verdict": pd.array(verdict, dtype="string"),
                "basis": pd.array(basis, dtype="string"),
                "based_on": _whole(out["based_on"]),
                "reason": pd.array(reason, dtype="string"),
            },
            index=targets.index,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            forecast_rate = np.where(audience > 0, out["forecast"] / audience, np.nan)
        frame.insert(3, "forecast_read_rate", forecast_rate)
        news = out["high"] < OUTLOOK_NEWS_SHARE * np.rint(out["usual"])
        frame["news"] = pd.array(news, dtype="boolean")
        return frame


_NUMBERS = ("forecast", "low", "high", "usual_low", "usual", "usual_high", "based_on")


def _whole(values: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Readers as whole numbers (Int64, NA where there is none)."""
    found = np.isfinite(values)
    whole = np.where(found, np.rint(np.where(found, values, 0)), 0).astype("int64")
    return pd.arrays.IntegerArray(whole, ~found)


def _verdicts(
    forecast: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    usual_low: np.ndarray,
    usual_high: np.ndarray,
) -> np.ndarray:
    """Behind (ahead): the forecast and its whole interval below (above) the usual range;
    on track: the forecast inside it; otherwise too early to say (the forecast is outside
    but the interval still reaches the range)."""
    usual_low, usual_high = np.rint(usual_low), np.rint(usual_high)
    out = np.full(len(forecast), TOO_EARLY, dtype=object)
    out[(forecast >= usual_low) & (forecast <= usual_high)] = ON_TRACK
    out[(forecast < usual_low) & (high < usual_low)] = BEHIND
    out[(forecast > usual_high) & (low > usual_high)] = AHEAD
    return out


def _settles_column(history: History, channel: pd.Series) -> np.ndarray:
    """Each row's channel's settled age (a lookup per channel, not per row)."""
    codes, names = pd.factorize(channel.astype(str))
    return np.asarray([history.settle_of(str(name)) for name in names], dtype="int64")[codes]


OUTLOOK = declare(
    "outlook",
    dict(
        **dict.fromkeys(("readers", "audience", "forecast_readers", "forecast", "based_on"), COUNT),
        **dict.fromkeys(("usual_readers", "usual"), COUNT),
        **dict.fromkeys(("read_rate", "forecast_read_rate"), RATE),
        **dict.fromkeys(("age_days", "settles_by_day"), DAYS),
    ),
)
BACKTEST = declare(
    "outlook_backtest",
    dict(
        **dict.fromkeys(
            ("posts", "abstained", "median_abs_error", "naive_median_abs_error"), COUNT
        ),
        **dict.fromkeys(("coverage", "below", "above"), RATE),
        error_vs_naive=RATIO,
        **dict.fromkeys(("age_days", "settles_by_day"), DAYS),
    ),
)
DECAY = declare(
    "decay_profiles",
    dict(
        day=COUNT,
        posts=COUNT,
        **dict.fromkeys(("share_on_day", "share_by_day"), RATE),
        **dict.fromkeys(("settles_by_day", "days_to_50", "days_to_90"), DAYS),
    ),
)


def outlook(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    *,
    last: date,
    settles: dict[str, Settles],
    tz: ZoneInfo,
) -> pd.DataFrame:
    """Each selected post younger than its channel's settled age on `last` (the last
    complete synced day; `settles` from `channel_settles`), newest first: its readers so
    far and the forecast (`History.judge`)."""
    frame = recent_readers(con, flt, last=last, settles=settles, tz=tz)
    now = day_number(last)
    history = History(frame, last=now, fallback=settles[""].days, settles=settles)
    aims = _settles_column(history, frame["channel_id"])
    chosen = (frame["day"] > now - aims) & frame["selected"].fillna(False)
    young, aims = frame[chosen], aims[chosen.to_numpy()]
    young = young.assign(age_days=now - young["day"])
    at = ages_of(young)
    ages = young["age_days"].to_numpy(dtype="int64")
    readers = at[np.arange(len(young)), ages] if len(young) else at[:, 0]
    targets = pd.DataFrame(
        {
            "channel_id": young["channel_id"],
            "day": now,
            "age_days": ages,
            "readers": readers,
            "audience": young["audience"],
        },
        index=young.index,
    )
    judged = history.judge(targets)
    out = young[["post_id", "title", "channel_id", "channel", "published_at"]].copy()
    out["age_days"] = pd.array(ages, dtype="Int64")
    out["readers"] = pd.array(readers.astype("int64"), dtype="Int64")
    out["audience"] = young["audience"]
    with np.errstate(invalid="ignore", divide="ignore"):
        aud = young["audience"].to_numpy(dtype="float64", na_value=np.nan)
        out["read_rate"] = np.where(aud > 0, readers / aud, np.nan)
    out = pd.concat([out, judged], axis=1)
    out["settles_by_day"] = pd.array(aims, dtype="Int64")
    out["provisional"] = pd.array(np.ones(len(out), dtype=bool), dtype="boolean")
    # Newest first, ties by id: arrow sorts the strings without pandas' factorizing.
    keys = pa.table({"at": pa.array(out["published_at"]), "id": pa.array(out["post_id"])})
    order = pc.sort_indices(keys, sort_keys=[("at", "descending"), ("id", "ascending")])
    newest: pd.DataFrame = out.iloc[order.to_numpy()]
    return newest.reset_index(drop=True)


def backtest(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    *,
    last: date,
    settle: int,
    tz: ZoneInfo,
    ages: tuple[int, ...] = OUTLOOK_BACKTEST_AGES,
) -> pd.DataFrame:
    """Per selected post older than its channel's settled age on `last` and age a in
    `ages` (younger than that age): the forecast it would have had on its day a, from the
    posts settled by then, beside what it reached by `last` (`final_readers`: the truth
    it is judged against), its readers at the settled age and the naive forecast (its
    channel's usual settled readers at its audience, from the same posts)."""
    frame = load_readers(con, flt, first=None, last=last, tz=tz)
    now = day_number(last)
    history = History(frame, last=now, fallback=settle)
    aims = _settles_column(history, frame["channel_id"])
    chosen = (frame["day"] <= now - aims) & frame["selected"].fillna(False)
    posts, aims = frame[chosen], aims[chosen.to_numpy()]
    at = ages_of(posts)
    parts = []
    for age in ages:
        rows = np.flatnonzero(age < aims)
        parts.append(
            pd.DataFrame(
                {
                    "post_id": posts["post_id"].iloc[rows],
                    "channel_id": posts["channel_id"].iloc[rows],
                    "channel": posts["channel"].iloc[rows],
                    "day": posts["day"].iloc[rows] + age,
                    "age_days": age,
                    "readers": at[rows, age],
                    "settled_readers": at[rows, aims[rows]],
                    "final_readers": posts["final"].iloc[rows].to_numpy(dtype="float64"),
                    "settles_by_day": aims[rows],
                    "audience": posts["audience"].iloc[rows],
                }
            )
        )
    targets = pd.concat(parts, ignore_index=True)
    judged = history.judge(targets)
    out = pd.concat([targets, judged], axis=1)
    final = out["final_readers"].astype("float64")
    inside = (out["forecast_low"].astype("float64") <= final) & (
        final <= out["forecast_high"].astype("float64")
    )
    out["covered"] = inside.astype("boolean")
    out.loc[out["forecast_readers"].isna(), "covered"] = pd.NA
    out["naive_readers"] = out["usual_readers"]
    weekdays = np.asarray(WEEKDAYS)[weekday_of(out["day"].to_numpy(dtype="int64"))]
    out["weekday"] = pd.Series(weekdays, index=out.index, dtype="string")
    for column in ("readers", "settled_readers", "final_readers", "settles_by_day"):
        out[column] = pd.array(out[column].to_numpy(dtype="int64"), dtype="Int64")
    return out[[*BACKTEST_DETAIL]]


BACKTEST_DETAIL = (
    "post_id",
    "channel_id",
    "channel",
    "age_days",
    "weekday",
    "readers",
    "settled_readers",
    "final_readers",
    "settles_by_day",
    "forecast_readers",
    "forecast_low",
    "forecast_high",
    "covered",
    "naive_readers",
    "verdict",
    "basis",
    "reason",
)
BACKTEST_COLUMNS = (
    "scope",
    "channel_id",
    "channel",
    "weekday",
    "age_days",
    "posts",
    "abstained",
    "coverage",
    "below",
    "above",
    "median_abs_error",
    "naive_median_abs_error",
    "error_vs_naive",
    "settles_by_day",
    "still_gaining",
)


def backtest_table(detail: pd.DataFrame) -> pd.DataFrame:
    """Per age, pooled (`scope` "all"), then per channel ("channel") and per weekday of
    the forecast ("weekday"): posts forecast and abstained, the share of final readers
    inside the 80% interval (`coverage`), below and above it, the median absolute error of
    the forecast and of the naive forecast, and their ratio (below 1: the forecast is
    nearer). A channel's rows carry its settled age and `still_gaining`: its replayed
    posts had under OUTLOOK_SETTLE_SHARE of their final readers at that age (they had not
    stopped gaining readers by then)."""
    rows: list[dict[str, object]] = []
    scopes: tuple[tuple[str, list[str]], ...] = (
        ("all", []),
        ("channel", ["channel_id", "channel"]),
        ("weekday", ["weekday"]),
    )
    order = {name: k for k, name in enumerate(WEEKDAYS)}
    for scope, keys in scopes:
        for key, group in detail.groupby([*keys, "age_days"], sort=True, dropna=False):
            values = key if isinstance(key, tuple) else (key,)
            named = dict(zip([*keys, "age_days"], values, strict=True))
            rows.append({"scope": scope, **named, **_scores(group)})
    table = pd.DataFrame(rows, columns=[*BACKTEST_COLUMNS])
    table["_w"] = table["weekday"].map(order)
    table = table.sort_values(["_w"], kind="stable", na_position="first").drop(columns="_w")
    table = table.sort_values(
        "scope", key=lambda s: s.map({"all": 0, "channel": 1, "weekday": 2}), kind="stable"
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        table["error_vs_naive"] = table["median_abs_error"] / table["naive_median_abs_error"]
    for column in ("age_days", "posts", "abstained", "settles_by_day"):
        table[column] = table[column].astype("Int64")
    for column in ("scope", "channel_id", "channel", "weekday"):
        table[column] = table[column].astype("string")
    table["still_gaining"] = table["still_gaining"].astype("boolean")
    return table.reset_index(drop=True)


def _scores(group: pd.DataFrame) -> dict[str, object]:
    """The backtest's figures of one group of its detail rows."""
    made = group[group["forecast_readers"].notna()]
    final = made["final_readers"].astype("float64")
    error = (made["forecast_readers"].astype("float64") - final).abs()
    naive = (made["naive_readers"].astype("float64") - final).abs()
    some = len(made) > 0
    settles = group["settles_by_day"].dropna().unique()
    one = len(settles) == 1 and group["channel_id"].nunique() == 1
    reached = group["settled_readers"].astype("float64").sum()
    total = group["final_readers"].astype("float64").sum()
    return {
        "posts": len(made),
        "abstained": len(group) - len(made),
        "coverage": float(made["covered"].astype(bool).mean()) if some else np.nan,
        "below": float((final < made["forecast_low"].astype("float64")).mean()) if some else np.nan,
        "above": float((final > made["forecast_high"].astype("float64")).mean())
        if some
        else np.nan,
        "median_abs_error": float(error.median()) if some else np.nan,
        "naive_median_abs_error": float(naive.median()) if some else np.nan,
        "settles_by_day": int(settles[0]) if one else pd.NA,
        "still_gaining": bool(reached < OUTLOOK_SETTLE_SHARE * total) if one else pd.NA,
    }


def decay_profiles(frame: pd.DataFrame, *, settles: dict[str, Settles], last: date) -> pd.DataFrame:
    """Per channel and day 0..its settled age (`settles_by_day`, from `settles`: the
    workspace's without the evidence) of its posts settled on `last` (with readers):
    `share_on_day` (Σ readers that day ÷ Σ readers at the settled age, the readers posts
    end with), `share_by_day`, and per channel the days to 50% and to 90% of each post's
    final readers: median and the spread across posts, its 10th and 90th percentiles
    (`days_to_50`, `days_to_50_low`, `days_to_50_high`, the same for 90)."""
    history = History(frame, last=day_number(last), fallback=settles[""].days, settles=settles)
    names = frame.drop_duplicates("channel_id").set_index("channel_id")["channel"]
    rows = []
    for name in sorted(history.channels):
        aim = history.settles.get(name, history.settles[""])
        grid = history.channels[name].at[history.window(name, day_number(last)), : aim.days + 1]
        grid = grid[grid[:, -1] > 0]
        if not len(grid):
            continue
        share = grid / grid[:, -1:]
        reach = {
            q: np.argmax(share >= q - WHOLE_TOLERANCE, axis=1).astype("float64") for q in (0.5, 0.9)
        }
        spread = {q: _quantiles(v) for q, v in reach.items()}
        by_day = grid.sum(axis=0) / grid[:, -1].sum()
        on_day = np.diff(np.concatenate([[0.0], by_day]))
        for day in range(aim.days + 1):
            rows.append(
                {
                    "channel_id": name,
                    "channel": names.get(name),
                    "day": day,
                    "share_on_day": float(on_day[day]),
                    "share_by_day": float(by_day[day]),
                    "posts": len(grid),
                    "settles_by_day": aim.days,
                    "settled_from": aim.source,
                    "days_to_50": spread[0.5][1],
                    "days_to_50_low": spread[0.5][0],
                    "days_to_50_high": spread[0.5][2],
                    "days_to_90": spread[0.9][1],
                    "days_to_90_low": spread[0.9][0],
                    "days_to_90_high": spread[0.9][2],
                }
            )
    out = pd.DataFrame(rows, columns=[*DECAY_COLUMNS])
    for column in ("day", "posts", "settles_by_day"):
        out[column] = out[column].astype("Int64")
    out["settled_from"] = out["settled_from"].astype("string")
    return out


SPREAD = "10–90% of posts"  # what days_to_*_low.._high span
DECAY_COLUMNS = (
    "channel_id",
    "channel",
    "day",
    "share_on_day",
    "share_by_day",
    "posts",
    "settles_by_day",
    "settled_from",
    "days_to_50",
    "days_to_50_low",
    "days_to_50_high",
    "days_to_90",
    "days_to_90_low",
    "days_to_90_high",
)
