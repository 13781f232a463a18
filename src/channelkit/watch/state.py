"""The watcher's own state file: the open incident of each job and the alerts not yet sent.

    with locked(path) as mine:        # one watcher at a time; False when another runs
        state = load(path)
        ...
        save(path, state)             # atomic: a kill -9 leaves the old file or the new

An alert is written into the outbox (and the incident beside it) before it is sent, and a
target is struck from it right after it took the alert, so a watcher killed while alerting
sends on its next run exactly what had not been taken: nothing is lost, and nothing is sent
twice unless the kill falls between a receiver's "OK" and the write that follows it (then
the repeat carries the same alert id, for a receiver to recognise).
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass
class Incident:
    """A job's open trouble: what, since when, and the alert that told it.

    Incident("late", "2027-03-29T06:00:00+00:00", "0f3c...")
    """

    kind: str
    since: str  # ISO instant
    alert_id: str


@dataclass
class Outgoing:
    """An alert recorded and not yet taken by every target (`pending`: their keys)."""

    alert_id: str
    job: str
    kind: str
    subject: str
    text: str
    pending: list[str]
    attempts: int = 0
    error: str = ""


@dataclass
class State:
    """Everything the watcher keeps between runs."""

    watching: str | None = None  # its first run (ISO): interval jobs are due from then
    checked: str | None = None  # its last run: every time due since then is looked at
    incidents: dict[str, Incident] = field(default_factory=dict)
    outbox: list[Outgoing] = field(default_factory=list)

    def instant(self, name: str) -> datetime | None:
        value = getattr(self, name)
        return None if value is None else datetime.fromisoformat(value)


def load(path: Path) -> State:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return State()
    return State(
        watching=data.get("watching"),
        checked=data.get("checked"),
        incidents={name: Incident(**item) for name, item in data["incidents"].items()},
        outbox=[Outgoing(**item) for item in data["outbox"]],
    )


def save(path: Path, state: State, *, durable: bool = True) -> None:
    """Replace the file whole (a kill leaves the old file or the new one), flushed to disk
    first when `durable`: an incident or an alert once recorded survives a power cut too. A
    tick that changed only `checked` need not wait for the disk: losing it re-reads times
    that a durable write already judged."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(asdict(state), file, indent=1)
        if durable:
            file.flush()
            os.fsync(file.fileno())
    os.replace(temp, path)


@contextmanager
def locked(path: Path) -> Iterator[bool]:
    """Hold the state's lock (a `.lock` file beside it) while the block runs; yields False,
    holding nothing, when another watcher has it."""
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock, also when the process is killed
