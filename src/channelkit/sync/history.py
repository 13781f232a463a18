"""The convergence sweep over older history, one planner for every resource that has it.

Every incremental run re-reads one slice of a resource's history, oldest first, so that a
cycle of `runs` runs sweeps it all (see `channelkit.sync.windows`). Posts are swept along
their publication time, `channel_daily` along its days; both are the same sweep over a
time axis and differ only in how much is left ahead of a position (posts counted in the
warehouse, days counted) and where a share of it ends. Pure: the caller measures.

    days = Axis(remaining=lambda at: (final - (at or first)).days,
                end=lambda at, n: (at or first) + timedelta(days=n), start=first, final=final)
    step = next_slice(Sweep(), days, runs=7)   # a new cycle, from the oldest
    step.next_sweep()                          # where the next run starts
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Sweep:
    """Where a history sweep stands between runs (kept in the resource's checkpoint).

    `position` is where the next slice starts (None: the oldest); `runs_done` the slices
    of this cycle already read.
    """

    position: datetime | None = None
    runs_done: int = 0

    def within(self, runs: int) -> Sweep:
        """This sweep, or a new cycle when the horizon was shortened below where it stands."""
        return Sweep() if self.runs_done >= runs else self


@dataclass(frozen=True)
class HistorySlice:
    """The part of a history one incremental run re-reads.

    `[after, before)`; `after=None` is the oldest, `before=None` the newest (the cycle's
    last slice). `number` counts 1..`count` within the cycle.
    """

    after: datetime | None
    before: datetime | None
    number: int
    count: int

    @property
    def last(self) -> bool:
        return self.before is None

    def started_from(self) -> Sweep:
        """The sweep as it stood before this slice."""
        return Sweep(position=self.after, runs_done=self.number - 1)

    def next_sweep(self) -> Sweep:
        """The sweep once this slice was read: the cycle's last one starts a new cycle."""
        return Sweep() if self.last else Sweep(position=self.before, runs_done=self.number)

    def describe(self, what: str) -> str:
        after = self.after.strftime("%Y-%m-%d %H:%M") if self.after else "the oldest"
        before = self.before.strftime("%Y-%m-%d %H:%M") if self.before else "the newest"
        return f"{self.number}/{self.count}, {what} {after} .. {before}"


def slice_quota(*, remaining: int, runs_done: int, runs: int) -> int | None:
    """What the next slice should hold, or None when it takes all that remain.

    An equal share of what is still ahead, so a cycle never takes more than `runs` runs
    even when rows are added or removed meanwhile.
    """
    runs_left = runs - runs_done
    if runs_left <= 1 or remaining <= 0:
        return None
    return -(-remaining // runs_left)


@dataclass(frozen=True)
class Axis:
    """How one resource's history is measured from a position (None: the oldest).

    `remaining(position)` is what lies at or after it; `end(position, n)` where a share of
    `n` of that ends (None: it takes the rest). `start` stands for the oldest when the
    sweep has none; a slice reaching `final` (None: open) is the cycle's last.
    """

    remaining: Callable[[datetime | None], int]
    end: Callable[[datetime | None, int], datetime | None]
    start: datetime | None = None
    final: datetime | None = None


def next_slice(sweep: Sweep, axis: Axis, *, runs: int) -> HistorySlice | None:
    """This run's slice of `axis` (None: nothing left before `final`)."""
    sweep = sweep.within(runs)
    first = sweep.position or axis.start
    if axis.final is not None and first is not None and first >= axis.final:
        return None
    quota = slice_quota(remaining=axis.remaining(first), runs_done=sweep.runs_done, runs=runs)
    before = None if quota is None else axis.end(first, quota)
    if before is not None and axis.final is not None and before >= axis.final:
        before = None
    return HistorySlice(after=first, before=before, number=sweep.runs_done + 1, count=runs)


def posts_query(history: HistorySlice) -> dict[str, str]:
    """The posts listing's filters for a slice. The spec's filters are strict and
    timestamps whole seconds, so `[after, before)` is asked as `(after - 1 s, before)`.

    The cycle's last slice lists every post, unfiltered: drafts and scheduled posts have
    no publication time and no filter of the spec selects them, so only that listing
    finds the ones colleagues created since (and shows which are gone). It costs one
    walk of the whole list per cycle (`bench/sync_incremental.py` prints the ratio).
    """
    query: dict[str, str] = {}
    if history.last:
        return query
    if history.after is not None:
        query["published_after"] = (history.after - timedelta(seconds=1)).isoformat()
    if history.before is not None:
        query["published_before"] = history.before.isoformat()
    return query


def days_query(history: HistorySlice, final: datetime) -> dict[str, str]:
    """The daily listing's range for a slice of days (its `after` is always known)."""
    assert history.after is not None
    end = final if history.before is None else min(history.before, final)
    return {"start": history.after.date().isoformat(), "end": end.date().isoformat()}
