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
`verdict` is "some hours reliably better" when some slot's interval lies above 1, "no hour
reliably better (some reliably worse)" when only some lie below it, else "no reliable
difference". Slots rank by `vs_expected` shrunk toward the typical slot (`fair.shrink_normal`
on the logs).

    frame = judge_slots(posts)          # weekday, hour, channel_id, audience, readers
    frame.attrs["verdict"]              # one of VERDICTS
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

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
from channelkit.analysis import fair
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.rows import cohort_rows, query_frame
from channelkit.analysis.sql import Sql
from channelkit.display.columns import declare
from channelkit.display.kinds import COUNT, HOUR, NUMBER, RATIO

SOME_BETTER = "some hours reliably better"
ONLY_WORSE = "no hour reliably better (some reliably worse)"
NO_DIFFERENCE = "no reliable difference"
VERDICTS = (SOME_BETTER, ONLY_WORSE, NO_DIFFERENCE)
_SLOTS = 7 * 24


BEST_TIMES = declare(
    "best_times",
    dict(
        weekday=NUMBER,
        hour=HOUR,
        **dict.fromkeys(("posts", "readers", "expected_readers", "rank"), COUNT),
        **dict.fromkeys(("vs_expected", "adjusted_vs_expected", "vs_rest"), RATIO),
    ),
)


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
            (age_days - 1, last_day, period.tz.key, period.tz.key, age_days),
        )
    )
    return query_frame(con, sql, period.tz)


