"""Rates that small samples cannot fool (definitions and a worked example: docs/metrics.md,
"Fair rankings").

Every rate in a ranking gets a 95% score interval beside it, and rankings order by an
empirical-Bayes estimate: the rate shrunk toward what is expected of the item (its
channel's rate, the workspace's), by a prior fitted on all the items by the method of
moments. An item with a small audience barely moves from what is expected of it, so it
cannot top a ranking by luck; one with a large audience keeps its own rate. Items whose
base (audience, opens) is below FAIR_MIN_BASE are "too few to rank": listed after the
ranked ones, without a rank.

    low, high = rate_interval(readers, audience)              # Wilson, per item
    strength = prior_strength(readers, audience, expected)    # the prior's weight M
    adjusted = shrink(readers, audience, expected, strength)  # (x + M·μ) / (n + M)
    ranked = rank_fairly(frame, "read_rate", "readers", "audience", expected)
"""

from __future__ import annotations

from statistics import NormalDist
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from channelkit._constants import FAIR_CONFIDENCE, FAIR_MAX_STRENGTH, FAIR_MIN_BASE

# A proportion (readers of an audience, at most one each) or a count rate (engagements per
# open, which can exceed one): binomial or Poisson variance, beta or gamma prior.
RateKind = Literal["proportion", "count"]
FAIR_NOTE = "ranked by read rate adjusted for audience size"
INTERVALS = f"{FAIR_CONFIDENCE:.0%} intervals"
# What a ranked frame rests on (`attrs["basis"]`, in its caption in a notebook).
READ_RATE_BASIS = f"{FAIR_NOTE}; {INTERVALS}"
ENGAGEMENT_BASIS = f"ranked by engagement rate adjusted for the number of opens; {INTERVALS}"
GROUP_BASIS = (
    "readers vs expected: their readers against what their channels' read rates expect, "
    f"with {INTERVALS}; adjusted for audience size"
)


def z_value(confidence: float = FAIR_CONFIDENCE) -> float:
    """The two-sided normal quantile: 1.96 for 95%."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def rate_interval(
    successes: ArrayLike,
    trials: ArrayLike,
    kind: RateKind = "proportion",
    confidence: float = FAIR_CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray]:
    """The score interval of successes ÷ trials (NaN where trials is 0).

    proportion: Wilson's, (p + z²/2n ± z·√(p(1-p)/n + z²/4n²)) ÷ (1 + z²/n);
    count: the Poisson score interval, r + z²/2n ± z·√(r/n + z²/4n²).
    Both stay inside [0, 1] (or [0, ∞)) and keep a width for 0 or n successes.
    """
    x = np.asarray(successes, dtype="float64")
    n = np.asarray(trials, dtype="float64")
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = x / n
        if kind == "proportion":
            scale = 1 + z * z / n
            centre = (rate + z * z / (2 * n)) / scale
            half = z * np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / scale
        else:
            centre = rate + z * z / (2 * n)
            half = z * np.sqrt(rate / n + z * z / (4 * n * n))
    empty = ~(n > 0)
    low = np.where(empty, np.nan, np.maximum(centre - half, 0.0))
    high = np.where(empty, np.nan, centre + half)
    if kind == "proportion":
        high = np.minimum(high, 1.0)
    return low, high


def _variance(expected: np.ndarray, kind: RateKind) -> np.ndarray:
    """The variance of one trial at the expected rate."""
    return expected * (1 - expected) if kind == "proportion" else expected


def prior_strength(
    successes: ArrayLike, trials: ArrayLike, expected: ArrayLike, kind: RateKind = "proportion"
) -> float:
    """The prior's weight M (in trials) by the method of moments.

    Each item's true rate varies around its expected rate μ with variance v/(M+1) for a
    proportion (a beta prior; v = μ(1-μ)) or μ/M for a count (a gamma prior), so
    E[(x - nμ)²] = n·v + n(n-1)·v/(M+1) (proportion) or n·μ + n²·μ/M (count). Summing
    over the items and solving for M gives the estimate; a spread no larger than chance
    gives FAIR_MAX_STRENGTH (every item is shrunk almost all the way to what is
    expected of it).
    """
    x = np.asarray(successes, dtype="float64")
    n = np.asarray(trials, dtype="float64")
    mu = np.asarray(expected, dtype="float64")
    keep = (n > 0) & np.isfinite(mu) & (mu > 0) & ((mu < 1) | (kind == "count"))
    x, n, mu = x[keep], n[keep], mu[keep]
    v = _variance(mu, kind)
    return strength_from_sums(
        float(np.sum((x - n * mu) ** 2)),
        float(np.sum(n * v)),
        float(np.sum(n * (n - 1) * v)) if kind == "proportion" else float(np.sum(n * n * mu)),
        kind,
    )


def strength_from_sums(squares: float, chance: float, spread: float, kind: RateKind) -> float:
    """`prior_strength` from its three sums over the items: Σ(x - nμ)², Σ n·v and
    Σ n(n-1)·v (proportion) or Σ n²·μ (count), for callers that sum them in SQL."""
    beyond = squares - chance
    if beyond <= 0 or spread <= 0:
        return FAIR_MAX_STRENGTH
    share = beyond / spread  # 1/(M+1) for a proportion, 1/M for a count
    strength = 1 / share - 1 if kind == "proportion" else 1 / share
    return float(min(max(strength, 0.0), FAIR_MAX_STRENGTH))


def shrink(
    successes: ArrayLike, trials: ArrayLike, expected: ArrayLike, strength: float
) -> np.ndarray:
    """The posterior mean (x + M·μ) ÷ (n + M): the rate pulled toward μ by M trials' worth."""
    x = np.asarray(successes, dtype="float64")
    n = np.asarray(trials, dtype="float64")
    mu = np.asarray(expected, dtype="float64")
    return (x + strength * mu) / (n + strength)


