"""Best times to publish, judged honestly (docs/metrics.md, "Best times").

Each post is judged on its readers in its first BEST_TIMES_AGE_DAYS UTC days (the same age
for every post) against what its channel's posts get at that age: expected = its audience
× its channel's rate. A weekday-hour slot's `vs_expected` is Σ readers ÷ Σ expected over
its posts. Each slot with at least BEST_TIMES_MIN_POSTS posts' worth of evidence is
compared with all the other posts: z = the log of the ratio of the two, over its standard
error (each post's variance binomial on its audience plus the posts' own spread, fitted by
moments). The critical |z| is the FAIR_CONFIDENCE quantile of the largest |z| over the
slots when the slots are shuffled among each channel's posts (a permutation test, so the
chance of naming any slot when no hour differs stays 1 - FAIR_CONFIDENCE however many
slots are tested); above BEST_TIMES_PERMUTE_UP_TO posts, Bonferroni's normal bound.
`verdict` is "reliable" when some slot's interval excludes 1, else "no reliable
difference". Slots rank by `vs_expected` shrunk toward the typical slot (empirical Bayes
on the logs).

    frame = judge_slots(posts)          # weekday, hour, channel_id, audience, readers
    frame.attrs["verdict"]              # "reliable" / "no reliable difference"
"""

from __future__ import annotations

from datetime import date
from statistics import NormalDist

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import (
    BEST_TIMES_AGE_DAYS,
    BEST_TIMES_GRID_CELLS,
    BEST_TIMES_MIN_POSTS,
    BEST_TIMES_PERMUTATIONS,
    BEST_TIMES_PERMUTE_UP_TO,
    BEST_TIMES_SEED,
    FAIR_CONFIDENCE,
)
from channelkit._labels import WEEKDAYS
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import cohort_rows, run
from channelkit.analysis.sql import Sql

RELIABLE = "reliable"
NO_DIFFERENCE = "no reliable difference"
_SLOTS = 7 * 24


def slot_posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    last_day: date,
    age_days: int = BEST_TIMES_AGE_DAYS,
) -> pd.DataFrame:
    """The period's posts old enough to judge (their first `age_days` UTC days synced by
    `last_day`) with an audience: weekday and hour of publication in the period's time
    zone, channel_id, audience and readers at that age (min(lifetime readers, Σ unique
    viewers of those days))."""
    sql = (
        Sql("WITH cohort AS (")
        + cohort_rows(flt, [period])
        + Sql(
            "), judged AS (SELECT c.*, timezone('UTC', c.published_at)::DATE AS pub "
            "FROM cohort c WHERE c.audience > 0 "
            "AND timezone('UTC', c.published_at)::DATE + ? <= ?) "
            "SELECT isodow(timezone(?, j.published_at))::BIGINT - 1 AS weekday, "
            "hour(timezone(?, j.published_at))::BIGINT AS hour, j.channel_id, "
            "j.audience::BIGINT AS audience, least(j.readers, coalesce(sum(d.unique_viewers), "
            "0))::BIGINT AS readers FROM judged j LEFT JOIN post_daily d ON d.post_id = j.id "
            "AND d.date >= j.pub AND d.date < j.pub + ? "
            "GROUP BY j.id, j.published_at, j.channel_id, j.audience, j.readers",
            (age_days - 1, last_day, period.tz, period.tz, age_days),
        )
    )
    return run(con, sql, period.tz)


