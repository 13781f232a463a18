"""Notices every unpinned read of the wall clock in this Python process: the normal run's
half of the calendar run (tests/calendar_run.py), which repeats only the tests that read it.

time-machine (3.x) patches `datetime.now`/`utcnow`/`today`, `date.today`, `time.time`,
`time.time_ns`, `time.gmtime()`, `time.localtime()`, `time.strftime(fmt)` and
`time.clock_gettime(CLOCK_REALTIME)` in C, and each patched function asks the top of
`time_machine.traveller_stack` for the time (`traveller.time_ns()`). A `Watcher` sits at
the bottom of that stack: it answers with the real time, and when it is asked it is the top,
so no test's travel is in force: the read is unpinned, and it notes where it came from.
Reads the code under test makes count (the first frame outside the standard library is in
src/ or tests/); a library's own (uvicorn's Date header tick, pandas, openpyxl stamping a
file) and logging's record times do not: they decide no verdict.

Subprocesses (the CLI, `channelkit serve`, a notebook's kernel) watch too: the normal run
puts tests/travel on PYTHONPATH and names a folder in CHANNELKIT_CLOCK_WATCH, and
sitecustomize starts a Watcher that appends each read to a file there, stamped with the
system-wide monotonic clock so the test run can tell which test's window it fell in.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import time_machine
from time_machine import _time_machine  # type: ignore[attr-defined]

WATCH_VARIABLE = "CHANNELKIT_CLOCK_WATCH"
# More folders of code under test (os.pathsep between them): a pytest run of its own root
ROOTS_VARIABLE = "CHANNELKIT_CLOCK_ROOTS"
ROOT = Path(__file__).resolve().parents[2]
_PROJECT = (
    str(ROOT / "src") + os.sep,
    str(ROOT / "tests") + os.sep,
    *(
        str(Path(p).resolve()) + os.sep
        for p in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep)
        if p
    ),
)
_STDLIB = tuple(
    str(Path(sysconfig.get_paths()[key]).resolve()) + os.sep for key in ("stdlib", "platstdlib")
)
_HERE = str(Path(__file__).resolve())
# Standard-library modules whose clock reads are bookkeeping, never a value a test sees.
_BOOKKEEPING = ("logging" + os.sep, "threading.py", "asyncio" + os.sep, "selectors.py")


def reader(frame: FrameType | None) -> str | None:
    """'path:line' of the project's code that made this read, or None when the read is a
    library's own (see the module's docstring)."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name == _HERE or name.startswith("<"):
            frame = frame.f_back
            continue
        if name.startswith(_STDLIB) and "site-packages" not in name:
            if any(part in name for part in _BOOKKEEPING):
                return None
            frame = frame.f_back
            continue
        if name.startswith(_PROJECT) and "site-packages" not in name:
            return f"{os.path.relpath(name, ROOT)}:{frame.f_lineno}"
        return None
    return None


class Watcher:
    """The bottom of time-machine's traveller stack: the real time, every read noted."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self.note = note
        self._busy = threading.local()

    def time_ns(self) -> int:
        now: int = _time_machine.original_time_ns()
        if time_machine.traveller_stack[-1] is self and not getattr(self._busy, "on", False):
            self._busy.on = True  # the note itself must not count as a read
            try:
                where = reader(sys._getframe(1))
                if where is not None:
                    self.note(where)
            finally:
                self._busy.on = False
        return now


def start(note: Callable[[str], None]) -> Watcher:
    """Watches from now on (for the process's life): `note(where)` at each unpinned read.
    In a process that already watches (a pytest a test starts) the reads go to `note`."""
    stack = time_machine.traveller_stack
    # by name: sitecustomize imports this module as `clock_watch`, pytest as `travel.clock_watch`
    if len(stack) == 1 and type(stack[0]).__qualname__ == Watcher.__qualname__:
        stack[0].note = note  # type: ignore[attr-defined]
        return stack[0]  # type: ignore[return-value]
    if stack:
        raise RuntimeError("the clock watch starts before any travel")
    watcher = Watcher(note)
    time_machine.traveller_stack.append(watcher)  # type: ignore[arg-type]
    _time_machine.patch()
    return watcher


def start_in_subprocess(folder: str) -> None:
    """sitecustomize's half: each read a line '<monotonic ns> <where>' in folder/<pid>."""
    out = open(Path(folder) / str(os.getpid()), "a", encoding="utf-8", buffering=1)  # noqa: SIM115
    lock = threading.Lock()

    def note(where: str) -> None:
        with lock:
            out.write(f"{time.monotonic_ns()} {where}\n")

    start(note)
