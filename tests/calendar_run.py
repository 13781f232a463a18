"""The calendar run: the tests that read the wall clock, again at other instants.

    .venv/bin/python tests/calendar_run.py                  # every instant below
    .venv/bin/python tests/calendar_run.py --at 2027-01-01T00:30+01:00 --zone Europe/Berlin
    .venv/bin/python tests/calendar_run.py -- tests/analysis -x   # pytest's own arguments

The tests it repeats are those marked `calendar`, test by test, and the marks follow what
the tests do: the normal run watches the wall clock (tests/fixtures/clock.py), in each
test's process and the subprocesses it starts, and names every test that reads it unpinned
without the mark (failing it when pyproject's `clock_watch` is "strict") and every mark on
a test that reads nothing; tests/calendar_marks.py sets the marks from a watched run. A
test whose dates are all pinned is not repeated.

For each instant, pytest runs them with the whole process tree (the CLI, `channelkit
serve`, notebook kernels) believing it is that instant, its clock ticking on from there:
tests/travel/sitecustomize.py starts time-machine in every Python process when
CHANNELKIT_TRAVEL names the instant. TZ is set to the instant's zone, as on a machine there.
Four instants run at once (`--jobs`): an instant's tests spend most of their time waiting
(on the service, a subprocess, a rate window: 565 tests took 1.8 minutes of CPU in 4.6 of
the clock on 2026-12-07), so four keep two cores busy. Each one's closing line is printed,
and the output of a failing one; the exit status is non-zero when any instant fails.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
TRAVEL = ROOT / "tests" / "travel"
# sitecustomize imports time-machine before pytest can load its plugin for rewriting
_IMPORTED_EARLY = "Module already imported so cannot be rewritten; time_machine"


@dataclass(frozen=True)
class Instant:
    at: str  # ISO 8601 with its UTC offset
    zone: str  # the machine's zone there (TZ)
    why: str

    def __post_init__(self) -> None:
        moment = datetime.fromisoformat(self.at)
        local = moment.astimezone(ZoneInfo(self.zone))
        if moment.utcoffset() != local.utcoffset():
            raise ValueError(f"{self.at} is not a wall time of {self.zone}")


CALENDAR_JOBS = 4

INSTANTS = (
    Instant("2026-12-28T09:00+01:00", "Europe/Berlin", "Monday of 2026-W53, the year's last week"),
    Instant("2027-01-01T00:30+01:00", "Europe/Berlin", "New Year: still 2026 in UTC"),
    Instant("2027-01-03T23:59+01:00", "Europe/Berlin", "a Sunday 23:59, the last minute of W53"),
    Instant("2027-01-04T08:00+01:00", "Europe/Berlin", "the first Monday of 2027-W01"),
    Instant("2027-03-14T01:30-05:00", "America/New_York", "30 min before the US spring forward"),
    Instant("2027-03-28T01:30+01:00", "Europe/Berlin", "30 min before the EU spring forward"),
    Instant("2027-05-31T23:30+02:00", "Europe/Berlin", "a month's last half hour"),
    Instant("2027-10-31T02:30+02:00", "Europe/Berlin", "the first 02:30 of the EU fall back"),
    Instant("2027-11-07T01:30-04:00", "America/New_York", "the first 01:30 of the US fall back"),
    Instant("2028-02-29T12:00+01:00", "Europe/Berlin", "a leap day"),
)


def _marked_modules() -> list[Path]:
    tests = sorted((ROOT / "tests").rglob("test_*.py"))
    return [p for p in tests if "pytest.mark.calendar" in p.read_text(encoding="utf-8")]


def _environment(instant: Instant) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(TRAVEL), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "CHANNELKIT_TRAVEL": instant.at, "TZ": instant.zone, "PYTHONPATH": path}


def _closing(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else "(no output)"


def _failed_part(output: str) -> str:
    """pytest's output from its first FAILURES or ERRORS section on (else its last lines)."""
    lines = output.splitlines()
    heads = [i for i, line in enumerate(lines) if re.match(r"=+ (FAILURES|ERRORS) =+$", line)]
    return "\n".join(lines[heads[0] if heads else max(0, len(lines) - 80) :])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", help="one instant, ISO 8601 with its offset, instead of all")
    parser.add_argument("--zone", default="UTC", help="the zone (TZ) for --at")
    parser.add_argument("--jobs", type=int, default=CALENDAR_JOBS, help="instants run at once")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args(argv)
    instants = (Instant(args.at, args.zone, "asked for"),) if args.at else INSTANTS
    command = [sys.executable, "-m", "pytest", "-m", "calendar", "-q", "-p", "no:cacheprovider",
               "-W", f"ignore:{_IMPORTED_EARLY}:pytest.PytestAssertRewriteWarning"]  # fmt: skip
    # Only the modules that hold a calendar mark: collecting the whole suite would import
    # every module at every instant.
    named = [a for a in args.pytest_args if (ROOT / a.split("::")[0]).exists()]
    command += args.pytest_args
    command += [] if named else [str(p.relative_to(ROOT)) for p in _marked_modules()]
    logs = Path(tempfile.mkdtemp(prefix="calendar-run-"))
    begun = time.monotonic()
    waiting, running, failed = list(instants), [], []
    while waiting or running:
        while waiting and len(running) < max(1, args.jobs):
            instant = waiting.pop(0)
            log = logs / (instant.at.replace(":", "") + ".txt")
            with log.open("w", encoding="utf-8") as out:
                child = subprocess.Popen(
                    command, cwd=ROOT, env=_environment(instant), stdout=out,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                )  # fmt: skip
            running.append((instant, log, child))
        time.sleep(0.5)
        for entry in [e for e in running if e[2].poll() is not None]:
            running.remove(entry)
            instant, log, child = entry
            output = log.read_text(encoding="utf-8", errors="replace")
            print(f"{instant.at} ({instant.zone}, {instant.why}): {_closing(output)}", flush=True)
            if child.returncode != 0:
                failed.append(instant)
                print(_failed_part(output), flush=True)
    minutes = (time.monotonic() - begun) / 60
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"calendar run: {len(instants) - len(failed)} of {len(instants)} instants passed "
        f"in {minutes:.1f} min, {(used.ru_utime + used.ru_stime) / 60:.1f} min of CPU "
        f"(logs in {logs})",
        flush=True,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
