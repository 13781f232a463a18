"""Every benchmark still runs: each `bench/*.py --small` in a subprocess.

The benches measure speed as ratios (never asserted here); this only keeps them from
rotting when the code they call changes. A new bench is picked up by the glob, and it
must offer `--small` (a run of a few seconds).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))

pytestmark = pytest.mark.slow


def test_the_benches_are_found() -> None:
    assert len(SCRIPTS) >= 10, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_bench_runs_small(script: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, str(script), "--small"],
        capture_output=True,
        text=True,
        cwd=BENCH,
        env=env,
        timeout=600,  # a run of seconds, but the machine may be busy with other work
    )
    assert done.returncode == 0, f"{script.name} --small failed:\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{script.name} --small printed no figures"


def test_tests_and_benches_insert_rows_by_column_name() -> None:
    # By position, a new warehouse column breaks every such INSERT (53 tests once) or,
    # in a bench, silently shifts values into the wrong columns.
    root = Path(__file__).parents[1]
    positional = re.compile(r"INSERT INTO \w+ (SELECT|VALUES)\b", re.IGNORECASE)
    offenders = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("tests", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        if path != Path(__file__)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if positional.search(line)
    ]
    assert not offenders, "name the columns (INSERT INTO t (a, b) ... or BY NAME): " + ", ".join(
        offenders
    )
