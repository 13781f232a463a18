"""What each alert says: one for a job late, hung or failed, one when it is back.

    said(job, Problem("late", slot), runs)    # Outgoing: subject and text, for every target

Times are shown in the job's own zone (its schedule's), with the zone's abbreviation, so
"06:00 CEST" reads right on a clock-change day.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from uuid import uuid4

from channelkit._job_runs import Run, ago
from channelkit._tz import UTC_ZONE
from channelkit.watch.config import WatchedJob
from channelkit.watch.judge import Problem
from channelkit.watch.state import Incident, Outgoing

_ONCE = "One alert per incident: the next says when it is back."


def said(job: WatchedJob, found: Problem, runs: Sequence[Run]) -> Outgoing:
    """The alert that `found` began, to every target of `job`."""
    mine = [run for run in runs if run.job == job.name]
    if found.kind == "late":
        last = mine[-1] if mine else None
        before = (
            f"Its last run started {_at(job, last.started)} and {last.outcome or 'has not ended'}."
            if last
            else "No run of it has been recorded."
        )
        subject = f"{job.name} is late"
        text = (
            f"{job.name} did not start for {_at(job, found.since)}: no run began within its "
            f"grace of {ago(job.grace)}. {before} Check its timer "
            "(`channelkit watch WATCH.toml --print-crontab` prints it)."
        )
    elif found.kind == "hung":
        run = found.run
        assert run is not None
        pid = f" (pid {run.pid})" if run.pid else ""
        subject = f"{job.name} is hung"
        text = (
            f"{job.name} started {_at(job, run.started)}{pid} and has not ended, longer than "
            f"its longest normal run of {ago(job.longest)}. It may wait on a lock or the "
            "network: stop it, or raise `longest` in the watch file."
        )
    else:
        run = found.run
        assert run is not None
        subject = f"{job.name} failed"
        text = f"{job.name} failed at {_at(job, found.since)}: {run.reason or 'no reason given'}"
    return _outgoing(job, found.kind, subject, f"{text}\n\n{_ONCE}")


def back(job: WatchedJob, incident: Incident, run: Run) -> Outgoing:
    """The alert that the incident is over: the run that ended it."""
    since = datetime.fromisoformat(incident.since)
    assert run.ended is not None
    text = (
        f"{job.name} is back: the run started {_at(job, run.started)} completed at "
        f"{_at(job, run.ended)}. It was {incident.kind} from {_at(job, since)} "
        f"({ago(run.ended - since)})."
    )
    return _outgoing(job, "recovered", f"{job.name} is back", text)


def _outgoing(job: WatchedJob, kind: str, subject: str, text: str) -> Outgoing:
    return Outgoing(
        alert_id=str(uuid4()),
        job=job.name,
        kind=kind,
        subject=f"channelkit watch: {subject}",
        text=text,
        pending=[target.key for target in job.targets],
    )


def _at(job: WatchedJob, instant: datetime) -> str:
    zone = job.cron.tz if job.cron else UTC_ZONE
    local = instant.astimezone(UTC).astimezone(zone)
    return f"{local:%a %d %b %H:%M} {local.tzname()}"
