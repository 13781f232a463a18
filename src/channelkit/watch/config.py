"""The watch file (`channelkit watch WATCH.toml`), read and checked before anything runs.

    [watch]
    db = "warehouse.duckdb"      # the jobs' runs are beside it: warehouse.duckdb.runs.jsonl
    every = "5m"                 # how often the watcher runs (its crontab line, --loop)
    alert = { email = ["ops@example.com"], webhooks = [{ url = "https://...", kind = "slack" }] }

    [smtp]                       # as in the delivery file (or CHANNELKIT_SMTP_URL)
    url = "smtp://127.0.0.1:2525"
    from = "Comms analytics <analytics@example.com>"

    [[jobs]]
    name = "sync"                # the name its runs are recorded under (CHANNELKIT_JOB)
    run = "channelkit sync --db warehouse.duckdb"
    cron = "0 * * * *"           # or every = "1h"
    tz = "Europe/Berlin"
    grace = "15m"                # how late a run may start
    longest = "30m"              # its longest normal run
    ping_url = "https://hc-ping.com/<uuid>"   # optional: healthchecks.io pings per run
    alert = { ... }              # optional: instead of [watch]'s

Alert targets are the delivery file's (`reports/deliver/config.py`): email through `[smtp]`
and webhooks of every declared kind. Every mistake is one `InvalidParameterError` naming
the file and the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from channelkit._constants import (
    DEFAULT_TZ,
    WATCH_EVERY,
    WATCH_GRACE,
    WATCH_LONGEST,
    WATCH_STATE_SUFFIX,
)
from channelkit._tz import load_zone
from channelkit.errors import InvalidParameterError
from channelkit.reports.deliver.config import (
    address,
    known_keys,
    read_toml,
    smtp_settings,
    webhook,
)
from channelkit.reports.deliver.targets import Target
from channelkit.reports.parameters import parse_duration
from channelkit.watch.cron import Cron

_WATCH_KEYS = {"db", "every", "alert", "state"}
_JOB_KEYS = {"name", "run", "cron", "every", "tz", "grace", "longest", "ping_url", "alert"}
_ALERT_KEYS = {"email", "webhooks"}


@dataclass(frozen=True)
class WatchedJob:
    """One job the watcher expects: when it runs, how late and how long it may be, who hears.

    WatchedJob("sync", "channelkit sync", Cron.parse("0 * * * *", UTC_ZONE), None,
               timedelta(minutes=15), timedelta(minutes=30), targets=())
    """

    name: str
    run: str  # the command its crontab line runs
    cron: Cron | None
    every: timedelta | None  # an interval instead of a cron expression
    grace: timedelta
    longest: timedelta
    targets: tuple[Target, ...]
    ping_url: str | None = field(default=None, repr=False)  # a secret, like a webhook's


@dataclass(frozen=True)
class WatchConfig:
    """The whole file: the warehouse whose runs are watched, the watcher's own period and
    state file, and the jobs."""

    path: Path
    db: Path
    every: timedelta
    state: Path
    jobs: tuple[WatchedJob, ...]


def load_watch(path: str | Path, env: Mapping[str, str] | None = None) -> WatchConfig:
    """Read and check the watch file at `path`; `env` supplies CHANNELKIT_SMTP_URL and
    webhooks' `url_env`."""
    file = Path(path)
    env = os.environ if env is None else env
    data = read_toml(file, "watch file")
    where = str(file)
    known_keys(data, {"watch", "smtp", "jobs"}, where, "section")
    watch = data.get("watch", {})
    if not isinstance(watch, dict):
        raise InvalidParameterError(f"{where}: watch", "expected a [watch] table")
    known_keys(watch, _WATCH_KEYS, f"{where}: watch")
    raw_jobs = data.get("jobs")
    if not isinstance(raw_jobs, list) or not raw_jobs:
        raise InvalidParameterError(where, "no [[jobs]]: add at least one")
    alerts = [watch.get("alert"), *(j.get("alert") for j in raw_jobs if isinstance(j, dict))]
    mails = any(isinstance(a, dict) and a.get("email") for a in alerts)
    smtp = smtp_settings(data.get("smtp", {}), env, where) if mails else None
    default = watch.get("alert")
    jobs = tuple(
        _job(item, f"{where}: jobs[{index}]", default, smtp, env)
        for index, item in enumerate(raw_jobs)
    )
    names = [job.name for job in jobs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InvalidParameterError(where, f"two jobs are named {twice[0]!r}")
    base = file.parent
    db = base / _text(watch, "db", f"{where}: watch", "warehouse.duckdb")
    state = watch.get("state")
    kept = base / state if isinstance(state, str) else db.with_name(db.name + WATCH_STATE_SUFFIX)
    return WatchConfig(
        path=file,
        db=db,
        every=_duration(watch, "every", f"{where}: watch", WATCH_EVERY),
        state=kept,
        jobs=jobs,
    )


def _job(item: Any, where: str, default: Any, smtp: Any, env: Mapping[str, str]) -> WatchedJob:
    if not isinstance(item, dict):
        raise InvalidParameterError(where, "expected a table of name, run, cron, ...")
    known_keys(item, _JOB_KEYS, where)
    name = _text(item, "name", where)
    tz = _text(item, "tz", where, DEFAULT_TZ)
    zone = load_zone(tz, param=f"{where}.tz")  # once: the job's cron reads it
    if ("cron" in item) == ("every" in item):
        raise InvalidParameterError(where, 'give either cron = "m h dom mon dow" or every')
    cron = None
    if "cron" in item:
        try:
            cron = Cron.parse(_text(item, "cron", where), zone)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"{where}.cron", exc.message) from None
    ping = item.get("ping_url")
    if ping is not None and (not isinstance(ping, str) or not ping.startswith("http")):
        raise InvalidParameterError(f"{where}.ping_url", "expected an http(s) URL")
    alert = item.get("alert", default)
    if alert is None:
        raise InvalidParameterError(where, "no alert: give one here or in [watch]")
    return WatchedJob(
        name=name,
        run=_text(item, "run", where, f"channelkit {name}"),
        cron=cron,
        every=_duration(item, "every", where, None) if "every" in item else None,
        grace=_duration(item, "grace", where, WATCH_GRACE),
        longest=_duration(item, "longest", where, WATCH_LONGEST),
        targets=_targets(alert, f"{where}.alert", smtp, env),
        ping_url=ping,
    )


