"""What is wrong with a job now, from its recorded runs and its schedule: pure, no I/O.

    problem(job, runs, now, since=last_tick)   # Problem("late", ...) or None

Three problems, checked in this order: **hung** (the newest run started and has not ended
within its longest normal run), **failed** (the newest run that ended failed), **late**
(a time the schedule names passed its grace with no run started from WATCH_EARLY_SECONDS
before it to the end of its grace; with an interval, no run started within the interval
plus its grace). `since` is the watcher's previous tick: every time that became due since
then is looked at, so a time missed while the watcher itself was stopped is still told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from channelkit._constants import WATCH_EARLY_SECONDS
from channelkit._job_runs import COMPLETED, FAILED, Run
from channelkit.watch.config import WatchedJob

EARLY = timedelta(seconds=WATCH_EARLY_SECONDS)


@dataclass(frozen=True)
class Problem:
    """A job's trouble: its kind, the instant it began and the run it concerns (if any).

    Problem("late", datetime(2027, 3, 29, 6, tzinfo=UTC))
    """

    kind: str  # "hung", "failed" or "late"
    since: datetime  # a late run: the time it was due; hung: when it outlasted its limit
    run: Run | None = None


def problem(
    job: WatchedJob,
    runs: Sequence[Run],
    now: datetime,
    since: datetime | None = None,
    watching: datetime | None = None,
) -> Problem | None:
    """The job's problem at `now` (None when well), looking at every time due after `since`
    (default: only the latest one due); `watching`, when the watch began, is when a job
    with an interval and no run at all was first expected to have run."""
    mine = [run for run in runs if run.job == job.name and run.started <= now]
    if mine and mine[-1].ended is None and now - mine[-1].started > job.longest:
        return Problem("hung", mine[-1].started + job.longest, mine[-1])
    ended = [run for run in mine if run.ended is not None]
    if ended and ended[-1].outcome == FAILED:
        assert ended[-1].ended is not None
        return Problem("failed", ended[-1].ended, ended[-1])
    missed = _missed(job, mine, now, since, watching)
    return None if missed is None else Problem("late", missed)


def recovered(job: WatchedJob, runs: Sequence[Run], now: datetime, began: datetime) -> Run | None:
    """The first completed run that ended after the trouble began at `began`, when the job
    is well now (times due before the last such run started no longer count); else None."""
    done = [
        run
        for run in runs
        if run.job == job.name and run.outcome == COMPLETED and run.ended and run.ended >= began
    ]
    if not done or problem(job, runs, now, watching=done[-1].started - EARLY) is not None:
        return None
    return done[0]


def _missed(
    job: WatchedJob,
    runs: list[Run],
    now: datetime,
    since: datetime | None,
    watching: datetime | None,
) -> datetime | None:
    """The first time due (its grace over) after `since` that no run answered."""
    starts = [run.started for run in runs]
    if job.cron is None:
        assert job.every is not None
        last = starts[-1] if starts else watching
        if last is None:
            return None  # nothing recorded and no earlier tick: the watch begins now
        due = last + job.every
        return due if due + job.grace <= now else None
    latest = job.cron.last_slot(now - job.grace)
    if since is None or latest is None or latest + job.grace <= since:
        slots = [latest] if latest is not None else []
    else:
        step = timedelta(microseconds=1)  # slots() takes [start, end): due after since
        slots = job.cron.slots(since - job.grace + step, now - job.grace + step)
    for slot in slots:
        if watching is not None and slot < watching:
            continue  # due before the watch began: not the watcher's to judge
        if not any(slot - EARLY <= start <= slot + job.grace for start in starts):
            return slot
    return None