def pooled(successes: ArrayLike, trials: ArrayLike) -> float:
    """Σ successes ÷ Σ trials (NaN without trials)."""
    total = float(np.sum(np.asarray(trials, dtype="float64")))
    found = float(np.sum(np.asarray(successes, dtype="float64")))
    return found / total if total > 0 else float("nan")


def channel_expected(
    successes: ArrayLike, trials: ArrayLike, kind: RateKind = "proportion"
) -> np.ndarray:
    """Each channel's adjusted rate (its rate shrunk toward the workspace's pooled rate):
    the expected rate of its posts."""
    mu = np.full(np.shape(trials), pooled(successes, trials))
    return shrink(successes, trials, mu, prior_strength(successes, trials, mu, kind))


def rank_fairly(
    frame: pd.DataFrame,
    rate: str,
    successes: str,
    trials: str,
    expected: ArrayLike,
    *,
    kind: RateKind = "proportion",
    tiebreak: str | None = None,
) -> pd.DataFrame:
    """`frame` with `{rate}_low`, `{rate}_high`, `adjusted_{rate}`, `too_few_to_rank` and
    `rank` (1.. for ranked items, NA for too few), ranked items first by adjusted rate
    (then `tiebreak`), then those too few to rank by their base, largest first.

    `expected` is each item's prior mean (per row of `frame`); the prior's strength is
    fitted on the items with a base of at least FAIR_MIN_BASE and kept in
    `attrs["prior_strength"]`.
    """
    x = frame[successes].to_numpy(dtype="float64", na_value=0.0)
    n = frame[trials].to_numpy(dtype="float64", na_value=0.0)
    mu = np.asarray(expected, dtype="float64")
    if kind == "proportion":
        x = np.minimum(x, n)
    enough = n >= FAIR_MIN_BASE
    strength = prior_strength(x[enough], n[enough], mu[enough], kind)
    out = frame.copy()
    low, high = rate_interval(x, n, kind)
    out[f"{rate}_low"] = low
    out[f"{rate}_high"] = high
    adjusted = np.where(n > 0, shrink(x, n, mu, strength), np.nan)
    out[f"adjusted_{rate}"] = adjusted
    out["too_few_to_rank"] = pd.array(~enough, dtype="boolean")
    out = in_rank_order(out, f"adjusted_{rate}", trials, tiebreak=tiebreak)
    out.attrs["prior_strength"] = strength
    return out


