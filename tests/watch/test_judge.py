"""What is wrong with a job, from its runs alone: an interval job's lateness, and hung before
failed before late."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from channelkit._job_runs import COMPLETED, FAILED, Run
from channelkit.watch.config import WatchedJob
from channelkit.watch.cron import Cron
from channelkit.watch.judge import problem, recovered

T = datetime(2027, 1, 4, 6, 0, tzinfo=UTC)
M = timedelta(minutes=1)


def _job(cron: Cron | None = None, every: timedelta | None = None) -> WatchedJob:
    return WatchedJob("sync", "channelkit sync", cron, every, 15 * M, 30 * M, targets=())


def _run(start: datetime, minutes: int | None, outcome: str = COMPLETED) -> Run:
    ended = None if minutes is None else start + minutes * M
    return Run(f"r{start:%H%M}", "sync", start, ended, outcome if ended else None)


def test_an_interval_job_is_late_when_no_run_started_within_its_interval_and_grace() -> None:
    job = _job(every=timedelta(hours=6))
    assert problem(job, [], T + 6 * 60 * M + 14 * M, watching=T) is None
    late = problem(job, [], T + 6 * 60 * M + 15 * M, watching=T)
    assert late is not None and (late.kind, late.since) == ("late", T + 6 * 60 * M)
    runs = [_run(T + 60 * M, 2)]
    assert problem(job, runs, T + 7 * 60 * M + 14 * M, watching=T) is None
    assert problem(job, runs, T + 7 * 60 * M + 15 * M, watching=T) is not None


def test_hung_comes_before_failed_and_failed_before_late() -> None:
    job = _job(cron=Cron.parse("0 * * * *", ZoneInfo("UTC")))
    failed = _run(T, 2, FAILED)
    hung = _run(T + 60 * M, None)
    found = problem(job, [failed, hung], T + 60 * M + 31 * M)
    assert found is not None and (found.kind, found.since) == ("hung", T + 90 * M)
    found = problem(job, [failed, hung], T + 60 * M + 20 * M)
    assert found is not None and found.kind == "failed"
    assert problem(job, [_run(T, 2)], T + 60 * M + 16 * M) is not None  # 07:00 not started


def test_a_job_is_back_with_the_first_completed_run_after_the_trouble() -> None:
    job = _job(cron=Cron.parse("0 * * * *", ZoneInfo("UTC")))
    runs = [_run(T, 2, FAILED), _run(T + 60 * M, 2), _run(T + 120 * M, 2)]
    assert recovered(job, runs[:1], T + 30 * M, T + 2 * M) is None
    assert recovered(job, runs, T + 125 * M, T + 2 * M) == runs[1]
