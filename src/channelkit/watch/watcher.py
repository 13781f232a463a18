"""One run of the watcher: judge every job, record what changed, then send it.

    lines = watch_once(load_watch("watch.toml"))    # what it did, a line each

Each job has at most one open incident: it is opened, and its alert recorded, when the job
turns late, hung or failed, and closed, with one more alert, when a run completes after it
began and nothing is wrong any more. A job still failing, a retry, a second missed hour or
another tick say nothing new. The state is written before anything is sent (state.py), so
a kill -9 while alerting loses nothing; an alert a target refused stays in the outbox and
is tried again on every run until it is taken.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from channelkit._job_runs import RunLog, read_heartbeat, runs_path, write_heartbeat
from channelkit.errors import DeliveryError
from channelkit.reports.deliver.messages import JobAlert
from channelkit.watch.alerts import back, said
from channelkit.watch.config import WatchConfig
from channelkit.watch.judge import problem, recovered
from channelkit.watch.state import Incident, Outgoing, State, load, locked, save


def watch_once(config: WatchConfig, now: datetime | None = None) -> list[str]:
    """Judge every job at `now` (default: the clock), alert what changed; a line per deed."""
    now = now or datetime.now(UTC)
    with locked(config.state) as mine:
        if not mine:
            return ["another watcher is running on this state file; this run does nothing"]
        state = load(config.state)
        beat, checked = read_heartbeat(config.db), state.instant("checked")
        if beat is not None and (checked is None or beat[0] > checked):
            state.checked = beat[0].isoformat()  # the last tick that changed nothing
        lines = _judge(config, state, now)
        if lines:
            save(config.state, state)  # recorded before anything is sent
        lines += _send(config, state)
        write_heartbeat(config.db, now, config.every)  # also the `checked` of a quiet tick
    return lines


_logs: dict[Path, RunLog] = {}  # a loop reads only what was appended since its last run


def _judge(config: WatchConfig, state: State, now: datetime) -> list[str]:
    path = runs_path(config.db)
    runs = _logs.setdefault(path, RunLog(path)).runs()
    since, watching = state.instant("checked"), state.instant("watching") or now
    lines = []
    for job in config.jobs:
        incident = state.incidents.get(job.name)
        if incident is None:
            found = problem(job, runs, now, since, watching)
            if found is not None:
                alert = said(job, found, runs)
                incident = Incident(found.kind, found.since.isoformat(), alert.alert_id)
                state.incidents[job.name] = incident
                state.outbox.append(alert)
                lines.append(f"{job.name}: {found.kind}")
        if incident is not None:
            run = recovered(job, runs, now, datetime.fromisoformat(incident.since))
            if run is not None:
                state.outbox.append(back(job, incident, run))
                del state.incidents[job.name]
                lines.append(f"{job.name}: recovered")
    state.checked, state.watching = now.isoformat(), watching.isoformat()
    return lines


def _send(config: WatchConfig, state: State) -> list[str]:
    """Send every recorded alert to each target that has not taken it; strike each target
    (and an alert once all took it) from the state right after it took it."""
    jobs = {job.name: job for job in config.jobs}
    lines = []
    for alert in list(state.outbox):
        job = jobs.get(alert.job)
        targets = {target.key: target for target in (job.targets if job else ())}
        for key in list(alert.pending):
            target = targets.get(key)
            if target is None:  # the watch file no longer names it
                alert.pending.remove(key)
                lines.append(f"{alert.job}: {alert.kind} alert dropped for a removed target")
                continue
            try:
                target.send(_content(alert))
            except DeliveryError as exc:
                alert.attempts += 1
                alert.error = str(exc)
                save(config.state, state)
                lines.append(
                    f"{alert.job}: {alert.kind} alert to {target.shown} failed: {exc}; "
                    "tried again on the next run"
                )
                continue
            alert.pending.remove(key)
            save(config.state, state)
            lines.append(f"{alert.job}: {alert.kind} alert sent to {target.shown}")
        if not alert.pending:
            state.outbox.remove(alert)
            save(config.state, state)
    return lines


def _content(alert: Outgoing) -> JobAlert:
    return JobAlert(alert.alert_id, alert.job, alert.kind, alert.subject, alert.text)
