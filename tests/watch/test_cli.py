"""`channelkit watch`: the crontab it prints, one line for a bad watch file, and
`channelkit status` saying when the watcher itself stopped."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import time_machine
from click.testing import CliRunner

from channelkit._job_runs import write_heartbeat
from channelkit.cli import main

WATCH = """\
[watch]
db = "warehouse.duckdb"
every = "5m"
alert = { webhooks = [{ url = "https://hooks.example.com/T000/B000", kind = "slack" }] }

[[jobs]]
name = "sync"
run = "channelkit sync --db warehouse.duckdb --quiet"
cron = "0 * * * *"
tz = "Europe/Berlin"
ping_url = "https://hc-ping.com/0f3c2f4e-2b1a-4c8e-9a7d-1e2f3a4b5c6d"

[[jobs]]
name = "deliver"
run = "channelkit deliver deliver.toml --db warehouse.duckdb --max-age 100%"
cron = "0 8 * * 1"
tz = "Europe/Berlin"
grace = "30m"

[[jobs]]
name = "digest"
run = "channelkit deliver digest.toml --db warehouse.duckdb"
cron = "30 6 * * *"
tz = "America/New_York"
"""


def test_print_crontab_writes_the_jobs_and_the_watcher_from_the_watch_file(
    tmp_path: Path,
) -> None:
    watch = tmp_path / "watch.toml"
    watch.write_text(WATCH, encoding="utf-8")
    result = CliRunner().invoke(main, ["watch", str(watch), "--print-crontab"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == [
        f"PATH={Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "CRON_TZ=Europe/Berlin",
        "0 * * * * export CHANNELKIT_JOB=sync "
        "CHANNELKIT_PING_URL=https://hc-ping.com/0f3c2f4e-2b1a-4c8e-9a7d-1e2f3a4b5c6d; "
        "channelkit sync --db warehouse.duckdb --quiet",
        "0 8 * * 1 export CHANNELKIT_JOB=deliver; "
        "channelkit deliver deliver.toml --db warehouse.duckdb --max-age 100\\%",
        "CRON_TZ=America/New_York",
        "30 6 * * * export CHANNELKIT_JOB=digest; "
        "channelkit deliver digest.toml --db warehouse.duckdb",
        "CRON_TZ=UTC",
        f"*/5 * * * * channelkit watch {watch.resolve()} --once --quiet",
    ]


def test_a_mistake_in_the_watch_file_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    watch = tmp_path / "watch.toml"
    watch.write_text(WATCH.replace('"0 8 * * 1"', '"0 25 * * 1"'), encoding="utf-8")
    result = CliRunner().invoke(main, ["watch", str(watch), "--once"])
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]  # under click's usage lines, as `deliver`
    assert (
        "Traceback" not in result.output
        and f"{watch}: jobs[1].cron" in line
        and "hour: '25' is outside 0-23" in line
    )
    assert not (tmp_path / "warehouse.duckdb.watch-state.json").exists()


def test_status_says_when_the_watcher_has_not_run_for_longer_than_its_period(
    small_warehouse: Path,
) -> None:
    last = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    write_heartbeat(small_warehouse, last, timedelta(minutes=5))
    args = ["status", "--db", str(small_warehouse)]
    with time_machine.travel(last + timedelta(minutes=8), tick=False):
        fresh = CliRunner().invoke(main, args)
    with time_machine.travel(last + timedelta(hours=3, minutes=4), tick=False):
        stale = CliRunner().invoke(main, args)
    assert fresh.exit_code == 0 and "watcher" not in fresh.output
    assert stale.exit_code == 0, stale.output
    assert "warning: the watcher last ran 3 h ago (it runs every 5 min)" in stale.output
