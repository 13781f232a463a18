"""Makes this Python process, and every Python process it starts, believe it is another
instant: the calendar run (tests/calendar_run.py) puts this folder on PYTHONPATH and names
the instant in CHANNELKIT_TRAVEL, e.g. "2027-01-01T00:30+01:00".

Python imports `sitecustomize` at start-up, before any other code, so the CLI, a
`channelkit serve` a fixture starts and a notebook's kernel travel too: time-machine moves
`time.time`, `datetime.now` and friends (not the monotonic clocks, so waits and timeouts
keep their length), and the clock ticks on from the instant.

The first process rewrites the variable to "<instant> at <real epoch seconds>", so a process
started minutes later believes the instant plus those minutes, the same time as its parent.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime


def _import_time_machine() -> None:
    """Imports time-machine, without pytest in a process that is not a pytest run.

    time-machine imports pytest whenever it can, for its fixture (`try: import pytest` in
    its `__init__`, read in the installed 3.6.0): every Python process the suite starts (a
    CLI call, `channelkit serve`, a kernel, a reader) paid that import at start-up, ~0.12 s
    of CPU on a quiet machine and a second under load, and none of them uses the fixture.
    A pytest run (`-m pytest`, the `pytest` script) keeps it; a process that imports pytest
    later misses only time-machine's fixture, which pytest names ("fixture 'time_machine'
    not found").
    """
    if any(arg == "pytest" or os.path.basename(arg) == "pytest" for arg in sys.orig_argv):
        import time_machine  # noqa: F401

        return
    sys.modules["pytest"] = None  # type: ignore[assignment]  # `import pytest` fails at once
    try:
        import time_machine  # noqa: F401
    finally:
        del sys.modules["pytest"]


def _travel(named: str) -> None:
    _import_time_machine()  # first: under load its import takes seconds the clock must not lose
    import time_machine

    instant, _, started = named.partition(" at ")
    destination = datetime.fromisoformat(instant.strip())
    if destination.tzinfo is None:
        raise SystemExit(f"CHANNELKIT_TRAVEL={named!r}: give the instant with its UTC offset")
    now = time.time()
    if started:
        destination = datetime.fromtimestamp(destination.timestamp() + now - float(started))
    else:
        os.environ["CHANNELKIT_TRAVEL"] = f"{instant.strip()} at {now!r}"
    time_machine.travel(destination.timestamp(), tick=True).start()
    time.time()  # time-machine's clock ticks from its first reading: from now, then


if os.environ.get("CHANNELKIT_TRAVEL"):
    _travel(os.environ["CHANNELKIT_TRAVEL"])
elif os.environ.get("CHANNELKIT_CLOCK_WATCH"):
    # The normal run: this process's unpinned clock reads count for the test that started
    # it (tests/fixtures/clock.py).
    _import_time_machine()
    import clock_watch

    clock_watch.start_in_subprocess(os.environ["CHANNELKIT_CLOCK_WATCH"])