def _targets(raw: Any, where: str, smtp: Any, env: Mapping[str, str]) -> tuple[Target, ...]:
    """`{ email = [...], webhooks = [...] }`: the delivery file's targets."""
    if not isinstance(raw, dict):
        raise InvalidParameterError(where, "expected { email = [...], webhooks = [...] }")
    known_keys(raw, _ALERT_KEYS, where)
    email = raw.get("email", [])
    hooks = raw.get("webhooks", [])
    if not isinstance(email, list) or not isinstance(hooks, list):
        raise InvalidParameterError(where, "email and webhooks are lists [...]")
    found: list[Target] = []
    if email:
        mails = tuple(address(str(text), f"{where}.email") for text in email)
        shown = "email " + ", ".join(mails)
        found.append(Target("email:" + ",".join(mails), shown, recipients=mails, smtp=smtp))
    for index, raw_hook in enumerate(hooks):
        hook = webhook(raw_hook, f"webhooks[{index}]", where, env)
        found.append(Target(hook.target, hook.shown, hook=hook))
    if not found:
        raise InvalidParameterError(where, "no email and no webhooks: nobody would hear")
    return tuple(found)


def _text(item: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = item.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameterError(f"{where}.{key}", "required text")
    return value.strip()


def _duration(item: Mapping[str, Any], key: str, where: str, default: str | None) -> timedelta:
    text = _text(item, key, where, default)
    try:
        return parse_duration(text)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{where}.{key}", exc.message) from None
