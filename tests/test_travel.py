"""The calendar run's clock (tests/calendar_run.py): every Python process it starts believes
the instant CHANNELKIT_TRAVEL names, so the calendar run can never run silently at today."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pytest
from time_machine import escape_hatch

TRAVEL = Path(__file__).resolve().parent / "travel"
SPRING_FORWARD = "2027-03-28T01:30+01:00"


@contextmanager
def _serve(env: dict[str, str]) -> Iterator[str]:
    """`channelkit serve` in its own process; yields its base URL."""
    # --db :memory:: the default state file would land in the checkout
    channelkit = str(Path(sys.executable).parent / "channelkit")
    command = [channelkit, "serve", "--db", ":memory:", "--port", "0"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert "listening at http://127.0.0.1:" in line, line + proc.stderr.read()
        yield line.split()[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _service_date(base_url: str) -> datetime:
    """The service's clock, from the Date header it sends (on a refused request too)."""
    return parsedate_to_datetime(httpx.get(f"{base_url}/posts").headers["date"])


def test_a_spawned_serve_believes_the_named_instant() -> None:
    path = os.pathsep.join(p for p in (str(TRAVEL), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "CHANNELKIT_TRAVEL": SPRING_FORWARD, "PYTHONPATH": path}
    with _serve(env) as base_url:
        shown = _service_date(base_url)
    named = datetime.fromisoformat(SPRING_FORWARD)
    # The clock ticks on from the instant: the seconds the process took to start.
    assert named - timedelta(seconds=1) <= shown <= named + timedelta(minutes=2), shown


@pytest.mark.calendar
def test_the_calendar_run_travels_in_every_process() -> None:
    named = os.environ.get("CHANNELKIT_TRAVEL")
    if not named:
        pytest.skip("a check of the calendar run (tests/calendar_run.py), which names the instant")
    instant, _, started = named.partition(" at ")
    assert started, f"CHANNELKIT_TRAVEL={named!r}: tests/travel is not on PYTHONPATH"
    elapsed = escape_hatch.time.time() - float(started)  # real seconds since the run began
    expected = datetime.fromisoformat(instant) + timedelta(seconds=elapsed)
    here = datetime.now(UTC)
    assert abs(here - expected) < timedelta(seconds=5), (here, expected)
    with _serve(dict(os.environ)) as base_url:  # it inherits the travel, as any child does
        shown = _service_date(base_url)
    assert abs(shown - datetime.now(UTC)) < timedelta(seconds=5), (shown, here)


PLANTED = """
from datetime import date

import pytest

pytestmark = pytest.mark.calendar


def test_the_day_is_the_leap_day():
    assert date.today() == date(2028, 2, 29)


def test_planted_failure():
    assert False, "planted failure"
"""


def test_the_calendar_run_shows_each_closing_line_and_fails_when_a_test_fails(
    tmp_path: Path,
) -> None:
    planted = tmp_path / "test_planted.py"
    planted.write_text(PLANTED, encoding="utf-8")
    at = ["--at", "2028-02-29T12:00+01:00", "--zone", "Europe/Berlin"]
    command = [sys.executable, str(TRAVEL.parent / "calendar_run.py"), *at, "--", str(planted)]
    done = subprocess.run(
        command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2028-02-29T12:00+01:00 (Europe/Berlin, asked for): 1 failed, 1 passed" in done.stdout
    assert "AssertionError: planted failure" in done.stdout  # the failing instant's output
    assert "calendar run: 0 of 1 instants passed" in done.stdout