def _compare(
    slot: np.ndarray, o: np.ndarray, e: np.ndarray, v: np.ndarray, min_posts: int
) -> dict[str, np.ndarray]:
    """Per labelling (a row of `slot`, shape labellings × posts) and slot: posts `k`,
    readers `so`, expected `se`, `lift`, the log of its ratio to the rest's lift, that
    log's standard error `spread` (from each post's variance `v`), `var_slot` (its own
    part) and whether it is `tested`."""
    rows = slot.shape[0]
    flat = (slot + _SLOTS * np.arange(rows)[:, None]).ravel()

    def per_slot(values: np.ndarray | None) -> np.ndarray:
        weights = None if values is None else np.broadcast_to(values, slot.shape).ravel()
        return np.bincount(flat, weights, minlength=rows * _SLOTS).reshape(rows, _SLOTS)

    k, so, se, see = per_slot(None).astype("float64"), per_slot(o), per_slot(e), per_slot(e * e)
    sv = per_slot(v)
    total_o, total_e, total_k = so.sum(1, keepdims=True), se.sum(1, keepdims=True), len(o)
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = so / se
        rest = (total_o - so) / (total_e - se)
        # Var(O ÷ E) = Σv ÷ E², for the slot and for the rest (of a log, near 1).
        var_slot = sv / se**2
        kr = total_k - k
        spread = np.sqrt(var_slot + (sv.sum(1, keepdims=True) - sv) / (total_e - se) ** 2)
        log_ratio = np.log(lift / rest)
        # A large channel's posts weigh more: a slot's evidence is Kish's effective number
        # of posts, (Σe)² ÷ Σe².
        effective = np.nan_to_num(se**2 / see)
    tested = (effective >= min_posts) & (kr >= min_posts) & (so > 0) & (so < total_o)
    tested &= np.isfinite(log_ratio) & (spread > 0)
    return {
        "k": k,
        "so": so,
        "se": se,
        "lift": lift,
        "log_ratio": log_ratio,
        "spread": spread,
        "var_slot": var_slot,
        "tested": tested,
    }


