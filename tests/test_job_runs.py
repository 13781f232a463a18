"""Every job records its runs beside the warehouse and pings a healthchecks.io-style URL:
a completed run, a failed one, one ended by SIGTERM and one killed with -9."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from uuid import uuid4

import pytest
import time_machine
from click.testing import CliRunner

from channelkit._job_runs import COMPLETED, FAILED, read_runs, runs_path
from channelkit.cli import main
from channelkit.service import LocalService
from fixtures.receivers import Monitor
from fixtures.warehouse import LAST_SYNC_FINISHED

ROOT = Path(__file__).resolve().parents[1]


def _signals(monitor: Monitor, check: str) -> dict[str, list[str]]:
    """Each run's pings in the order they arrived, by run id."""
    runs: dict[str, list[str]] = {}
    for ping in monitor.pings:
        assert ping.check == check
        runs.setdefault(ping.rid, []).append(ping.signal)
    return runs


def test_a_completed_and_a_failed_run_are_recorded_and_pinged_in_order(
    tmp_path: Path,
    monitor: Monitor,
    service: LocalService,
    admin_key: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check = str(uuid4())
    monkeypatch.setenv("CHANNELKIT_PING_URL", monitor.check_url(check))
    monkeypatch.setenv("CHANNELKIT_JOB", "hourly-sync")
    db = tmp_path / "warehouse.duckdb"
    args = ["sync", "--db", str(db), "--base-url", service.base_url, "--api-key", admin_key, "-q"]
    assert CliRunner().invoke(main, args).exit_code == 0
    failing = ["deliver", str(tmp_path / "missing.toml"), "--db", str(db), "-q"]
    failed = CliRunner().invoke(main, failing)
    assert failed.exit_code == 2

    runs = read_runs(runs_path(db))
    assert [(r.job, r.outcome) for r in runs] == [
        ("hourly-sync", COMPLETED),
        ("hourly-sync", FAILED),
    ]
    assert "missing.toml: no such file" in runs[1].reason and "\n" not in runs[1].reason
    assert list(_signals(monitor, check).values()) == [["start", "success"], ["start", "fail"]]
    assert [p.rid for p in monitor.pings][::2] == [r.run_id for r in runs]
    assert "missing.toml: no such file" in monitor.pings[-1].body
    assert monitor.refused == []


def test_a_run_ended_by_a_signal_pings_its_exit_status_and_one_killed_leaves_its_start(
    tmp_path: Path, monitor: Monitor
) -> None:
    silent = socket.socket()  # a service that takes the connection and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    check = str(uuid4())
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "CHANNELKIT_PING_URL": monitor.check_url(check),
        "CHANNELKIT_API_KEY": "ck_test_not_a_key",
    }
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
    jobs = {}
    for name in ("terminated", "killed"):
        db = tmp_path / f"{name}.duckdb"
        command = [sys.executable, "-m", "channelkit", "sync", "--db", str(db), "--base-url", url]
        jobs[name] = subprocess.Popen(
            command, env={**env, "CHANNELKIT_JOB": name}, stderr=subprocess.PIPE
        )
    deadline = time.monotonic() + 90
    while len(monitor.pings) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(monitor.pings) == 2, "the jobs did not start"
    jobs["terminated"].send_signal(signal.SIGTERM)
    jobs["killed"].send_signal(signal.SIGKILL)
    assert jobs["terminated"].wait(timeout=60) == 143
    assert jobs["killed"].wait(timeout=60) == -signal.SIGKILL
    silent.close()

    (terminated,) = read_runs(runs_path(tmp_path / "terminated.duckdb"))
    (killed,) = read_runs(runs_path(tmp_path / "killed.duckdb"))
    assert terminated.outcome == FAILED and "exit status 143" in terminated.reason
    assert killed.ended is None  # started and never ended: the watcher calls it hung
    by_run = _signals(monitor, check)
    assert by_run[terminated.run_id] == ["start", "143"]
    assert by_run[killed.run_id] == ["start"]


def test_report_and_a_notebook_report_are_recorded_under_their_names(
    tmp_path: Path, small_warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHANNELKIT_JOB", raising=False)
    monkeypatch.delenv("CHANNELKIT_PING_URL", raising=False)
    db = ["--db", str(small_warehouse), "--out", str(tmp_path / "r.html")]
    with time_machine.travel(LAST_SYNC_FINISHED + timedelta(days=3), tick=False):
        CliRunner().invoke(main, ["report", *db, "--period", "7d", "--max-age", "1h"])
    CliRunner().invoke(main, ["report", *db, "--notebook", str(tmp_path / "none.ipynb")])
    runs = read_runs(runs_path(small_warehouse))
    assert [(r.job, r.outcome) for r in runs] == [
        ("report", FAILED),
        ("report-notebook", FAILED),
    ]
    assert "1h" in runs[0].reason and "none.ipynb" in runs[1].reason


def test_a_run_on_a_missing_warehouse_leaves_no_record_in_a_folder_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHANNELKIT_JOB", raising=False)
    monkeypatch.delenv("CHANNELKIT_PING_URL", raising=False)
    db = tmp_path / "warehouse.duckdb"
    report = ["report", "--db", str(db), "--out", str(tmp_path / "r.html")]
    assert CliRunner().invoke(main, report).exit_code != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the old code left the record

    # Where runs were recorded before (a watched warehouse, deleted since), the failure is
    # recorded: the watcher must see it.
    runs_path(db).touch()
    assert CliRunner().invoke(main, report).exit_code != 0
    (failed,) = read_runs(runs_path(db))
    assert failed.outcome == FAILED and str(db) in failed.reason
