"""Every job's runs, recorded where a watcher reads them without opening the warehouse.

    with traced("sync", Path("warehouse.duckdb")):   # around a command's work
        ...

`sync`, `report` (also `--notebook`) and `deliver` append one line when a run starts and
one when it ends (completed, or failed with its one-line reason) to
`warehouse.duckdb.runs.jsonl`, beside the warehouse: readers hold the DuckDB file, and a
run that cannot open it (locked, missing) must still be seen. A command that needs the
warehouse, run where there is neither a warehouse nor a record of runs (a mistyped --db, a
dry run in another folder), records nothing: the record would be a stray file in a folder
that holds no warehouse. `sync`, which creates the warehouse, records wherever its folder
exists. Each line is one `write()` to
a file opened with O_APPEND, so lines of jobs that run at once never interleave; a line cut
by a crash (power loss) is skipped when read. A run killed with -9 leaves its start alone:
the watcher calls it hung once it outlasts its longest normal run.

With `CHANNELKIT_PING_URL` set, a run also pings that URL in the healthchecks.io protocol
(https://healthchecks.io/docs/http_api/, "Signaling failures" and "Measuring script run
time" pages): `<url>/start` when it starts, `<url>` on success, `<url>/fail` (the reason as
the POST body, which healthchecks logs) on failure, and `<url>/<exit-status>` when a signal
ended it (130, 143); every ping carries `?rid=<uuid>`, the run id healthchecks uses to pair
a start with its end (blog.healthchecks.io, "Using Run IDs to Track Run Times Of
Overlapping Jobs", 2022). A ping that fails says so in one line and never fails the job.

The watcher's heartbeat (`warehouse.duckdb.watch.json`: when it last ran, how often it
runs) is read here too, so every job and `channelkit status` say when the watcher itself
has stopped (`watcher_note`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from uuid import uuid4

import click
import httpx

from channelkit._cli import _interrupted, _Stopped
from channelkit._constants import (
    ENV_JOB,
    ENV_PING_URL,
    PING_TIMEOUT_S,
    RUNS_SUFFIX,
    WATCHER_HEARTBEAT_SUFFIX,
    WATCHER_STALE_FACTOR,
)
from channelkit._version import __version__

COMPLETED = "completed"
FAILED = "failed"


@dataclass(frozen=True)
class Run:
    """One run of a job as its lines tell it: started, and ended with an outcome or not yet.

    Run("9b1c...", "sync", datetime(2027, 3, 29, 6, tzinfo=UTC), outcome=None)
    """

    run_id: str
    job: str
    started: datetime
    ended: datetime | None = None
    outcome: str | None = None  # COMPLETED or FAILED; None while running (or killed)
    reason: str = ""  # a failed run's one line
    pid: int | None = None


def runs_path(db: Path) -> Path:
    """`warehouse.duckdb.runs.jsonl`: the runs of every job that uses the warehouse `db`."""
    return db.with_name(db.name + RUNS_SUFFIX)


def heartbeat_path(db: Path) -> Path:
    return db.with_name(db.name + WATCHER_HEARTBEAT_SUFFIX)


def record(path: Path, event: dict[str, Any]) -> None:
    """Append `event` as one line in one write: O_APPEND keeps concurrent lines whole, and a
    killed job leaves whole lines. Not flushed to disk: a power cut may lose the last lines,
    which the watcher then reads as a run missing (an alert, never a silence)."""
    line = (json.dumps(event, separators=(",", ":")) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_runs(path: Path) -> list[Run]:
    """Every run recorded in `path`, in the order they started (none if it is missing)."""
    return RunLog(path).runs()


class RunLog:
    """The runs file, read once and then only what was appended since (the watcher's loop
    reads it every few minutes; a year of hourly runs is some 17,000 lines).

    log = RunLog(runs_path(Path("warehouse.duckdb"))); log.runs()
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read = 0  # bytes parsed so far (whole lines only)
        self._starts: dict[str, dict[str, Any]] = {}
        self._ends: dict[str, dict[str, Any]] = {}

    def runs(self) -> list[Run]:
        self._catch_up()
        runs = []
        for run_id, start in self._starts.items():
            end = self._ends.get(run_id, {})
            runs.append(
                Run(
                    run_id,
                    str(start["job"]),
                    datetime.fromisoformat(start["at"]),
                    datetime.fromisoformat(end["at"]) if end else None,
                    end.get("outcome"),
                    str(end.get("reason", "")),
                    start.get("pid"),
                )
            )
        return sorted(runs, key=lambda run: run.started)

    def _catch_up(self) -> None:
        try:
            with self.path.open("rb") as file:
                if file.seek(0, os.SEEK_END) < self._read:  # replaced by a shorter file
                    self.__init__(self.path)  # type: ignore[misc]
                file.seek(self._read)
                data = file.read()
        except FileNotFoundError:
            return
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits
        self._read += len(whole)
        for line in whole.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
                kind, run = event["event"], event["run"]
            except (ValueError, KeyError, TypeError):
                continue  # a line cut by a crash
            (self._starts if kind == "start" else self._ends)[run] = event


