"""`channelkit sync` as users run it: summaries, clear errors, exit codes, SIGKILL + resume."""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.sync import run_sync


@pytest.fixture(autouse=True)
def _short_connection_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused connection is retried for a minute by default (a deploy may take that long);
    # the "service not running" cases here need the message, not the minute.
    monkeypatch.setenv("CHANNELKIT_CONNECT_RETRY_SECONDS", "1")


@pytest.fixture
def svc(service_factory: Callable[..., LocalService]) -> LocalService:
    return service_factory(rate_window=1.0)


@pytest.fixture
def key(svc: LocalService) -> str:
    key = svc.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=svc.base_url, api_key=key) as client:
        channels = [client.channels.create(name=f"Channel {i}").id for i in range(2)]
        for n in range(60):
            client.posts.create(
                channel_id=channels[n % 2], title=f"Post {n}", body="text", tags=[f"t{n % 3}"]
            )
            if n % 20 == 19:
                svc.advance_clock(86_400)
    return key


def invoke(*args: str, base_url: str, key: str) -> Result:
    env = {"CHANNELKIT_BASE_URL": base_url, "CHANNELKIT_API_KEY": key}
    return CliRunner().invoke(main, ["sync", *args], env=env)


def test_summary_counts_and_parquet(svc: LocalService, key: str, tmp_path: Path) -> None:
    db, out = tmp_path / "wh.duckdb", tmp_path / "parquet"
    args = ("--db", str(db), "--only", "posts,channels", "--parquet", str(out))
    result = invoke(*args, base_url=svc.base_url, key=key)
    assert result.exit_code == 0, result.output
    assert "sync completed" in result.output
    assert [line.split() for line in result.output.splitlines() if line.startswith("posts")] == [
        ["posts", "60", "0", "0", "0"]
    ]
    assert key not in result.output
    assert duckdb.sql(f"SELECT count(*) FROM '{out}/posts/*.parquet'").fetchall() == [(60,)]
    again = invoke(*args, base_url=svc.base_url, key=key)
    assert again.exit_code == 0, again.output
    assert [line.split() for line in again.output.splitlines() if line.startswith("posts")] == [
        ["posts", "0", "0", "60", "0"]
    ]


def test_wrong_key_is_a_clear_error(svc: LocalService, key: str, tmp_path: Path) -> None:
    wrong = "ck_this-key-does-not-exist"
    result = invoke("--db", str(tmp_path / "wh.duckdb"), base_url=svc.base_url, key=wrong)
    assert result.exit_code == 1
    assert "401" in result.output and "NOT completed" in result.output
    assert wrong not in result.output
    assert "Traceback" not in result.output


def test_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    result = invoke(
        "--db", str(tmp_path / "wh.duckdb"), base_url=f"http://127.0.0.1:{port}/v1", key="k"
    )
    assert result.exit_code == 1
    assert f"127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output


