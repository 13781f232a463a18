"""The reach curve's running totals on a posts × days grid equal the definition, block or not."""

from __future__ import annotations

import numpy as np
import pytest

from channelkit.analysis import reach


def _by_definition(
    post: np.ndarray, day: np.ndarray, uv: np.ndarray, cap: np.ndarray, width: int
) -> list[int]:
    # Σ over posts of min(readers, Σ uv of the post's rows up to day k), row by row.
    return [
        sum(min(int(cap[p]), int(uv[(post == p) & (day <= k)].sum())) for p in range(len(cap)))
        for k in range(width)
    ]


@pytest.mark.parametrize("cells", [4_000_000, 7, 1])
def test_grid_sums_equal_the_definition(monkeypatch: pytest.MonkeyPatch, cells: int) -> None:
    rng = np.random.default_rng(12)
    width, posts = 6, 40
    pairs = rng.choice(posts * width, size=150, replace=False)  # (post, day) is unique
    post, day = pairs // width, pairs % width
    uv = rng.integers(0, 30, size=len(pairs))
    cap = rng.integers(0, 60, size=posts)  # readers: some reached early, some never
    cap[:3] = 0
    order = rng.permutation(len(pairs))  # rows arrive in no particular order
    monkeypatch.setattr(reach, "REACH_GRID_CELLS", cells)
    got = reach._reached(post[order], day[order], uv[order], cap, width=width)
    assert got.tolist() == [_by_definition(post, day, uv, cap, width)]
    assert got.dtype == np.int64
    # Per group of posts (a channel's reach curve): each group's own sum, by definition.
    group = rng.integers(0, 3, size=posts)
    grouped = reach._reached(
        post[order], day[order], uv[order], cap, width=width, group=group, groups=3
    )
    for g in range(3):
        capped = np.where(group == g, cap, 0)  # posts of other groups reach nobody
        assert grouped[g].tolist() == _by_definition(post, day, uv, capped, width), g


def test_no_rows_reach_nobody() -> None:
    empty = np.zeros(0, dtype=np.int64)
    got = reach._reached(empty, empty, empty, np.zeros(0, dtype=np.int64), width=4)
    assert got.tolist() == [[0, 0, 0, 0]]
