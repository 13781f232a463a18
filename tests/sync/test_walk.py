"""Walk state round-trips through a checkpoint; which interrupted walks a run continues."""

from __future__ import annotations

from datetime import UTC, date, datetime

from channelkit.storage.writer import Checkpoint
from channelkit.sync.history import HistorySlice
from channelkit.sync.walk import Walk, resumable
from channelkit.sync.windows import AnalyticsPlan

NOW = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


def saved(walk: Walk, cursor: str = "c2") -> Checkpoint:
    return Checkpoint(walk.resource, "run", cursor=cursor, params=walk.state())


def test_state_round_trips() -> None:
    walk = Walk("posts", {"published_after": "2026-11-01T00:00:00+00:00"}, False, NOW)
    walk.max_seen = datetime(2026, 11, 20, tzinfo=UTC)
    walk.cursor = "c2"
    assert Walk.resume("posts", saved(walk)) == walk
    daily = Walk("post_daily", {"start": "2026-11-01", "end": "2026-11-23"}, True, NOW)
    daily.step = AnalyticsPlan(date(2026, 11, 1), date(2026, 11, 23), date(2026, 11, 18))
    assert Walk.resume("post_daily", saved(daily, cursor="x")).step == daily.step
    history = Walk("posts:history", {}, False, NOW, step=HistorySlice(None, NOW, 2, 7))
    history.cursor = "c2"
    assert Walk.resume("posts:history", saved(history)) == history


def test_a_checkpoint_of_another_version_starts_the_walk_over() -> None:
    foreign = Walk("channel_daily:history", {}, False, NOW)
    stored = saved(foreign)
    params = {**(stored.params or {}), "extra": {"next": "", "runs": "2"}}  # an older format
    older = Checkpoint(foreign.resource, "run", cursor="c2", params=params)
    assert Walk.restore(foreign.resource, older) is None
    assert not resumable(older, foreign, since_given=False)
    assert Walk.restore("posts", Checkpoint("posts", "run")) is None  # none in progress


def test_which_interrupted_walks_are_continued() -> None:
    full = Walk("posts", {}, True, NOW)
    incremental = Walk("posts", {"published_after": "2026-11-01T00:00:00+00:00"}, False, NOW)
    assert not resumable(None, full, since_given=False)
    assert not resumable(Checkpoint("posts", "run"), full, since_given=False)  # completed
    assert resumable(saved(full), incremental, since_given=False)  # more than asked: fine
    assert resumable(saved(incremental), incremental, since_given=False)
    assert not resumable(saved(incremental), full, since_given=False)  # --full wants more
    assert resumable(saved(incremental), incremental, since_given=True)  # same --since
    assert not resumable(saved(full), incremental, since_given=True)  # another --since