def _variances(o: np.ndarray, e: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Each post's variance of readers when the hour makes no difference: binomial on its
    audience, e·(1 - rate), plus the posts' own spread, c²·e², with c² by the method of
    moments over all the posts (a post's content moves its readers more than chance)."""
    chance: np.ndarray = e * (1 - rate)
    scale = float(np.sum(e * e))
    beyond = max(float(np.sum((o - e) ** 2 - chance)) / scale, 0.0) if scale > 0 else 0.0
    return np.asarray(chance + beyond * e * e, dtype="float64")


def _critical(
    slot: np.ndarray,
    channel: np.ndarray,
    o: np.ndarray,
    e: np.ndarray,
    v: np.ndarray,
    min_posts: int,
) -> float:
    """The FAIR_CONFIDENCE quantile of the largest |z| over the slots when the hour makes no
    difference: slots shuffled among each channel's posts, BEST_TIMES_PERMUTATIONS times
    (a fixed seed: the same data give the same answer)."""
    rng = np.random.default_rng(BEST_TIMES_SEED)
    groups = [np.flatnonzero(channel == number) for number in np.unique(channel)]
    # A block of shuffles at a time, so that shuffles × posts stays within
    # BEST_TIMES_GRID_CELLS (1M posts: 4 at a time, not 200 × 1M labels at once).
    block = max(1, min(BEST_TIMES_PERMUTATIONS, BEST_TIMES_GRID_CELLS // max(len(slot), 1)))
    largest: list[np.ndarray] = []
    for first in range(0, BEST_TIMES_PERMUTATIONS, block):
        rows = min(block, BEST_TIMES_PERMUTATIONS - first)
        shuffled = np.empty((rows, len(slot)), dtype=np.int64)
        for mine in groups:
            labels = np.broadcast_to(slot[mine], (rows, len(mine)))
            shuffled[:, mine] = rng.permuted(labels, axis=1)
        stats = _compare(shuffled, o, e, v, min_posts)
        z = np.where(stats["tested"], np.abs(stats["log_ratio"] / stats["spread"]), 0.0)
        largest.append(z.max(axis=1))
    return float(np.quantile(np.concatenate(largest), FAIR_CONFIDENCE))


def judge_slots(
    posts: pd.DataFrame,
    *,
    min_posts: int = BEST_TIMES_MIN_POSTS,
    permute_up_to: int = BEST_TIMES_PERMUTE_UP_TO,
) -> pd.DataFrame:
    """168 rows (weekday × hour): posts, readers, expected_readers, vs_expected,
    adjusted_vs_expected,
    vs_rest with its interval adjusted for the slots tested (vs_rest_low, vs_rest_high),
    distinct (that interval excludes 1), too_few_to_rank and rank; attrs verdict,
    slots_tested, posts_judged, critical_z."""
    # One order whatever the query's: the permutations then give the same critical value.
    posts = posts.sort_values(["channel_id", "weekday", "hour", "audience", "readers"])
    audience = posts["audience"].to_numpy(dtype="float64")
    readers = posts["readers"].to_numpy(dtype="float64")
    channel = pd.factorize(posts["channel_id"])[0]
    seen = np.bincount(channel, readers, minlength=channel.max(initial=-1) + 1)
    base = np.bincount(channel, audience, minlength=channel.max(initial=-1) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = audience * (seen / base)[channel]
    keep = expected > 0
    slot = (posts["weekday"].to_numpy(np.int64) * 24 + posts["hour"].to_numpy(np.int64))[keep]
    o, e, channel = readers[keep], expected[keep], channel[keep]
    v = _variances(o, e, (seen / base)[channel])
    stats = {key: value[0] for key, value in _compare(slot[None, :], o, e, v, min_posts).items()}
    tested, log_ratio, spread = stats["tested"], stats["log_ratio"], stats["spread"]
    critical = float("nan")
    if tested.any() and len(o) <= permute_up_to:
        critical = _critical(slot, channel, o, e, v, min_posts)
    elif tested.any():
        # So many posts that every tested slot's z is near normal: Bonferroni's bound,
        # which the shuffles would reach within noise at a fraction of their cost.
        critical = NormalDist().inv_cdf(1 - (1 - FAIR_CONFIDENCE) / (2 * int(tested.sum())))
    low = np.where(tested, np.exp(log_ratio - critical * spread), np.nan)
    high = np.where(tested, np.exp(log_ratio + critical * spread), np.nan)
    distinct = tested & ((low > 1) | (high < 1))
    lift = np.where(stats["k"] > 0, stats["lift"], np.nan)
    adjusted = np.full(_SLOTS, np.nan)
    if tested.any():
        # Empirical Bayes on the log lifts: each pulled toward their mean by the share of
        # its variance that is noise (the spread between slots beyond it by moments).
        y, v = np.log(lift[tested]), stats["var_slot"][tested]
        centre = float(np.mean(y))
        between = max(float(np.var(y)) - float(np.mean(v)), 0.0)
        adjusted[tested] = np.exp(centre + (y - centre) * between / (between + v))
    frame = pd.DataFrame(
        {
            "weekday": np.repeat(np.arange(7), 24),
            "hour": np.tile(np.arange(24), 7),
            "posts": pd.array(stats["k"].astype(np.int64), dtype="Int64"),
            "readers": pd.array(stats["so"].round().astype(np.int64), dtype="Int64"),
            "expected_readers": stats["se"],
            "vs_expected": lift,
            "adjusted_vs_expected": adjusted,
            "vs_rest": np.where(tested, np.exp(log_ratio), np.nan),
            "vs_rest_low": low,
            "vs_rest_high": high,
            "distinct": pd.array(distinct, dtype="boolean"),
            "too_few_to_rank": pd.array(~tested, dtype="boolean"),
        }
    )
    frame.insert(1, "weekday_name", frame["weekday"].map(dict(enumerate(WEEKDAYS))))
    keys = (frame["hour"], frame["weekday"], -np.nan_to_num(lift, nan=-np.inf))
    order = np.lexsort((*keys, -np.nan_to_num(adjusted, nan=-np.inf), ~tested))
    frame = frame.iloc[order].reset_index(drop=True)
    apart = frame["too_few_to_rank"].to_numpy(dtype=bool)
    frame["rank"] = pd.array(np.cumsum(~apart), dtype="Int64")
    frame.loc[apart, "rank"] = pd.NA
    frame.attrs.update(
        verdict=RELIABLE if distinct.any() else NO_DIFFERENCE,
        slots_tested=int(tested.sum()),
        posts_judged=int(stats["k"].sum()),
        critical_z=critical,
    )
    return frame