def in_rank_order(
    frame: pd.DataFrame, score: str, base: str, *, tiebreak: str | None = None
) -> pd.DataFrame:
    """`frame` with `rank`: the items not `too_few_to_rank` first, by `score` (largest
    first), then those too few by their `base` (largest first); ties by `tiebreak`."""
    apart = frame["too_few_to_rank"].to_numpy(dtype=bool, na_value=True)
    scores = frame[score].to_numpy(dtype="float64", na_value=np.nan)
    sizes = frame[base].to_numpy(dtype="float64", na_value=0.0)
    keyed = frame.assign(
        _apart=apart, _key=np.where(apart, -sizes, -np.nan_to_num(scores, nan=-np.inf))
    )
    by = ["_apart", "_key", *([tiebreak] if tiebreak is not None else [])]
    ordered = keyed.sort_values(by, kind="stable").drop(columns=["_apart", "_key"])
    return with_rank(ordered.reset_index(drop=True))


def with_rank(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` (ranked items first, then those `too_few_to_rank`) with `rank`: 1.. for the
    ranked items, NA for the others."""
    apart = frame["too_few_to_rank"].to_numpy(dtype=bool, na_value=True)
    frame["rank"] = pd.array(np.cumsum(~apart), dtype="Int64")
    frame.loc[apart, "rank"] = pd.NA
    return frame


def shrink_normal(estimates: ArrayLike, variances: ArrayLike) -> np.ndarray:
    """Empirical Bayes on a log scale (normal prior, normal noise): each estimate pulled
    toward their mean by the share of its variance that is noise, centre + (y - centre) ·
    τ² ÷ (τ² + v), where τ², the spread between the items beyond noise, is fitted by
    moments: max(Var(y) - mean(v), 0). No spread beyond noise shrinks every item to the
    centre."""
    y = np.asarray(estimates, dtype="float64")
    noise = np.asarray(variances, dtype="float64")
    if y.size == 0:
        return y
    centre = float(np.mean(y))
    between = max(float(np.var(y)) - float(np.mean(noise)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(between + noise > 0, between / (between + noise), 0.0)
    return np.asarray(centre + (y - centre) * share, dtype="float64")


def with_interval(
    frame: pd.DataFrame, rate: str, successes: str, trials: str, kind: RateKind = "proportion"
) -> pd.DataFrame:
    """`frame` with `{rate}_low` and `{rate}_high` (the score interval) right after `rate`."""
    low, high = rate_interval(frame[successes], frame[trials], kind)
    at = list(frame.columns).index(rate) + 1
    frame.insert(at, f"{rate}_low", low)
    frame.insert(at + 1, f"{rate}_high", high)
    return frame


def post_prior(sums: pd.DataFrame, kind: RateKind = "proportion") -> tuple[dict[str, float], float]:
    """What posts are shrunk toward: each channel's adjusted rate (`channel_expected`), and
    the posts' prior strength around it, from per-channel sums of the posts (x successes,
    n trials): columns channel_id, x, n, xx (Σx²), xn (Σxn), nn (Σn²)."""
    if sums.empty:
        return {}, FAIR_MAX_STRENGTH
    x, n = sums["x"].to_numpy("float64"), sums["n"].to_numpy("float64")
    mu = channel_expected(x, n, kind)
    v = _variance(mu, kind)
    xx, xn, nn = (sums[c].to_numpy("float64") for c in ("xx", "xn", "nn"))
    strength = strength_from_sums(
        float(np.sum(xx - 2 * mu * xn + mu * mu * nn)),
        float(np.sum(v * n)),
        float(np.sum(v * (nn - n))) if kind == "proportion" else float(np.sum(mu * nn)),
        kind,
    )
    return dict(zip(sums["channel_id"].astype(str), mu.tolist(), strict=True)), strength
