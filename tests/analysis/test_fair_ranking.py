"""Fair rankings and best times (analysis/fair.py, analysis/timing.py; docs/metrics.md "Fair
rankings" and "Best times"): checked against independent recomputations, and on synthetic
workspaces where the truth is known (tests/fixtures/equal_rates.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import channelkit as ck
from channelkit._constants import FAIR_MIN_BASE
from channelkit.analysis import fair
from channelkit.analysis.timing import NO_DIFFERENCE, ONLY_WORSE, SOME_BETTER, judge_slots
from fixtures import equal_rates
from fixtures.equal_rates import SMALL_AUDIENCE, TRUE_RATE

SEEDS = range(100)
# The top 5 of a ranking may hold small-audience items at most this much more often than
# their share of the items (averaged over the seeds): the sampling error of that average
# over 100 seeds is about 0.02.
TOLERANCE = 0.05
Z = 1.959963984540054


def _roots(score: object, lo: float, hi: float) -> float:
    """A root of `score` (a function of p, changing sign on [lo, hi]) by bisection."""
    f = score  # type: ignore[assignment]
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(lo) < 0) == (f(mid) < 0):  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize(("x", "n"), [(0, 10), (3, 10), (10, 10), (650, 1000), (1, 30)])
def test_wilson_interval_is_where_the_score_test_stops_rejecting(x: int, n: int) -> None:
    # The Wilson interval is every p the score test (p̂ - p)² ≤ z²·p(1-p)/n keeps: solved
    # here by bisection on each side of p̂, not by the closed form fair.interval uses.
    rate = x / n

    def score(p: float) -> float:
        return (rate - p) ** 2 - Z * Z * p * (1 - p) / n

    # p̂ itself is a root of nothing: each side is searched from just beside it.
    low = 0.0 if x == 0 else _roots(score, 0.0, rate - 1e-12)
    high = 1.0 if x == n else _roots(score, rate + 1e-12, 1.0)
    got_low, got_high = fair.rate_interval(np.array([x]), np.array([n]))
    assert (got_low[0], got_high[0]) == pytest.approx((low, high), abs=1e-9)


def test_count_interval_is_where_the_poisson_score_test_stops_rejecting() -> None:
    x, n = 24, 120  # engagements per open
    rate = x / n

    def score(lam: float) -> float:
        return (rate - lam) ** 2 - Z * Z * lam / n

    low, high = _roots(score, 1e-12, rate - 1e-12), _roots(score, rate + 1e-12, 10.0)
    got_low, got_high = fair.rate_interval(np.array([x]), np.array([n]), "count")
    assert (got_low[0], got_high[0]) == pytest.approx((low, high), abs=1e-9)


def test_shrinkage_recomputed_by_hand() -> None:
    # Four channels (readers, audience) against the workspace's pooled rate, in plain
    # Python from the formulas of docs/metrics.md.
    items = [(30, 40), (300, 1000), (700, 1200), (2600, 5000)]
    p = sum(x for x, _ in items) / sum(n for _, n in items)
    v = p * (1 - p)
    squares = sum((x - n * p) ** 2 for x, n in items)
    chance = sum(n * v for _, n in items)
    spread = sum(n * (n - 1) * v for _, n in items)
    strength = 1 / ((squares - chance) / spread) - 1
    adjusted = [(x + strength * p) / (n + strength) for x, n in items]

    x = np.array([x for x, _ in items])
    n = np.array([n for _, n in items])
    assert fair.prior_strength(x, n, np.full(4, p)) == pytest.approx(strength)
    frame = pd.DataFrame({"id": list("abcd"), "x": x, "n": n, "rate": x / n})
    ranked = fair.rank_fairly(frame, "rate", "x", "n", np.full(4, p), tiebreak="id")
    by_id = ranked.set_index("id")
    assert list(by_id.loc[list("abcd"), "adjusted_rate"]) == pytest.approx(adjusted)
    # The 40-subscriber channel's 75% is pulled furthest toward the pooled rate.
    assert list(ranked["id"]) == sorted("abcd", key=lambda i: -adjusted["abcd".index(i)])
    assert list(ranked["rank"]) == [1, 2, 3, 4]


@pytest.mark.parametrize("kind", ["proportion", "count"])
def test_prior_strength_recovers_a_known_prior(kind: fair.RateKind) -> None:
    rng = np.random.default_rng(7)
    true_strength, items = 200.0, 4_000
    n = np.exp(rng.uniform(np.log(20), np.log(5_000), items)).round()
    mu = rng.uniform(0.2, 0.8, items)
    if kind == "proportion":
        theta = rng.beta(mu * true_strength, (1 - mu) * true_strength)
        x = rng.binomial(n.astype(np.int64), theta)
    else:
        theta = rng.gamma(mu * true_strength, 1 / true_strength)
        x = rng.poisson(n * theta)
    got = fair.prior_strength(x, n, mu, kind)
    assert got == pytest.approx(true_strength, rel=0.15)


def test_rates_that_vary_by_chance_alone_are_shrunk_all_the_way() -> None:
    rng = np.random.default_rng(3)
    n = np.full(200, 500)
    x = rng.binomial(n, TRUE_RATE)
    assert fair.prior_strength(x, n, np.full(200, TRUE_RATE)) >= 1e4


def _small_in_top(rate: np.ndarray, audience: np.ndarray, rankable: np.ndarray) -> float:
    """The share of the top 5 (highest `rate` among `rankable`) with a small audience."""
    order = np.lexsort((-rate, ~rankable))[:5]
    return float(np.mean(audience[order] < SMALL_AUDIENCE))


def test_small_audiences_do_not_top_the_rankings_over_100_seeds() -> None:
    found: dict[str, list[float]] = {"channels": [], "posts": [], "groups": []}
    raw: dict[str, list[float]] = {"channels": [], "posts": [], "groups": []}
    share: dict[str, list[float]] = {"channels": [], "posts": [], "groups": []}
    for seed in SEEDS:
        posts = equal_rates.posts(seed)
        channels = posts.groupby("channel_id", as_index=False).agg(
            x=("readers", "sum"), n=("audience", "sum"), audience=("audience", "first")
        )
        channels["rate"] = channels["x"] / channels["n"]
        pooled = np.full(len(channels), fair.pooled(channels["x"], channels["n"]))
        ranked = fair.rank_fairly(channels, "rate", "x", "n", pooled, tiebreak="channel_id")
        audience = ranked["audience"].to_numpy()
        rankable = ~ranked["too_few_to_rank"].to_numpy(bool)
        found["channels"].append(
            _small_in_top(ranked["adjusted_rate"].to_numpy(), audience, rankable)
        )
        raw["channels"].append(_small_in_top(ranked["rate"].to_numpy(), audience, rankable))
        share["channels"].append(float(np.mean(channels["audience"] < SMALL_AUDIENCE)))

        # Posts, shrunk toward their channel's adjusted rate (fair.post_prior).
        sums = posts.assign(x=posts["readers"], n=posts["audience"])
        sums = sums.assign(xx=sums["x"] ** 2, xn=sums["x"] * sums["n"], nn=sums["n"] ** 2)
        enough = sums[sums["n"] >= FAIR_MIN_BASE]
        per_channel = enough.groupby("channel_id", as_index=False)[
            ["x", "n", "xx", "xn", "nn"]
        ].sum()
        prior, strength = fair.post_prior(per_channel)
        mu = posts["channel_id"].map(prior).to_numpy("float64")
        adjusted = fair.shrink(posts["readers"], posts["audience"], mu, strength)
        audience = posts["audience"].to_numpy()
        rankable = audience >= FAIR_MIN_BASE
        found["posts"].append(_small_in_top(np.nan_to_num(adjusted), audience, rankable))
        raw["posts"].append(_small_in_top(posts["readers"] / audience, audience, rankable))
        share["posts"].append(float(np.mean(audience < SMALL_AUDIENCE)))

        # Groups of posts of one channel and tag (the lifts by channel): against what
        # their channel's rate expects.
        rate = posts["channel_id"].map(posts.groupby("channel_id")["readers"].sum() /
                                       posts.groupby("channel_id")["audience"].sum())  # fmt: skip
        groups = (
            posts.assign(expected=posts["audience"] * rate)
            .groupby(["channel_id", "tag"], as_index=False)
            .agg(
                x=("readers", "sum"),
                n=("audience", "sum"),
                e=("expected", "sum"),
                audience=("audience", "first"),
            )  # fmt: skip
        )
        groups["vs"] = groups["x"] / groups["e"]
        mu = (groups["e"] / groups["n"]).to_numpy()
        ranked = fair.rank_fairly(groups, "vs", "x", "n", mu)
        fair_vs = ranked["adjusted_vs"].to_numpy() / (ranked["e"] / ranked["n"]).to_numpy()
        audience = ranked["audience"].to_numpy()
        rankable = ~ranked["too_few_to_rank"].to_numpy(bool)
        found["groups"].append(_small_in_top(fair_vs, audience, rankable))
        raw["groups"].append(_small_in_top(ranked["vs"].to_numpy(), audience, rankable))
        share["groups"].append(float(np.mean(groups["audience"] < SMALL_AUDIENCE)))
    for name in found:
        limit = np.mean(share[name]) + TOLERANCE
        assert np.mean(found[name]) <= limit, (name, np.mean(found[name]), limit)
        # The raw rates fail the same test: it can tell a fair ranking from an unfair one.
        assert np.mean(raw[name]) > limit, (name, np.mean(raw[name]), limit)


def test_best_times_find_no_difference_where_there_is_none_over_100_seeds() -> None:
    verdicts = [judge_slots(equal_rates.posts(seed)).attrs["verdict"] for seed in SEEDS]
    assert verdicts.count(NO_DIFFERENCE) >= 90, verdicts.count(NO_DIFFERENCE)


def test_without_shuffles_bonferroni_holds_as_well_over_100_seeds() -> None:
    # The bound used above BEST_TIMES_PERMUTE_UP_TO posts, tried on the same small posts.
    verdicts = [
        judge_slots(equal_rates.posts(seed), permute_up_to=0).attrs["verdict"] for seed in SEEDS
    ]
    assert verdicts.count(NO_DIFFERENCE) >= 90, verdicts.count(NO_DIFFERENCE)


def test_best_times_find_a_planted_best_hour_over_100_seeds() -> None:
    first = [
        int(judge_slots(equal_rates.posts(seed, planted=1.23)).loc[0, "hour"]) for seed in SEEDS
    ]
    assert first.count(9) >= 80, first.count(9)


def test_a_planted_worse_hour_is_no_hour_better_some_worse_over_30_seeds() -> None:
    # 09:00 read 23% less: the verdict names the worse hours and no better one.
    verdicts, only_nine = [], []
    for seed in SEEDS[:30]:
        frame = judge_slots(equal_rates.posts(seed, planted=0.77))
        verdicts.append(frame.attrs["verdict"])
        distinct = frame[frame["distinct"].to_numpy(bool)]
        only_nine.append(len(distinct) > 0 and set(distinct["hour"]) == {9})
        assert frame.attrs["worse_slots"] == int((distinct["vs_rest_high"] < 1).sum())
        assert frame.attrs["better_slots"] == int((distinct["vs_rest_low"] > 1).sum())
    assert verdicts.count(ONLY_WORSE) >= 25, verdicts.count(ONLY_WORSE)
    assert sum(only_nine) >= 25, sum(only_nine)


def test_log_scale_shrinkage_recomputed_by_hand() -> None:
    # Normal prior, normal noise: τ² = max(Var(y) - mean(v), 0); y pulled by τ² ÷ (τ² + v).
    logs = [0.30, -0.10, 0.05, -0.40, 0.12]
    noise = [0.01, 0.04, 0.002, 0.09, 0.02]
    centre = sum(logs) / len(logs)
    spread = sum((y - centre) ** 2 for y in logs) / len(logs) - sum(noise) / len(noise)
    expected = [
        centre + (y - centre) * spread / (spread + v) for y, v in zip(logs, noise, strict=True)
    ]
    assert list(fair.shrink_normal(logs, noise)) == pytest.approx(expected)
    # No spread beyond noise: every item is the centre.
    assert list(fair.shrink_normal([0.1, -0.1], [1.0, 1.0])) == pytest.approx([0.0, 0.0])


@pytest.mark.parametrize("seed", [0, 1])  # 0: one of the few false alarms
def test_the_warehouse_ranks_fairly_and_judges_hours(tmp_path: Path, seed: int) -> None:
    frame = equal_rates.posts(seed)
    wh = ck.Warehouse(equal_rates.build(tmp_path / "equal.duckdb", frame))
    window = {"period": "all time", "tz": "UTC"}
    channels = wh.channel_comparison(**window)
    # The same ranking as the pure function on the same sums (lifetime readers, since
    # every post is older than its reach).
    sums = frame.groupby("channel_id", as_index=False).agg(
        rated_readers=("readers", "sum"), audience=("audience", "sum")
    )
    pooled = np.full(len(sums), fair.pooled(sums["rated_readers"], sums["audience"]))
    sums["read_rate"] = sums["rated_readers"] / sums["audience"]
    expected = fair.rank_fairly(sums, "read_rate", "rated_readers", "audience", pooled)
    assert list(channels["channel_id"]) == list(expected["channel_id"])
    assert list(channels["adjusted_read_rate"]) == pytest.approx(
        list(expected["adjusted_read_rate"])
    )
    assert (channels["read_rate_low"] <= channels["read_rate"]).all()
    assert (channels["read_rate"] <= channels["read_rate_high"]).all()

    top = wh.top_posts("read_rate", n=5, **window)
    assert (top["audience"] >= FAIR_MIN_BASE).all()
    assert list(top["adjusted_read_rate"]) == sorted(top["adjusted_read_rate"], reverse=True)
    assert top.attrs["too_few_to_rank"] == int((frame["audience"] < FAIR_MIN_BASE).sum()) - int(
        top.attrs.get("still_collecting_readers", 0)
    )

    tags = wh.tag_performance(by="channel", **window)
    assert {"vs_expected_low", "vs_expected_high", "adjusted_vs_expected"} <= set(tags.columns)

    hours = wh.best_times(**window)
    alone = judge_slots(frame)  # the same posts, judged without the warehouse
    assert hours.attrs["verdict"] == alone.attrs["verdict"]
    pd.testing.assert_frame_equal(hours, alone, check_like=True, check_dtype=False)
    planted = equal_rates.posts(seed, planted=1.23)
    best = ck.Warehouse(equal_rates.build(tmp_path / "planted.duckdb", planted)).best_times(
        **window
    )
    assert best.attrs["verdict"] == SOME_BETTER
    assert best.loc[0, "hour"] == 9 and bool(best.loc[0, "distinct"])
    assert best.attrs["posts_judged"] == len(planted)
    assert math.isfinite(best.attrs["critical_z"])


def test_engagement_rate_ranking_recomputed_by_hand(small_warehouse: Path) -> None:
    # Week 13's posts with 100 opens or more (fixtures/warehouse.py): Engineering's post_07
    # (30 engagements of 120 opens) and post_02 (24 of 120), Company News's post_03 (10
    # of 100). Each channel's rate shrunk toward the pooled one, then each post's toward
    # its channel's (gamma priors, fitted by moments), in plain Python.
    posts = {"post_07": ("eng", 30, 120), "post_02": ("eng", 24, 120), "post_03": ("news", 10, 100)}
    channels = {c: [(x, n) for ch, x, n in posts.values() if ch == c] for c in ("eng", "news")}
    sums = {c: (sum(x for x, _ in v), sum(n for _, n in v)) for c, v in channels.items()}
    pooled = sum(x for x, _ in sums.values()) / sum(n for _, n in sums.values())
    beyond = sum((x - n * pooled) ** 2 - n * pooled for x, n in sums.values())
    outer = 1 / (beyond / sum(n * n * pooled for _, n in sums.values()))
    if beyond <= 0:
        outer = 1e6
    mu = {c: (x + outer * pooled) / (n + outer) for c, (x, n) in sums.items()}
    beyond = sum((x - n * mu[c]) ** 2 - n * mu[c] for c, x, n in posts.values())
    inner = 1e6 if beyond <= 0 else sum(n * n * mu[c] for c, x, n in posts.values()) / beyond
    adjusted = {p: (x + inner * mu[c]) / (n + inner) for p, (c, x, n) in posts.items()}

    top = ck.Warehouse(small_warehouse).top_posts(
        "engagement_rate", start="2026-03-23", end="2026-03-30"
    )
    assert dict(zip(top["post_id"], top["adjusted_engagement_rate"], strict=True)) == (
        pytest.approx(adjusted)
    )
    assert list(top["post_id"]) == sorted(adjusted, key=lambda p: -adjusted[p])
    assert (top["engagement_rate_low"] < top["engagement_rate"]).all()
    assert (top["engagement_rate"] < top["engagement_rate_high"]).all()


def test_no_posts_old_enough_is_no_difference_not_an_error() -> None:
    frame = judge_slots(equal_rates.posts(0).iloc[:0])
    assert frame.attrs["verdict"] == NO_DIFFERENCE and frame.attrs["posts_judged"] == 0
    assert len(frame) == 168 and frame["too_few_to_rank"].all()
