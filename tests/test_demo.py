"""`channelkit demo`, the README's main job, run as a user runs it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.slow


def _demo(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "channelkit", "demo", "--dir", directory.name, "--no-progress"],
        cwd=directory.parent,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def _next_commands(stdout: str) -> dict[str, str]:
    """The "Next:" block as a reader copies it: label -> command (continuations joined)."""
    commands: dict[str, str] = {}
    label = ""
    for line in stdout.split("Next")[1].splitlines()[1:]:
        if ":" in line[:37] and line[:37].strip():
            label = line[:37].strip().rstrip(":")
            commands[label] = line[37:].strip()
        elif label and line.strip():
            commands[label] += "\n" + line.strip()
    return commands


def test_demo_builds_warehouse_parquet_and_report_then_resyncs_incrementally(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "demo"
    first = _demo(directory)
    assert first.returncode == 0, first.stderr
    warehouse = directory / "warehouse.duckdb"
    report = directory / "report.html"
    assert str(report.resolve()) in first.stdout
    assert "channelkit sync" in first.stdout  # the next steps are printed
    assert "sync completed (full)" in first.stdout  # a first sync reads everything

    with duckdb.connect(str(warehouse), read_only=True) as con:
        posts, channels, daily = con.execute(
            "SELECT (SELECT count(*) FROM posts), (SELECT count(*) FROM channels),"
            " (SELECT count(*) FROM post_daily)"
        ).fetchone() or (0, 0, 0)
        parquet_posts = con.execute(
            "SELECT count(*) FROM read_parquet(?)", [str(directory / "parquet" / "posts" / "*")]
        ).fetchone()
    assert posts > 1000 and channels >= 5 and daily > posts
    assert parquet_posts == (posts,)

    html = report.read_text(encoding="utf-8")
    assert html.count("plotly.js v") <= 1 or html.count("<script") >= 1
    assert "<script>alert" not in html

    # The demo's keys never leave the process: nothing printed or written looks like one.
    everything = first.stdout + first.stderr + html
    assert not re.search(r"Bearer\s+\S", everything)
    assert "ck_" not in first.stdout + first.stderr

    # The "Next:" commands run as printed, from where the demo ran.
    commands = _next_commands(first.stdout)
    explore = subprocess.run(
        ["bash", "-c", commands["explore it in Python"]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert explore.returncode == 0, explore.stderr
    # the KPI table, one row per metric (views became readers in the users' words)
    assert {"posts_published", "readers", "read_rate"} <= set(explore.stdout.split())
    # with the numbers asked for: pandas hides no column ("...") of a wide frame
    assert {"value", "previous", "delta_pct"} <= set(explore.stdout.split())
    assert "..." not in explore.stdout
    assert commands["serve the demo workspace yourself"].endswith(
        "channelkit serve --seed demo --db demo/service.sqlite"
    )
    assert "pip install 'channelkit[notebook]'" in commands["explore it in JupyterLab"]

    second = _demo(directory)
    assert second.returncode == 0, second.stderr
    assert "sync completed (incremental)" in second.stdout
    with duckdb.connect(str(warehouse), read_only=True) as con:
        again = con.execute("SELECT count(*) FROM posts").fetchone()
    assert again == (posts,)
