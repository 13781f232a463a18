"""Groups of posts judged fairly (docs/metrics.md, "Fair rankings"): a tag's, a priority's
or an author's readers against what their posts' channels' read rates expect, its 95%
interval and its adjusted value, recomputed by hand in plain Python from the posts, and
authors ranked by it like the channels by their adjusted read rate."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from statistics import NormalDist

import pandas as pd
import pytest

import channelkit as ck
from channelkit.analysis import groups
from channelkit.storage.connection import open_warehouse
from fixtures import equal_rates

ALL = {"period": "all time", "tz": "UTC"}
AUTHORS = 12
Z = NormalDist().inv_cdf(0.975)


def _with_authors(path: Path, posts: pd.DataFrame) -> pd.DataFrame:
    """The posts written by AUTHORS authors in turn (whatever their channel), in the file
    and in the frame."""
    posts = posts.assign(author_id=[f"a{i % AUTHORS:02d}" for i in range(len(posts))])
    con = open_warehouse(path, read_only=False)
    try:
        con.register("writers", posts[["post_id", "author_id"]])
        con.execute(
            "UPDATE posts SET author_id = w.author_id, author_name = 'Author ' || w.author_id "
            "FROM writers w WHERE posts.id = w.post_id"
        )
    finally:
        con.close()
    return posts


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[ck.Warehouse, pd.DataFrame]:
    path = tmp_path_factory.mktemp("groups") / "planted.duckdb"
    posts = equal_rates.posts(3, planted=1.23)
    equal_rates.build(path, posts)
    return ck.Warehouse(path), _with_authors(path, posts)


def by_hand(posts: pd.DataFrame, key: str) -> dict[str, tuple[float, ...]]:
    """Per group: readers vs expected, its interval's ends and its adjusted value."""
    seen: dict[str, float] = defaultdict(float)
    base: dict[str, float] = defaultdict(float)
    for row in posts.itertuples():
        seen[row.channel_id] += row.readers
        base[row.channel_id] += row.audience
    groups: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for row in posts.itertuples():
        x_n_e = groups[getattr(row, key)]
        x_n_e[0] += min(row.readers, row.audience)
        x_n_e[1] += row.audience
        x_n_e[2] += row.audience * seen[row.channel_id] / base[row.channel_id]
    # The prior's weight M by moments over the groups with an audience of 30 or more.
    squares = chance = spread = 0.0
    for x, n, e in groups.values():
        mu = e / n
        if n >= 30:
            squares += (x - n * mu) ** 2
            chance += n * mu * (1 - mu)
            spread += n * (n - 1) * mu * (1 - mu)
    strength = 1e6 if squares <= chance else min(max(spread / (squares - chance) - 1, 0), 1e6)
    found = {}
    for name, (x, n, e) in groups.items():
        p, mu = x / n, e / n
        centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
        half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
        adjusted = (x + strength * mu) / (n + strength) / mu
        found[name] = (p / mu, (centre - half) / mu, (centre + half) / mu, adjusted)
    return found


def _as_found(frame: pd.DataFrame, key: str) -> dict[str, tuple[float, ...]]:
    columns = ["vs_expected", "vs_expected_low", "vs_expected_high", "adjusted_vs_expected"]
    return {
        str(row[0]): tuple(float(v) for v in row[1:])
        for row in frame[[key, *columns]].itertuples(index=False, name=None)
    }


def _same(found: dict[str, tuple[float, ...]], expected: dict[str, tuple[float, ...]]) -> None:
    assert found.keys() == expected.keys()
    for name, values in expected.items():
        assert found[name] == pytest.approx(values, rel=1e-9), name


def test_tags_readers_vs_expected_recomputed_by_hand(
    planted: tuple[ck.Warehouse, pd.DataFrame],
) -> None:
    wh, posts = planted
    _same(_as_found(wh.tag_performance(**ALL), "tag"), by_hand(posts, "tag"))


def test_channelkits_own_tags_are_no_group(tmp_path: Path) -> None:
    """A post's origin tag (one per post) and a hold mark are channelkit's bookkeeping,
    not topics (issue 45.4): tag_performance is what it is without them."""
    path = tmp_path / "marked.duckdb"
    posts = equal_rates.posts(3, planted=1.23)
    equal_rates.build(path, posts)
    con = open_warehouse(path, read_only=False)
    try:
        con.execute(
            "UPDATE posts SET tags = list_concat(tags, ['sent-by-channelkit:' || id, "
            "'held:20261209T120000Z:abcdef:ann'])"
        )
    finally:
        con.close()
    found = ck.Warehouse(path).tag_performance(**ALL)
    _same(_as_found(found, "tag"), by_hand(posts, "tag"))


def test_authors_are_ranked_fairly_by_readers_vs_expected(
    planted: tuple[ck.Warehouse, pd.DataFrame],
) -> None:
    wh, posts = planted
    authors = wh.author_comparison(**ALL)
    expected = by_hand(posts, "author_id")
    _same(_as_found(authors, "author_id"), expected)
    # Every author has about 67 posts: all ranked, by the adjusted value, best first.
    assert not authors["too_few_to_rank"].any()
    order = sorted(expected, key=lambda a: -expected[a][3])
    assert list(authors["author_id"]) == order
    assert list(authors["rank"]) == list(range(1, AUTHORS + 1))
    assert authors.attrs["basis"].startswith("ranked by readers vs expected")
    # With a small-sample cut above everyone's posts, none is ranked.
    none = wh.author_comparison(small_sample_n=1_000, **ALL)
    assert none["too_few_to_rank"].all() and none["rank"].isna().all()
    assert list(none["posts"]) == sorted(none["posts"], reverse=True)  # by their base


def test_the_tag_chart_draws_the_adjusted_value_within_its_interval(
    planted: tuple[ck.Warehouse, pd.DataFrame],
) -> None:
    wh, _ = planted
    tags = wh.tag_performance(**ALL)
    bar = ck.plots.tag_performance(tags).data[0]
    drawn = dict(zip(bar.y, bar.x, strict=True))
    assert drawn == pytest.approx(dict(zip(tags["tag"], tags["adjusted_vs_expected"], strict=True)))
    assert "lift" not in bar.hovertemplate.split("<br>")[1].lower()


def test_the_documented_group_example() -> None:
    # docs/metrics.md, "Groups: readers vs expected": three tags, by the code.
    frame = pd.DataFrame(
        {
            "rated_readers": [300, 45, 520],
            "audience": [400, 60, 1000],
            "expected_readers": [260.0, 36.0, 560.0],
        }
    )
    groups._fair_lift(frame)
    assert frame.attrs["prior_strength"] == pytest.approx(95.7, abs=0.05)
    shown = frame[["vs_expected", "vs_expected_low", "vs_expected_high", "adjusted_vs_expected"]]
    assert shown.round(3).values.tolist() == [
        [1.154, 1.085, 1.215, 1.124],
        [1.250, 1.046, 1.404, 1.096],
        [0.929, 0.873, 0.984, 0.935],
    ]
