"""`channelkit watch WATCH.toml --print-crontab`: the crontab that runs what the file watches.

    print(crontab(load_watch("watch.toml")))

The schedule the watcher expects and the one cron runs come from the same lines of the
watch file. Each job's line sits under `CRON_TZ=<its zone>`, which cronie (Fedora, RHEL,
Arch; jakemccrary.com, "Scheduling cron tasks in mixed time zones", 2024) and NetBSD's cron
("CRON_TZ sets the time zone within which a job is considered for execution") read; Debian's
and Ubuntu's `cron` and busybox's crond were not checked here and may ignore it, running the
line in the system's zone: there, set the system's zone to the jobs' or use a systemd timer
(`OnCalendar=... Europe/Berlin`). Cron runs each command through the shell with a `%` read
as a newline, so a `%` in a command is written `\\%`. The job's line sets `CHANNELKIT_JOB`
(the name its runs are recorded under) and, when the file gives one, `CHANNELKIT_PING_URL`;
a `PATH` line first finds `channelkit` where this one is installed.
"""

from __future__ import annotations

import shlex
import sys
from datetime import timedelta
from pathlib import Path

from channelkit.errors import InvalidParameterError
from channelkit.watch.config import WatchConfig, WatchedJob


def crontab(config: WatchConfig) -> str:
    """The crontab lines for the jobs and the watcher, grouped by zone."""
    lines = [
        f"# written by `channelkit watch {config.path} --print-crontab`",
        # cron's PATH is short: this interpreter's scripts folder (the virtualenv) first
        f"PATH={Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
    ]
    zone = None
    for job in config.jobs:
        tz = job.cron.tz.key if job.cron else "UTC"
        if tz != zone:
            lines.append(f"CRON_TZ={tz}")
            zone = tz
        when = job.cron.text if job.cron else _every(job.every, f"jobs {job.name!r}: every")
        lines.append(f"{when} {_escaped(_command(job))}")
    if zone != "UTC":
        lines.append("CRON_TZ=UTC")
    watcher = f"channelkit watch {shlex.quote(str(config.path.resolve()))} --once --quiet"
    lines.append(f"{_every(config.every, 'watch.every')} {_escaped(watcher)}")
    return "\n".join(lines) + "\n"


def _command(job: WatchedJob) -> str:
    """`export` first: `run` may be `cd /srv/x && channelkit sync`, and a `NAME=value`
    prefix would reach only the `cd`."""
    env = [f"CHANNELKIT_JOB={shlex.quote(job.name)}"]
    if job.ping_url:
        env.append(f"CHANNELKIT_PING_URL={shlex.quote(job.ping_url)}")
    return f"export {' '.join(env)}; {job.run}"


def _escaped(command: str) -> str:
    return command.replace("%", "\\%")


def _every(every: timedelta | None, where: str) -> str:
    """An interval as cron fields: a whole number of minutes that divides an hour, of hours
    that divides a day, or one day; anything else has no crontab line."""
    assert every is not None
    minutes = int(every.total_seconds() // 60)
    if every.total_seconds() % 60 == 0:
        if minutes < 60 and 60 % minutes == 0:
            return "* * * * *" if minutes == 1 else f"*/{minutes} * * * *"
        hours, rest = divmod(minutes, 60)
        if rest == 0 and hours < 24 and 24 % hours == 0:
            return "0 * * * *" if hours == 1 else f"0 */{hours} * * *"
        if minutes == 24 * 60:
            return "0 0 * * *"
    raise InvalidParameterError(
        where,
        f"{every} has no crontab line (minutes dividing an hour, hours dividing a day, or 1d); "
        "give a cron expression instead, or run it from a systemd timer",
    )
