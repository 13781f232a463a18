"""The one history planner (pure) and the typed checkpoints it leaves between runs."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from channelkit.sync.checkpoints import (
    decode,
    encode,
    sweep_checkpoint,
    sweep_of,
)
from channelkit.sync.history import Axis, HistorySlice, Sweep, days_query, next_slice, posts_query
from channelkit.sync.windows import AnalyticsPlan

FIRST = datetime(2026, 11, 1, tzinfo=UTC)
FINAL = FIRST + timedelta(days=14)


def days_axis() -> Axis:
    return Axis(
        remaining=lambda at: (FINAL - (at or FIRST)).days,
        end=lambda at, n: (at or FIRST) + timedelta(days=n),
        start=FIRST,
        final=FINAL,
    )


def posts_axis(published: list[datetime]) -> Axis:
    def remaining(at: datetime | None) -> int:
        return sum(1 for p in published if at is None or p >= at)

    def end(at: datetime | None, quota: int) -> datetime | None:
        ahead = sorted(p for p in published if at is None or p >= at)
        return ahead[quota] if quota < len(ahead) else None

    return Axis(remaining=remaining, end=end)


def sweep_all(axis: Axis, runs: int) -> list[HistorySlice]:
    slices, sweep = [], Sweep()
    for _ in range(runs):
        step = next_slice(sweep, axis, runs=runs)
        assert step is not None
        slices.append(step)
        sweep = step.next_sweep()
    return slices


@pytest.mark.parametrize("runs", [1, 3, 7])
def test_a_cycle_of_days_covers_every_final_day_once(runs: int) -> None:
    slices = sweep_all(days_axis(), runs)
    assert [s.number for s in slices] == list(range(1, runs + 1))
    assert slices[0].after == FIRST and slices[-1].last
    for before, after in zip(slices, slices[1:], strict=False):
        assert before.before == after.after  # each starts where the previous ended
    queries = [days_query(s, FINAL) for s in slices]
    assert queries[0]["start"] == "2026-11-01" and queries[-1]["end"] == "2026-11-15"


def test_a_cycle_of_posts_takes_equal_shares_and_an_open_end() -> None:
    published = [FIRST + timedelta(hours=h) for h in range(70)]
    slices = sweep_all(posts_axis(published), 7)
    assert slices[0].after is None and slices[-1].before is None
    assert slices[1].after == FIRST + timedelta(hours=10)
    assert posts_query(slices[1]) == {
        "published_after": (FIRST + timedelta(hours=10, seconds=-1)).isoformat(),
        "published_before": (FIRST + timedelta(hours=20)).isoformat(),
    }


def test_nothing_to_sweep_past_the_final_day_and_a_shortened_horizon_restarts() -> None:
    assert next_slice(Sweep(position=FINAL, runs_done=2), days_axis(), runs=7) is None
    restarted = next_slice(
        Sweep(position=FIRST + timedelta(days=9), runs_done=5), days_axis(), runs=3
    )
    assert restarted is not None and restarted.number == 1 and restarted.after == FIRST


def test_steps_round_trip_through_their_checkpoint_form() -> None:
    steps = [
        HistorySlice(after=None, before=FINAL, number=2, count=7),
        HistorySlice(after=FIRST, before=None, number=7, count=7),
        AnalyticsPlan(
            start=date(2026, 11, 1), end=date(2026, 11, 23), final_before=date(2026, 11, 18)
        ),
    ]
    for step in steps:
        assert decode(encode(step)) == step
    assert decode(encode(None)) is None
    with pytest.raises(ValueError, match="AnalyticsPlan"):
        decode({"kind": "analytics", "final_before": "2026-11-18"})
    with pytest.raises(ValueError, match="unknown step"):
        decode({"kind": "someday"})


def test_a_sweep_round_trips_through_its_checkpoint() -> None:
    sweep = Sweep(position=FIRST, runs_done=3)
    assert sweep_of(sweep_checkpoint("posts:history", "run", sweep)) == sweep
    assert sweep_of(None) == Sweep()