@dataclass(frozen=True)
class SlotSums:
    """Per labelling (a row, shape labellings × 168 slots) and slot: its posts, readers and
    expected readers, `lift` (readers ÷ expected), `log_ratio` (the log of its lift ÷ the
    rest's), that log's standard error `spread`, `own_variance` (the slot's part of
    it) and whether it is `tested`."""

    posts: np.ndarray
    readers: np.ndarray
    expected: np.ndarray
    lift: np.ndarray
    log_ratio: np.ndarray
    spread: np.ndarray
    own_variance: np.ndarray
    tested: np.ndarray

    def z(self) -> np.ndarray:
        """|z| of each tested slot, 0 for the others."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.tested, np.abs(self.log_ratio / self.spread), 0.0)


def _compare(
    slot: np.ndarray,
    readers: np.ndarray,
    expected: np.ndarray,
    variance: np.ndarray,
    min_posts: int,
) -> SlotSums:
    """Each labelling's slot sums (a row of `slot`, shape labellings × posts), from each
    post's readers, expected readers and `variance` of readers."""
    rows = slot.shape[0]
    flat = (slot + _SLOTS * np.arange(rows)[:, None]).ravel()

    def per_slot(values: np.ndarray | None) -> np.ndarray:
        weights = None if values is None else np.broadcast_to(values, slot.shape).ravel()
        return np.bincount(flat, weights, minlength=rows * _SLOTS).reshape(rows, _SLOTS)

    posts = per_slot(None).astype("float64")
    seen, due, due_squared = per_slot(readers), per_slot(expected), per_slot(expected**2)
    noise = per_slot(variance)
    all_seen, all_due = seen.sum(1, keepdims=True), due.sum(1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = seen / due
        rest = (all_seen - seen) / (all_due - due)
        # Var(O ÷ E) = Σv ÷ E², for the slot and for the rest (of a log, near 1).
        own = noise / due**2
        spread = np.sqrt(own + (noise.sum(1, keepdims=True) - noise) / (all_due - due) ** 2)
        log_ratio = np.log(lift / rest)
        # A large channel's posts weigh more: a slot's evidence is Kish's effective number
        # of posts, (Σe)² ÷ Σe².
        effective = np.nan_to_num(due**2 / due_squared)
    tested = (effective >= min_posts) & (len(readers) - posts >= min_posts)
    tested &= (seen > 0) & (seen < all_seen) & np.isfinite(log_ratio) & (spread > 0)
    return SlotSums(posts, seen, due, lift, log_ratio, spread, own, tested)


def _variances(readers: np.ndarray, expected: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Each post's variance of readers when the hour makes no difference: binomial on its
    audience, e·(1 - rate), plus the posts' own spread, c²·e², with c² by the method of
    moments over all the posts (a post's content moves its readers more than chance)."""
    chance: np.ndarray = expected * (1 - rate)
    scale = float(np.sum(expected**2))
    beyond = np.sum((readers - expected) ** 2 - chance)
    share = max(float(beyond) / scale, 0.0) if scale > 0 else 0.0
    return np.asarray(chance + share * expected**2, dtype="float64")


def _critical(
    slot: np.ndarray,
    channel: np.ndarray,
    readers: np.ndarray,
    expected: np.ndarray,
    variance: np.ndarray,
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
        largest.append(_compare(shuffled, readers, expected, variance, min_posts).z().max(1))
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
    better_slots, worse_slots, slots_tested, posts_judged, critical_z."""
    # One order whatever the query's: the permutations then give the same critical value.
    posts = posts.sort_values(["channel_id", "weekday", "hour", "audience", "readers"])
    audience = posts["audience"].to_numpy(dtype="float64")
    readers = posts["readers"].to_numpy(dtype="float64")
    channel = pd.factorize(posts["channel_id"])[0]
    seen = np.bincount(channel, readers, minlength=channel.max(initial=-1) + 1)
    base = np.bincount(channel, audience, minlength=channel.max(initial=-1) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        channel_rate = (seen / base)[channel]
    expected = audience * channel_rate
    keep = expected > 0
    slot = (posts["weekday"].to_numpy(np.int64) * 24 + posts["hour"].to_numpy(np.int64))[keep]
    readers, expected, channel = readers[keep], expected[keep], channel[keep]
    variance = _variances(readers, expected, channel_rate[keep])
    sums = _compare(slot[None, :], readers, expected, variance, min_posts)
    tested = sums.tested[0]
    log_ratio, spread, lift = sums.log_ratio[0], sums.spread[0], sums.lift[0]
    critical = float("nan")
    if tested.any() and len(readers) <= permute_up_to:
        critical = _critical(slot, channel, readers, expected, variance, min_posts)
    elif tested.any():
        # So many posts that every tested slot's z is near normal: Bonferroni's bound,
        # which the shuffles would reach within noise at a fraction of their cost.
        critical = fair.z_value(1 - (1 - FAIR_CONFIDENCE) / int(tested.sum()))
    low = np.where(tested, np.exp(log_ratio - critical * spread), np.nan)
    high = np.where(tested, np.exp(log_ratio + critical * spread), np.nan)
    better, worse = tested & (low > 1), tested & (high < 1)
    lift = np.where(sums.posts[0] > 0, lift, np.nan)
    adjusted = np.full(_SLOTS, np.nan)
    adjusted[tested] = np.exp(
        fair.shrink_normal(np.log(lift[tested]), sums.own_variance[0][tested])
    )
    frame = pd.DataFrame(
        {
            "weekday": np.repeat(np.arange(7), 24),
            "hour": np.tile(np.arange(24), 7),
            "posts": pd.array(sums.posts[0].astype(np.int64), dtype="Int64"),
            "readers": pd.array(sums.readers[0].round().astype(np.int64), dtype="Int64"),
            "expected_readers": sums.expected[0],
            "vs_expected": lift,
            "adjusted_vs_expected": adjusted,
            "vs_rest": np.where(tested, np.exp(log_ratio), np.nan),
            "vs_rest_low": low,
            "vs_rest_high": high,
            "distinct": pd.array(better | worse, dtype="boolean"),
            "too_few_to_rank": pd.array(~tested, dtype="boolean"),
        }
    )
    frame.insert(1, "weekday_name", frame["weekday"].map(dict(enumerate(WEEKDAYS))))
    keys = (frame["hour"], frame["weekday"], -np.nan_to_num(lift, nan=-np.inf))
    order = np.lexsort((*keys, -np.nan_to_num(adjusted, nan=-np.inf), ~tested))
    frame = fair.with_rank(frame.iloc[order].reset_index(drop=True))
    said = verdict(int(better.sum()), int(worse.sum()))
    frame.attrs.update(
        verdict=said,
        basis=(
            f"{said}; ranked by readers against their channels' usual, adjusted for each "
            f"slot's evidence; intervals hold for all {int(tested.sum())} slots tested at once "
            f"({FAIR_CONFIDENCE:.0%})"
        ),
        better_slots=int(better.sum()),
        worse_slots=int(worse.sum()),
        slots_tested=int(tested.sum()),
        posts_judged=int(sums.posts[0].sum()),
        critical_z=critical,
    )
    return frame


def verdict(better: int, worse: int) -> str:
    """The words for what `better` and `worse` distinct slots say."""
    if better:
        return SOME_BETTER
    return ONLY_WORSE if worse else NO_DIFFERENCE