@contextmanager
def traced(command: str, db: Path, *, creates: bool = False) -> Iterator[None]:
    """Record the run of `command` on the warehouse `db` (and ping, when asked) around
    its work; the run's name is `CHANNELKIT_JOB`, else `command`. `creates`: the command
    makes the warehouse when there is none (a first sync)."""
    job = os.environ.get(ENV_JOB) or command
    run_id = str(uuid4())
    path = runs_path(db)
    ping = _Pinger(os.environ.get(ENV_PING_URL), run_id)
    now = datetime.now(UTC)
    # a --db in a missing folder is refused by the command
    writable = path.parent.is_dir() if creates else db.exists() or path.exists()
    if writable:
        record(path, {"event": "start", "run": run_id, "job": job, "at": now.isoformat(),
                      "pid": os.getpid()})  # fmt: skip
    code, reason = 0, ""
    try:
        # Inside the try: a SIGTERM that lands while the start ping waits for its answer
        # still ends the run with its exit status (seen under load in the signal test).
        ping.send("/start")
        note = watcher_note(db, now)
        if note:
            click.echo(f"channelkit: {note}", err=True)
        yield
    except BaseException as exc:
        code, reason = _failure(exc)
        raise
    finally:
        end = {"event": "end", "run": run_id, "job": job, "at": datetime.now(UTC).isoformat()}
        end |= {"outcome": FAILED, "reason": reason} if code else {"outcome": COMPLETED}
        if writable:
            record(path, end)
        if code in (130, 143):  # ended by a signal: its exit status says which
            ping.send(f"/{code}")
        elif code:
            ping.send("/fail", reason)
        else:
            ping.send("")


def _failure(exc: BaseException) -> tuple[int, str]:
    """The exit status and one-line reason a command's exception ends the run with."""
    if isinstance(exc, click.ClickException):
        return exc.exit_code, _line(exc.format_message())
    if isinstance(exc, SystemExit):
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return code, "" if code == 0 else f"exit status {code}"
    given = getattr(exc, "exit_code", None)  # an interruption says 130 or 143
    if isinstance(exc, KeyboardInterrupt | _Stopped) or isinstance(given, int):
        status = given if isinstance(given, int) else (_interrupted or [130])[0]
        return status, f"interrupted (exit status {status})"
    return 1, _line(f"{type(exc).__name__}: {exc}")


def _line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "failed"


@dataclass(frozen=True)
class _Pinger:
    url: str | None
    run_id: str

    def send(self, suffix: str, body: str = "") -> None:
        if not self.url:
            return
        target = self.url.rstrip("/") + suffix
        try:
            httpx.post(
                target,
                params={"rid": self.run_id},
                content=body.encode("utf-8"),
                timeout=PING_TIMEOUT_S,
                headers={"User-Agent": f"channelkit/{__version__}"},
            ).raise_for_status()
        except httpx.HTTPError as exc:
            # the ping URL holds the check's secret id: only its host is shown
            host = urlsplit(self.url).hostname or "?"
            click.echo(f"channelkit: could not ping {host}: {type(exc).__name__}", err=True)


def write_heartbeat(db: Path, now: datetime, every: timedelta) -> None:
    """The watcher ran at `now` and runs every `every` (an atomic replace: never half a file)."""
    target = heartbeat_path(db)
    data = json.dumps({"at": now.isoformat(), "every_seconds": every.total_seconds()})
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(data)
    os.replace(temp, target)


def read_heartbeat(db: Path) -> tuple[datetime, timedelta] | None:
    """When the watcher of `db` last ran and how often it runs; None if it never ran."""
    try:
        beat = json.loads(heartbeat_path(db).read_text(encoding="utf-8"))
        return datetime.fromisoformat(beat["at"]), timedelta(seconds=float(beat["every_seconds"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def watcher_note(db: Path, now: datetime) -> str | None:
    """ "the watcher last ran 3 h ago ..." when its heartbeat beside `db` is older than
    WATCHER_STALE_FACTOR periods; None when it is fresh or no watcher ever ran."""
    beat = read_heartbeat(db)
    if beat is None:
        return None
    last, every = beat
    age = now - last
    if age <= every * WATCHER_STALE_FACTOR:
        return None
    return (
        f"the watcher last ran {ago(age)} ago (it runs every {ago(every)}): "
        "check its timer (`channelkit watch --print-crontab`)"
    )


def ago(span: timedelta) -> str:
    """ "40 min", "3 h", "2 days": a span as people say it."""
    minutes = int(span.total_seconds() // 60)
    if minutes < 60:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h"
    return f"{minutes // (24 * 60)} days"
