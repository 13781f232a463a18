"""Will this post land? Each young post's settled readers forecast from its readers so far,
with an interval from past posts' own errors; and how each channel's posts decay
(definitions and a worked example: docs/metrics.md, "Outlook").

Szabo and Huberman (2008): the log of an item's settled count is the log of its early
count plus a constant of its channel and age. For a post of age a (whole UTC days since
its day of publication: daily rows cannot see hours) with x readers so far, over the
channel's posts that were settled (at least S days old, S the workspace's settled age) on
the day of the forecast:

    ratio of such a post  = log(1 + its readers at age S) - log(1 + its readers at age a)
    forecast              = (1 + x) · exp(median ratio) - 1, rounded, never below x
    80% interval          = the same with the ratios' 10% and 90% order statistics: the
                            whole numbers of readers between them

    history = History.of(load_readers(con, flt, first=None, last=L, settle=S), S)
    judged = history.judge(targets)   # channel_id, day, age_days, readers, audience
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple, cast

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import (
    OUTLOOK_BACKTEST_AGES,
    OUTLOOK_HIGH,
    OUTLOOK_HISTORY_DAYS,
    OUTLOOK_LOW,
    OUTLOOK_MAX_POSTS,
    OUTLOOK_MIN_AGE_DAYS,
    OUTLOOK_MIN_CHANNEL_POSTS,
    OUTLOOK_MIN_POSTS,
    OUTLOOK_NEWS_SHARE,
)
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import cohort_rows, instant_range, run
from channelkit.analysis.sql import Sql

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
    settle: int,
    recent: int | None = None,
    tz: str = "UTC",
) -> pd.DataFrame:
    """The posts published from `first` (all without it) through `last`, with their readers
    at each age 0..settle (`at_0`...: unique viewers summed from the day of publication,
    at most the post's lifetime readers, as the reach curve counts them).

    Every post of the filtered channels is read (the tag, priority and author filters
    become `selected`): a channel's history is all its posts. With `recent`, only each
    channel's `recent` latest posts published by `last - settle` (settled on `last`) are
    kept beside the younger ones. Columns: post_id, title, channel_id, channel,
    published_at, day (days since 1970-01-01 of the UTC date of publication), readers
    (lifetime), audience, selected, at_0..at_{settle}.
    """
    period = _days(first, last)
    ages = ", ".join(
        f"least(c.readers, coalesce(sum(d.unique_viewers) FILTER (WHERE d.date <= c.pub + {a}), "
        f"0))::BIGINT AS at_{a}"
        for a in range(settle + 1)
    )
    only = None
    if recent is not None:
        # From the earliest day kept on: fewer posts to join, fewer daily rows to read.
        only, first = _recent_only(con, flt, period, last - timedelta(days=settle), recent)
        period = _days(first, last)
    bounds = Sql("d.date <= ?", (last,))
    if first is not None:
        bounds = bounds + Sql(" AND d.date >= ?", (first,))
    sql = (
        Sql("WITH cohort AS (")
        + cohort_rows(flt, [period], baseline=True, only=only)
        + Sql(
            "), kept AS (SELECT c.*, make_timestamp(epoch_us(c.published_at))::DATE AS pub "
            "FROM cohort c) "
        )
        + Sql(
            f"SELECT c.id AS post_id, p.title, c.channel_id, ch.name AS channel, "
            f"c.published_at, (c.pub - DATE '1970-01-01')::BIGINT AS day, c.readers, "
            f"c.audience, c.selected, {ages} FROM kept c JOIN posts p ON p.id = c.id "
            "LEFT JOIN channels ch ON ch.id = c.channel_id "
            "LEFT JOIN post_daily d ON d.post_id = c.id AND d.date >= c.pub "
            f"AND d.date <= c.pub + {settle} AND "
        )
        + bounds
        + Sql(
            " GROUP BY c.id, p.title, c.channel_id, ch.name, c.published_at, c.pub, c.readers, "
            "c.audience, c.selected ORDER BY c.channel_id, c.pub, c.id"
        )
    )
    return run(con, sql, tz)


def _days(first: date | None, last: date) -> Period:
    """The UTC days from `first` (the beginning without it) through `last`."""
    start = None if first is None else datetime.combine(first, time(), tzinfo=UTC)
    end = datetime.combine(last + timedelta(days=1), time(), tzinfo=UTC)
    return Period(tz="UTC", start=start, end=end)


def _recent_only(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, newest: date, recent: int
) -> tuple[Sql, date]:
    """A query of the ids of each channel's `recent` latest posts published by `newest`
    (at least: every post of the day of its `recent`-th, `History.window` takes the exact
    ones) and of every post after it, and the earliest day of those posts. Each channel's
    first such day comes from its posts per day (a few rows), so the posts are read once,
    not sorted (a window over half a year of posts costs more than the rest of the
    outlook)."""
    where, params = PostFilter(channel_ids=flt.channel_ids).where("p")
    # Per channel, the newest day by which it has `recent` posts (or its first day).
    counted = (
        Sql(
            "SELECT channel_id, min(pub) FROM (SELECT channel_id, pub, sum(posts) OVER "
            "(PARTITION BY channel_id ORDER BY pub DESC) - posts AS newer FROM "
            f"(SELECT p.channel_id, {_PUB} AS pub, count(*) AS posts FROM posts p WHERE {where} "
            f"AND {_PUB} <= ? AND ",
            (*params, newest),
        )
        + instant_range(period, "p.published_at")
        + Sql(" GROUP BY ALL)) WHERE newer < ? GROUP BY ALL", (recent,))
    )
    since = {str(c): day for c, day in con.execute(counted.text, list(counted.params)).fetchall()}
    names = sorted(since)
    earliest = min(since.values(), default=newest + timedelta(days=1))
    only = Sql(
        f"SELECT p.id FROM posts p LEFT JOIN (SELECT unnest(?::VARCHAR[]) AS channel_id, "
        "unnest(?::DATE[]) AS since) s ON s.channel_id = p.channel_id "
        f"WHERE p.published_at >= ? AND ({_PUB} > ? OR {_PUB} >= s.since)",
        (names, [since[n] for n in names], _days(earliest, newest).start, newest),
    )
    return only, earliest


def recent_readers(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, *, last: date, settle: int, tz: str = "UTC"
) -> pd.DataFrame:
    """`load_readers` of the posts a forecast on `last` needs: the young ones, and each
    channel's OUTLOOK_MAX_POSTS latest settled within OUTLOOK_HISTORY_DAYS (`History.window`)."""
    start = last - timedelta(days=settle + OUTLOOK_HISTORY_DAYS - 1)
    return load_readers(
        con, flt, first=start, last=last, settle=settle, recent=OUTLOOK_MAX_POSTS, tz=tz
    )


def ages_of(frame: pd.DataFrame, settle: int) -> np.ndarray:
    """The posts × (settle + 1) readers at each age of `load_readers`' frame."""
    columns = [f"at_{a}" for a in range(settle + 1)]
    return frame[columns].to_numpy(dtype="float64", na_value=0.0)


class _Posts(NamedTuple):
    """One channel's settled posts in order of publication."""

    day: np.ndarray  # days since 1970-01-01
    settled: np.ndarray  # readers at the settled age
    rate: np.ndarray  # settled ÷ audience (NaN without an audience)
    ratio: np.ndarray  # posts × settle: log(1 + settled) - log(1 + readers at age a)
    at: np.ndarray  # posts × (settle + 1): readers at each age


@dataclass(frozen=True)
class Fit:
    """What a channel's history says at one age on one day: the median ratio and its
    interval, how many posts and whose ("channel" or "workspace"), and the channel's usual
    settled read rate (and readers, for posts without an audience): 10%, 50%, 90%."""

    shift: float
    low: float
    high: float
    posts: int
    basis: str
    rates: tuple[float, float, float]
    readers: tuple[float, float, float]


def order_interval(values: np.ndarray) -> tuple[float, float, float]:
    """The median of `values` and its OUTLOOK_LOW..OUTLOOK_HIGH interval as order
    statistics: ranks floor(low·(n+1)) and ceil(high·(n+1)) of n sorted values, so a new
    value from the same spread falls between them with probability (j - i) ÷ (n + 1),
    0.80 to 0.81 for n >= 20 (no assumption about the spread's shape)."""
    ordered = np.sort(values)
    n = len(ordered)
    lo = max(1, math.floor(OUTLOOK_LOW * (n + 1)))
    hi = min(n, math.ceil(OUTLOOK_HIGH * (n + 1)))
    median = (ordered[(n - 1) // 2] + ordered[n // 2]) / 2
    return float(median), float(ordered[lo - 1]), float(ordered[hi - 1])


def _quantiles(values: np.ndarray) -> tuple[float, float, float]:
    kept = values[np.isfinite(values)]
    if not len(kept):
        return (math.nan, math.nan, math.nan)
    low, mid, high = np.quantile(kept, [OUTLOOK_LOW, 0.5, OUTLOOK_HIGH])
    return float(low), float(mid), float(high)


class History:
    """Every channel's settled posts, to forecast from as they stood on any day.

    history = History(frame, settle=5, last=day_number(L))
    fit = history.fit("chan_1", day_number(L), age=2)   # None: too few settled posts
    """

    def __init__(self, frame: pd.DataFrame, *, settle: int, last: int) -> None:
        self.settle = settle
        at = ages_of(frame, settle)
        day = frame["day"].to_numpy(dtype="int64")
        settled_by = day <= last - settle
        audience = frame["audience"].to_numpy(dtype="float64", na_value=np.nan)
        self.channels: dict[str, _Posts] = {}
        settled_rows = np.flatnonzero(settled_by)
        channel = frame["channel_id"].astype(str).to_numpy()[settled_rows]
        # One pass over the rows: each channel's row numbers, then in order of day (and
        # of the rows, which come by id within a day).
        for name, found in pd.Series(settled_rows).groupby(channel, sort=False).indices.items():
            rows = settled_rows[found]
            mine = rows[np.argsort(day[rows], kind="stable")]
            settled = at[mine, settle]
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = np.where(audience[mine] > 0, settled / audience[mine], np.nan)
            ratio = np.log1p(settled)[:, None] - np.log1p(at[mine, :settle])
            self.channels[str(name)] = _Posts(day[mine], settled, rate, ratio, at[mine])
        self._fits: dict[tuple[str, int, int], Fit | None] = {}
        Usual = tuple[float, float, float]
        self._usual: dict[tuple[str, int], tuple[Usual, Usual]] = {}

    def window(self, channel: str, day: int) -> slice:
        """The channel's posts settled by `day` (published at least `settle` days before
        it) and published within OUTLOOK_HISTORY_DAYS of that, the OUTLOOK_MAX_POSTS
        latest."""
        posts = self.channels.get(channel)
        if posts is None:
            return slice(0, 0)
        newest = day - self.settle
        hi = int(np.searchsorted(posts.day, newest, side="right"))
        lo = int(np.searchsorted(posts.day, newest - OUTLOOK_HISTORY_DAYS, side="right"))
        return slice(max(lo, hi - OUTLOOK_MAX_POSTS), hi)

    def fit(self, channel: str, day: int, age: int) -> Fit | None:
        """The fit for a post of `channel` at `age` on `day`; None when the channel has
        fewer than OUTLOOK_MIN_CHANNEL_POSTS settled posts, or neither it nor the workspace
        has OUTLOOK_MIN_POSTS."""
        key = (channel, day, age)
        if key not in self._fits:
            self._fits[key] = self._fit(channel, day, age)
        return self._fits[key]

    def _fit(self, channel: str, day: int, age: int) -> Fit | None:
        own = self.window(channel, day)
        count = own.stop - own.start
        if count < OUTLOOK_MIN_CHANNEL_POSTS:
            return None
        posts = self.channels[channel]
        basis = "channel"
        ratios = posts.ratio[own, age]
        if count < OUTLOOK_MIN_POSTS:
            # Too few of its own: the decay of every channel's posts settled by then.
            basis = "workspace"
            ratios = np.concatenate(
                [p.ratio[self.window(name, day), age] for name, p in self.channels.items()]
            )
            if len(ratios) < OUTLOOK_MIN_POSTS:
                return None
        shift, low, high = order_interval(ratios)
        key = (channel, day)
        if key not in self._usual:  # the same at every age
            self._usual[key] = (_quantiles(posts.rate[own]), _quantiles(posts.settled[own]))
        return Fit(shift, low, high, len(ratios), basis, *self._usual[key])

    def judge(self, targets: pd.DataFrame) -> pd.DataFrame:
        """`targets` (channel_id, day: the day of the forecast, age_days, readers so far,
        audience) with the forecast columns of `OUTLOOK_COLUMNS`."""
        n = len(targets)
        out = {name: np.full(n, np.nan) for name in _NUMBERS}
        verdict = np.full(n, TOO_FEW, dtype=object)
        basis = np.full(n, None, dtype=object)
        channel = targets["channel_id"].astype(str).to_numpy()
        day = targets["day"].to_numpy(dtype="int64")
        age = targets["age_days"].to_numpy(dtype="int64")
        so_far = targets["readers"].to_numpy(dtype="float64", na_value=0.0)
        audience = targets["audience"].to_numpy(dtype="float64", na_value=np.nan)
        early = age < OUTLOOK_MIN_AGE_DAYS
        verdict[early] = TOO_EARLY
        keys = pd.DataFrame({"c": channel, "d": day, "a": age})[~early]
        for key, rows in keys.groupby(["c", "d", "a"], sort=False).groups.items():
            name, when, at = cast(tuple[str, int, int], key)
            fit = self.fit(str(name), int(when), int(at))
            if fit is None:
                continue
            i = np.asarray(rows)
            basis[i] = fit.basis
            out["based_on"][i] = fit.posts
            grown = np.log1p(so_far[i])
            # In whole readers: the forecast rounded, the interval the whole numbers inside
            # it (a bound that is whole up to the float error of exp(log(...)) counts as
            # whole: a settled count equal to it is inside).
            for column, shift, whole in (
                ("forecast", fit.shift, np.rint),
                ("low", fit.low, lambda v: np.ceil(v - WHOLE_TOLERANCE)),
                ("high", fit.high, lambda v: np.floor(v + WHOLE_TOLERANCE)),
            ):
                out[column][i] = np.maximum(whole(np.expm1(grown + shift)), so_far[i])
            known = audience[i] > 0
            for column, rate, readers in zip(
                ("usual_low", "usual", "usual_high"), fit.rates, fit.readers, strict=True
            ):
                out[column][i] = np.where(known, rate * audience[i], readers)
            verdict[i] = _verdicts(
                *(out[c][i] for c in ("forecast", "low", "high", "usual_low", "usual_high"))
            )
        frame = pd.DataFrame(
            {
                "forecast_readers": out["forecast"],
                "forecast_low": out["low"],
                "forecast_high": out["high"],
                "usual_low": out["usual_low"],
                "usual_readers": out["usual"],
                "usual_high": out["usual_high"],
                "verdict": pd.array(verdict, dtype="string"),
                "basis": pd.array(basis, dtype="string"),
                "based_on": pd.array(
                    np.where(np.isnan(out["based_on"]), 0, out["based_on"]).astype("int64"),
                    dtype="Int64",
                ),
            },
            index=targets.index,
        )
        frame.loc[np.isnan(out["based_on"]), "based_on"] = pd.NA
        with np.errstate(invalid="ignore", divide="ignore"):
            forecast_rate = np.where(audience > 0, out["forecast"] / audience, np.nan)
        frame.insert(3, "forecast_read_rate", forecast_rate)
        news = out["high"] < OUTLOOK_NEWS_SHARE * out["usual"]
        frame["news"] = pd.array(news, dtype="boolean")
        return frame


_NUMBERS = ("forecast", "low", "high", "usual_low", "usual", "usual_high", "based_on")


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
    out = np.full(len(forecast), TOO_EARLY, dtype=object)
    out[(forecast >= usual_low) & (forecast <= usual_high)] = ON_TRACK
    out[(forecast < usual_low) & (high < usual_low)] = BEHIND
    out[(forecast > usual_high) & (low > usual_high)] = AHEAD
    return out


def outlook(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, *, last: date, settle: int, tz: str
) -> pd.DataFrame:
    """Each selected post younger than `settle` on `last` (the last complete synced day),
    newest first: its readers so far and the forecast (`History.judge`)."""
    frame = recent_readers(con, flt, last=last, settle=settle, tz=tz)
    now = day_number(last)
    history = History(frame, settle=settle, last=now)
    young = frame[(frame["day"] > now - settle) & frame["selected"].fillna(False)]
    young = young.assign(age_days=now - young["day"])
    at = ages_of(young, settle)
    ages = young["age_days"].to_numpy(dtype="int64")
    readers = at[np.arange(len(young)), np.minimum(ages, settle)] if len(young) else at[:, 0]
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
    out["provisional"] = pd.array(np.ones(len(out), dtype=bool), dtype="boolean")
    out = out.sort_values(["published_at", "post_id"], ascending=[False, True])
    return out.reset_index(drop=True)


def backtest(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    *,
    last: date,
    settle: int,
    tz: str,
    ages: tuple[int, ...] = OUTLOOK_BACKTEST_AGES,
) -> pd.DataFrame:
    """Per selected post settled on `last` and age a in `ages` (younger than `settle`):
    the forecast it would have had on its day a, from the posts settled by then, beside
    its settled readers and the naive forecast (its channel's usual settled readers at
    its audience, from the same posts)."""
    frame = load_readers(con, flt, first=None, last=last, settle=settle, tz=tz)
    now = day_number(last)
    history = History(frame, settle=settle, last=now)
    posts = frame[(frame["day"] <= now - settle) & frame["selected"].fillna(False)]
    at = ages_of(posts, settle)
    parts = []
    for age in (a for a in ages if a < settle):
        parts.append(
            pd.DataFrame(
                {
                    "post_id": posts["post_id"],
                    "channel_id": posts["channel_id"],
                    "day": posts["day"] + age,
                    "age_days": age,
                    "readers": at[:, age],
                    "settled_readers": at[:, settle],
                    "audience": posts["audience"],
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=[*BACKTEST_DETAIL])
    targets = pd.concat(parts, ignore_index=True)
    judged = history.judge(targets)
    out = pd.concat([targets, judged], axis=1)
    inside = (out["forecast_low"] <= out["settled_readers"]) & (
        out["settled_readers"] <= out["forecast_high"]
    )
    out["covered"] = inside.astype("boolean")
    out.loc[out["forecast_readers"].isna(), "covered"] = pd.NA
    out["naive_readers"] = out["usual_readers"]
    return out[[*BACKTEST_DETAIL]]


BACKTEST_DETAIL = (
    "post_id",
    "channel_id",
    "age_days",
    "readers",
    "settled_readers",
    "forecast_readers",
    "forecast_low",
    "forecast_high",
    "covered",
    "naive_readers",
    "verdict",
    "basis",
)


def backtest_table(detail: pd.DataFrame) -> pd.DataFrame:
    """Per age: posts forecast and abstained, the share of settled readers inside the 80%
    interval, the median absolute error of the forecast and of the naive forecast, and
    their ratio (below 1: the forecast is nearer)."""
    rows = []
    for age, group in detail.groupby("age_days", sort=True):
        made = group[group["forecast_readers"].notna()]
        error = (made["forecast_readers"] - made["settled_readers"]).abs()
        naive = (made["naive_readers"] - made["settled_readers"]).abs()
        rows.append(
            {
                "age_days": int(str(age)),
                "posts": len(made),
                "abstained": len(group) - len(made),
                "coverage": float(made["covered"].astype(bool).mean()) if len(made) else np.nan,
                "median_abs_error": float(error.median()) if len(made) else np.nan,
                "naive_median_abs_error": float(naive.median()) if len(made) else np.nan,
            }
        )
    table = pd.DataFrame(
        rows,
        columns=[
            "age_days",
            "posts",
            "abstained",
            "coverage",
            "median_abs_error",
            "naive_median_abs_error",
        ],
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        table["error_vs_naive"] = table["median_abs_error"] / table["naive_median_abs_error"]
    return table


def decay_profiles(frame: pd.DataFrame, *, settle: int, last: date) -> pd.DataFrame:
    """Per channel and day 0..settle of its posts settled on `last` (with readers):
    `share_on_day` (Σ readers that day ÷ Σ settled readers), `share_by_day`, and per
    channel the days to 50% and to 90% of each post's settled readers: median and the
    10%-90% spread across posts (`days_to_50`, `days_to_50_low`, `days_to_50_high`, the
    same for 90)."""
    history = History(frame, settle=settle, last=day_number(last))
    names = frame.drop_duplicates("channel_id").set_index("channel_id")["channel"]
    rows = []
    for name in sorted(history.channels):
        grid = history.channels[name].at[history.window(name, day_number(last))]
        grid = grid[grid[:, settle] > 0]
        if not len(grid):
            continue
        share = grid / grid[:, settle : settle + 1]
        reach = {q: np.argmax(share >= q, axis=1).astype("float64") for q in (0.5, 0.9)}
        spread = {q: _quantiles(v) for q, v in reach.items()}
        by_day = grid.sum(axis=0) / grid[:, settle].sum()
        on_day = np.diff(np.concatenate([[0.0], by_day]))
        for day in range(settle + 1):
            rows.append(
                {
                    "channel_id": name,
                    "channel": names.get(name),
                    "day": day,
                    "share_on_day": float(on_day[day]),
                    "share_by_day": float(by_day[day]),
                    "posts": len(grid),
                    "days_to_50": spread[0.5][1],
                    "days_to_50_low": spread[0.5][0],
                    "days_to_50_high": spread[0.5][2],
                    "days_to_90": spread[0.9][1],
                    "days_to_90_low": spread[0.9][0],
                    "days_to_90_high": spread[0.9][2],
                }
            )
    out = pd.DataFrame(rows, columns=[*DECAY_COLUMNS])
    out["day"] = out["day"].astype("Int64")
    out["posts"] = out["posts"].astype("Int64")
    return out


DECAY_COLUMNS = (
    "channel_id",
    "channel",
    "day",
    "share_on_day",
    "share_by_day",
    "posts",
    "days_to_50",
    "days_to_50_low",
    "days_to_50_high",
    "days_to_90",
    "days_to_90_low",
    "days_to_90_high",
)
