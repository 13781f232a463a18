"""The outlook on workspaces whose decay is known (fixtures/decay.py), over many seeds: its
80% interval covers 75-85% of settled posts, it beats the naive forecast, it abstains
where a channel has too few settled posts, and it calls a planted flop behind; and the
backtest on the demo equals an independent recomputation from the raw rows."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import channelkit as ck
from channelkit.analysis import outlook as ol
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.outlook import BEHIND, TOO_EARLY, TOO_FEW
from channelkit.cli import main
from channelkit.service.local import LocalService
from channelkit.storage.connection import open_warehouse
from fixtures.decay import LAST_DAY, PLANTED_AGE, Planted, build_decaying

pytestmark = pytest.mark.calendar  # the fixtures' days, and the demo's

SEEDS = range(10)


@dataclass(frozen=True)
class Seeded:
    planted: Planted
    outlook: pd.DataFrame
    backtest: pd.DataFrame  # detail: one row per post and age
    profiles: pd.DataFrame


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> list[Seeded]:
    out = []
    for seed in SEEDS:
        path = tmp_path_factory.mktemp("decay") / f"seed{seed}.duckdb"
        planted = build_decaying(path, seed)
        wh = ck.Warehouse(path)
        with wh.session():
            out.append(
                Seeded(
                    planted,
                    wh.outlook(),
                    wh.outlook_backtest(detail=True),
                    wh.decay_profiles(),
                )
            )
    return out


def _made(seeded: list[Seeded]) -> pd.DataFrame:
    rows = pd.concat([s.backtest for s in seeded], ignore_index=True)
    return rows[rows["forecast_readers"].notna()]


def test_the_interval_covers_about_80_percent_at_ages_1_2_3(seeded: list[Seeded]) -> None:
    made = _made(seeded)
    coverage = made.groupby("age_days")["covered"].mean()
    assert sorted(coverage.index) == [1, 2, 3]
    for age, share in coverage.items():
        assert 0.75 <= share <= 0.85, (age, share)


def test_day_2_error_is_at_least_a_fifth_below_the_naive_forecast(seeded: list[Seeded]) -> None:
    for s in seeded:
        day2 = s.backtest[(s.backtest["age_days"] == 2) & s.backtest["forecast_readers"].notna()]
        error = (day2["forecast_readers"] - day2["settled_readers"]).abs().median()
        naive = (day2["naive_readers"] - day2["settled_readers"]).abs().median()
        assert error <= 0.8 * naive, (error, naive)


def test_a_channel_with_too_few_settled_posts_abstains_every_time(seeded: list[Seeded]) -> None:
    for s in seeded:
        tiny = s.outlook[s.outlook["channel_id"] == "chan_tiny"]
        assert len(tiny) == 3  # its young posts, at ages 0, 1 and 2
        assert set(tiny["verdict"]) == {TOO_EARLY, TOO_FEW}
        assert tiny.loc[tiny["age_days"] >= 1, "verdict"].eq(TOO_FEW).all()
        assert tiny["forecast_readers"].isna().all()
        replayed = s.backtest[s.backtest["channel_id"] == "chan_tiny"]
        assert len(replayed) and replayed["forecast_readers"].isna().all()
        assert replayed["verdict"].eq(TOO_FEW).all()


def test_a_flop_is_behind_by_day_2_and_an_ordinary_post_is_not(seeded: list[Seeded]) -> None:
    flops, ordinary = [], []
    for s in seeded:
        verdicts = s.outlook.set_index("post_id")["verdict"]
        ages = s.outlook.set_index("post_id")["age_days"]
        for channel in ("chan_fast", "chan_slow"):
            assert ages[s.planted.flops[channel]] == PLANTED_AGE
            flops.append(verdicts[s.planted.flops[channel]] == BEHIND)
            ordinary.append(verdicts[s.planted.ordinary[channel]] == BEHIND)
    assert sum(flops) >= 0.9 * len(flops), flops
    assert sum(ordinary) <= 0.1 * len(ordinary), ordinary


def test_every_young_post_is_listed_provisional_with_its_age(seeded: list[Seeded]) -> None:
    for s in seeded:
        young = s.outlook
        settled = young.attrs["settled_days"]
        assert young.attrs["as_of"] == LAST_DAY
        assert young["provisional"].all()
        assert young["age_days"].between(0, settled - 1).all()
        made = young[young["forecast_readers"].notna()]
        assert (made["forecast_low"] <= made["forecast_readers"]).all()
        assert (made["forecast_readers"] <= made["forecast_high"]).all()
        assert (made["forecast_low"] >= made["readers"]).all()  # readers are never lost


def test_decay_profiles_follow_each_channels_known_decay(seeded: list[Seeded]) -> None:
    # Fast: 70% of the remaining readers a day, published at a uniform minute: half its
    # settled readers by the end of day 1 (day 0 when published before ~10:00), 90% by
    # day 2. Slow (30% a day): half by day 2, and later than Fast for 90%.
    for s in seeded:
        per = s.profiles.drop_duplicates("channel_id").set_index("channel_id")
        assert per.loc["chan_fast", "days_to_50"] == 1
        assert per.loc["chan_slow", "days_to_50"] == 2
        assert per.loc["chan_fast", "days_to_90"] < per.loc["chan_slow", "days_to_90"]
        for _, rows in s.profiles.groupby("channel_id"):
            assert rows["share_by_day"].is_monotonic_increasing
            assert rows["share_by_day"].iloc[-1] == pytest.approx(1.0)
            assert rows["share_on_day"].sum() == pytest.approx(1.0)
        assert "cannot see the hour" in s.profiles.attrs["resolution"]


# --- the demo: the backtest against an independent recomputation ---------------------------


@pytest.fixture(scope="module")
def demo_warehouse(
    demo_service: LocalService, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("demo") / "w.duckdb"
    key = demo_service.demo_keys["admin"]
    with ck.Client(api_key=key, base_url=demo_service.base_url) as client:
        ck.sync(client, path, progress=False)
    yield path


def _raw(path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    wh = ck.Warehouse(path)
    posts = wh.sql(
        "SELECT id, channel_id, published_at, coalesce(views, 0) AS views FROM posts "
        "WHERE deleted_at IS NULL AND published_at IS NOT NULL"
    )
    daily = wh.sql("SELECT post_id, date, unique_viewers FROM post_daily")
    audience = wh.sql("SELECT channel_id, date, subscribers FROM channel_daily")
    return posts, daily, audience


def _utc_day(values: pd.Series) -> pd.Series:
    """Instants or dates as naive UTC midnights."""
    moments = pd.to_datetime(values, utc=True).dt.tz_localize(None)
    return moments.dt.normalize().astype("datetime64[ns]")


def _recompute(path: Path, settle: int, last: pd.Timestamp) -> pd.DataFrame:
    """The backtest table by the rules of docs/metrics.md "Outlook", from the raw rows."""
    posts, daily, audience = _raw(path)
    posts["pub"] = _utc_day(posts["published_at"])
    audience["date"] = _utc_day(audience["date"])
    posts = pd.merge_asof(
        posts.sort_values("pub"),
        audience.sort_values("date").rename(columns={"date": "pub"}),
        on="pub",
        by="channel_id",
    )
    daily["date"] = _utc_day(daily["date"])
    rows = daily.merge(posts[["id", "pub"]], left_on="post_id", right_on="id")
    rows["age"] = (rows["date"] - rows["pub"]).dt.days
    rows = rows[(rows["age"] >= 0) & (rows["age"] <= settle)]
    grid = rows.pivot_table(index="post_id", columns="age", values="unique_viewers", aggfunc="sum")
    grid = grid.reindex(index=posts["id"], columns=range(settle + 1)).fillna(0).cumsum(axis=1)
    views = posts["views"].to_numpy(dtype="float64")
    at = np.minimum(grid.to_numpy(dtype="float64"), views[:, None])
    posts["day"] = (posts["pub"] - pd.Timestamp("1970-01-01")).dt.days
    now = (last - pd.Timestamp("1970-01-01")).days
    settled = posts["day"].to_numpy() <= now - settle
    channels = {}
    for name in posts["channel_id"].unique():
        mine = np.flatnonzero(settled & (posts["channel_id"] == name).to_numpy())
        order = mine[np.lexsort((posts["id"].to_numpy()[mine], posts["day"].to_numpy()[mine]))]
        channels[name] = order

    def window(name: str, day: int) -> np.ndarray:
        order = channels[name]
        d = posts["day"].to_numpy()[order]
        keep = order[(d <= day - settle) & (d > day - settle - 182)]
        return keep[-200:]

    def ratio(idx: np.ndarray, age: int) -> np.ndarray:
        return np.log1p(at[idx, settle]) - np.log1p(at[idx, age])

    out = []
    for age in (1, 2, 3):
        if age >= settle:
            continue
        abstained, covered, errors, naive = 0, [], [], []
        for i in np.flatnonzero(settled):
            name, day = posts["channel_id"].iloc[i], int(posts["day"].iloc[i]) + age
            own = window(name, day)
            if len(own) < 5:
                abstained += 1
                continue
            values = ratio(own, age)
            if len(own) < 20:
                values = np.concatenate([ratio(window(c, day), age) for c in channels])
                if len(values) < 20:
                    abstained += 1
                    continue
            values = np.sort(values)
            n = len(values)
            x, truth = at[i, age], at[i, settle]
            lo, hi = max(1, math.floor(0.1 * (n + 1))), min(n, math.ceil(0.9 * (n + 1)))
            real = [math.expm1(math.log1p(x) + v) for v in (np.median(values), values[lo - 1])]
            real.append(math.expm1(math.log1p(x) + values[hi - 1]))
            # Whole readers: the forecast rounded, the interval the whole numbers inside.
            grow = [
                max(w, x)
                for w in (round(real[0]), math.ceil(real[1] - 1e-6), math.floor(real[2] + 1e-6))
            ]
            covered.append(grow[1] <= truth <= grow[2])
            errors.append(abs(grow[0] - truth))
            audiences = posts["subscribers"].to_numpy(dtype="float64", na_value=np.nan)
            aud = audiences[i]
            rates = at[own, settle] / audiences[own]
            usual = np.median(rates) * aud if aud > 0 else np.median(at[own, settle])
            naive.append(abs(usual - truth))
        out.append(
            {
                "age_days": age,
                "posts": len(covered),
                "abstained": abstained,
                "coverage": np.mean(covered),
                "median_abs_error": np.median(errors),
                "naive_median_abs_error": np.median(naive),
            }
        )
    return pd.DataFrame(out)


def test_demo_backtest_equals_an_independent_recomputation(demo_warehouse: Path) -> None:
    table = ck.Warehouse(demo_warehouse).outlook_backtest()
    settle, last = table.attrs["settled_days"], pd.Timestamp(table.attrs["as_of"])
    expected = _recompute(demo_warehouse, settle, last)
    got = table[expected.columns]
    assert got["age_days"].tolist() == expected["age_days"].tolist() == [1, 2, 3]
    assert got["posts"].tolist() == expected["posts"].tolist()
    assert got["abstained"].tolist() == expected["abstained"].tolist()
    for column in ("coverage", "median_abs_error", "naive_median_abs_error"):
        assert got[column].to_numpy() == pytest.approx(expected[column].to_numpy(), rel=1e-9)
    assert (table["error_vs_naive"] < 0.8).all()  # the demo's channels decay in days


def test_the_cli_prints_the_backtest_table(demo_warehouse: Path) -> None:
    table = ck.Warehouse(demo_warehouse).outlook_backtest()
    result = CliRunner().invoke(main, ["outlook", "--db", str(demo_warehouse), "--backtest"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "age" in lines[1] and "in 80% interval" in lines[1]
    for row, line in zip(table.itertuples(), lines[2:], strict=True):
        assert line.split() == [
            f"{row.age_days}d",
            f"{row.posts:,}",
            f"{row.abstained:,}",
            f"{row.coverage:.0%}",
            f"{row.median_abs_error:,.0f}",
            f"{row.naive_median_abs_error:,.0f}",
            f"{row.error_vs_naive:.2f}x",
        ]


def test_the_young_posts_forecast_from_all_history_equals_the_trimmed_read(
    demo_warehouse: Path,
) -> None:
    # outlook() reads only each channel's 200 latest settled posts (and the young ones);
    # the same forecasts come from every post of the warehouse.
    young = ck.Warehouse(demo_warehouse).outlook()
    last, settle = young.attrs["as_of"], young.attrs["settled_days"]
    con = open_warehouse(demo_warehouse, read_only=True)
    try:
        everything = ol.load_readers(con, PostFilter(), first=None, last=last, settle=settle)
    finally:
        con.close()
    now = ol.day_number(last)
    history = ol.History(everything, settle=settle, last=now)
    targets = young[["channel_id", "age_days", "readers", "audience"]].assign(day=now)
    judged = history.judge(targets)
    assert len(young) > 50
    for column in ("forecast_readers", "forecast_low", "forecast_high", "usual_readers"):
        assert judged[column].to_numpy() == pytest.approx(
            young[column].to_numpy(dtype="float64"), nan_ok=True
        )
    assert judged["verdict"].tolist() == young["verdict"].tolist()


def test_bad_arguments_name_what_is_wrong(demo_warehouse: Path) -> None:
    wh = ck.Warehouse(demo_warehouse)
    with pytest.raises(TypeError, match="'period'"):  # the posts of now: no period
        wh.outlook(period="2026-10")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="channel: no channel 'nope'"):
        wh.outlook_backtest(channel="nope")
    result = CliRunner().invoke(main, ["outlook", "--db", str(demo_warehouse), "--channel", "x"])
    assert result.exit_code == 2
    assert "--channel: no channel 'x'" in result.output
    assert "Traceback" not in result.output