def test_foreign_and_newer_files_are_refused(svc: LocalService, key: str, tmp_path: Path) -> None:
    foreign = tmp_path / "other.duckdb"
    duckdb.connect(str(foreign)).execute("CREATE TABLE t (x INT)").close()
    result = invoke("--db", str(foreign), base_url=svc.base_url, key=key)
    assert result.exit_code == 1
    assert "from another tool, not a channelkit warehouse" in result.output

    newer = tmp_path / "newer.duckdb"
    con = open_warehouse(newer, read_only=False)
    con.execute("UPDATE schema_meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    result = invoke("--db", str(newer), base_url=svc.base_url, key=key)
    assert result.exit_code == 1
    assert "schema version 99, newer than this channelkit understands" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "yesterday"), "--since: 'yesterday' is not a date; use YYYY-MM-DD"),
        (("--since", "2026-13-01"), "(month must be in 1..12)"),
        (("--since", "2026-11-01T10:00:00"), "needs an offset, e.g. 2026-11-01T10:00:00Z"),
        (("--only", "posts,comments"), "--only: 'comments' is not a part to sync; choices"),
        (
            ("--lookback-days", "-1"),
            "'--lookback-days': '-1' is not a whole number of days from 0 to 36500",
        ),
    ],
)
def test_bad_options_exit_2(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    result = invoke(*args, "--db", str(tmp_path / "wh.duckdb"), base_url="http://h/v1", key="k")
    assert result.exit_code == 2
    assert message in result.output


def test_sigkill_at_random_points_then_resume_equals_a_clean_run(
    svc: LocalService, key: str, tmp_path: Path
) -> None:
    # CHANNELKIT_LOG=debug makes the client log one line per response: each run is killed
    # after a random number of them, i.e. at a random point of its walk.
    env = {
        **os.environ,
        "CHANNELKIT_BASE_URL": svc.base_url,
        "CHANNELKIT_API_KEY": key,
        "CHANNELKIT_LOG": "debug",
    }
    db = tmp_path / "killed.duckdb"
    # The sync command alone: `channelkit` itself also imports every other part's CLI.
    command = [sys.executable, "-c", "from channelkit.sync.cli import sync; sync()"]
    # Pages of 1 and a checkpoint every 3 rows: ~20 transactions per walk.
    command += ["--db", str(db), "--page-limit", "1"]
    command += ["--batch-rows", "3", "--no-progress"]
    rng = random.Random(4)
    for _ in range(4):
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert proc.stderr is not None
        # ~60 pages of posts then ~150 of analytics: each run gets further into them.
        responses, kill_after = 0, rng.randint(3, 60)
        lines = []
        for line in proc.stderr:
            lines.append(line)
            responses += " -> 200 in " in line
            if responses >= kill_after:
                proc.send_signal(signal.SIGKILL)
                break
        assert proc.wait() == -signal.SIGKILL, "".join(lines[-5:])
    final = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert final.returncode == 0, final.stdout + final.stderr
    assert key not in final.stderr

    clean = tmp_path / "clean.duckdb"
    with Client(base_url=svc.base_url, api_key=key) as client:
        assert run_sync(client, clean, progress=False).completed
    for table, columns in (
        ("posts", "id, title, tags, views, status, epoch_us(published_at)"),
        ("post_tags", "post_id, tag"),
        ("channels", "id, name, post_count, deleted_at IS NULL"),
        # The current day's numbers still move while the runs go on: compare the others.
        ("post_daily WHERE date < current_date", "post_id, date, views, reactions, clicks"),
        ("channel_daily WHERE date < current_date", "channel_id, date, views, subscribers"),
    ):
        query = f"SELECT {columns} FROM {table} ORDER BY ALL"
        assert rows(db, query) == rows(clean, query), table
    runs = rows(db, "SELECT status, error FROM sync_runs ORDER BY started_at")
    assert runs[-1] == ("completed", None)
    assert [status for status, _ in runs[:-1]] == ["failed"] * (len(runs) - 1)
    assert all("interrupted" in error for _, error in runs[:-1])
    assert len(runs) >= 4  # kills during start-up happen before a run is recorded


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_sqlite_file_as_db_is_refused(svc: LocalService, key: str, tmp_path: Path) -> None:
    path = tmp_path / "service.sqlite"
    sqlite = sqlite3.connect(path)
    sqlite.execute("CREATE TABLE t (x)")
    sqlite.commit()
    sqlite.close()
    result = invoke("--db", str(path), base_url=svc.base_url, key=key)
    assert result.exit_code == 1
    assert "service.sqlite is a SQLite database, not a channelkit warehouse" in result.output
    assert "Traceback" not in result.output


def test_a_damaged_warehouse_ends_in_one_line_without_a_false_promise(
    svc: LocalService, key: str, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    assert invoke("--db", str(path), base_url=svc.base_url, key=key).exit_code == 0
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(size // 2)
    result = invoke("--db", str(path), base_url=svc.base_url, key=key)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0], result.output
    assert "continues" not in result.output and "Traceback" not in result.output


def test_a_password_in_the_base_url_is_never_shown_or_stored(
    svc: LocalService, key: str, tmp_path: Path
) -> None:
    path = tmp_path / "wh.duckdb"
    url = svc.base_url.replace("http://", "http://ops:hunter2@")
    result = invoke("--db", str(path), base_url=url, key=key)
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output and "<redacted>@127.0.0.1" in result.output
    con = open_warehouse(path, read_only=True)
    stored = con.execute("SELECT base_url FROM sync_runs").fetchall()
    con.close()
    assert stored == [(svc.base_url.replace("http://", "http://<redacted>@"),)]


def test_lake_option_keeps_a_delta_copy(svc: LocalService, key: str, tmp_path: Path) -> None:
    pytest.importorskip("deltalake", reason="the lake needs channelkit[lake]")
    db, lake = tmp_path / "wh.duckdb", tmp_path / "lake"
    result = invoke("--db", str(db), "--lake", str(lake), base_url=svc.base_url, key=key)
    assert result.exit_code == 0, result.output
    assert "lake:" in result.output and "rows merged" in result.output
    assert (lake / "posts" / "_delta_log").is_dir()


def test_a_sync_does_not_import_pandas(svc: LocalService, key: str, tmp_path: Path) -> None:
    # A cron job pays every import on every run: pandas alone costs about half a second.
    env = {
        **os.environ,
        "CHANNELKIT_BASE_URL": svc.base_url,
        "CHANNELKIT_API_KEY": key,
    }
    db = tmp_path / "wh.duckdb"
    script = (
        "import sys\n"
        "from channelkit.sync.cli import sync\n"
        "try:\n"
        "    sync()\n"
        "finally:\n"
        "    print('pandas imported' if 'pandas' in sys.modules else 'no pandas')\n"
    )
    for mode in ("full", "incremental"):
        command = [sys.executable, "-c", script, "--db", str(db), "--no-progress"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"sync completed ({mode})" in done.stdout
        assert done.stdout.rstrip().endswith("no pandas"), done.stdout
