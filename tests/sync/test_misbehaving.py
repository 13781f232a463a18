"""`channelkit sync` against servers that misbehave: each run ends in correct data or in a
non-zero exit naming the problem, in bounded time, with earlier committed data intact.

One small workspace lives in one SQLite file, served twice: by a well-behaved service (the
truth: a clean sync of it is taken once per module) and, per test, by one that misbehaves in
one way (`faults=`; the kinds are described in docs/api.md). A run that recovers must leave
a fresh warehouse equal to the clean one (no row lost, none doubled); a run that cannot
recover must exit 1 saying why, and leave a copy of the clean warehouse exactly as it was
although it ran with `--full` (nothing marked deleted because a walk stopped early).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.service import LocalService
from sync.test_sync_service import build_workspace

# A hang is a failure: each case takes a few seconds, a misbehaviour left unchecked minutes.
pytestmark = pytest.mark.timeout(40)

TABLES = ("channels", "posts", "post_tags", "post_daily", "channel_daily")
DAILY = ("post_daily", "channel_daily")


@dataclass(frozen=True)
class Truth:
    db: str  # the service's SQLite file
    key: str  # an enterprise key: the rate limit never interferes unless a test wants it
    warehouse: Path  # a clean sync of the workspace
    today: date  # the service's day at the clean sync: earlier daily rows are final
    rows: dict[str, list[tuple[Any, ...]]]
    requests: int  # of the clean sync


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Truth]:
    folder = tmp_path_factory.mktemp("misbehaving")
    db = str(folder / "service.sqlite")
    with LocalService(db=db, rate_window=1.0) as service:
        workspace = build_workspace(service, batches=2, per_batch=12)
        warehouse = folder / "clean.duckdb"
        result = sync_cli(service, workspace.key, warehouse)
        assert result.exit_code == 0, result.output
        today = service.now().date()
        requests = counters(result.output)["requests"]
        yield Truth(db, workspace.key, warehouse, today, snapshot(warehouse, today), requests)


@pytest.fixture
def serve(
    truth: Truth, service_factory: Callable[..., LocalService]
) -> Callable[[str], LocalService]:
    """`serve("empty_page=0.3")`: the workspace served by a service misbehaving that way."""

    def factory(faults: str) -> LocalService:
        return service_factory(db=truth.db, rate_window=1.0, faults=faults, fault_seed=5)

    return factory


def sync_cli(
    service: LocalService,
    key: str,
    db: Path,
    *args: str,
    env: dict[str, str] | None = None,
    page_limit: int = 10,  # the workspace's 27 posts and ~150 daily rows take several pages
) -> Result:
    environment = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    command = ["sync", "--db", str(db), "--page-limit", str(page_limit), "--no-progress", *args]
    return CliRunner().invoke(main, command, env={**environment, **(env or {})})


def counters(output: str) -> dict[str, int]:
    """The summary's request counters: requests, retries, 429 responses."""
    found = re.search(r"requests (\d+) \(retries (\d+)\), 429 responses (\d+)", output)
    assert found is not None, output
    return dict(zip(("requests", "retries", "429"), map(int, found.groups()), strict=True))


def snapshot(path: Path, today: date) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (bookkeeping columns left out), sorted, duplicates kept; daily rows
    only before `today`, since today's numbers still move."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = {}
        for table in TABLES:
            columns = [c for c in con.table(table).columns if c != "synced_at"]
            where = "WHERE date < $today" if table in DAILY else ""
            query = f"SELECT {', '.join(columns)} FROM {table} {where} ORDER BY ALL"
            params = {"today": today} if table in DAILY else {}
            rows[table] = con.execute(query, params).fetchall()
        return rows
    finally:
        con.close()


def assert_recovers(
    truth: Truth, service: LocalService, tmp_path: Path, key: str = "", page_limit: int = 10
) -> dict[str, int]:
    """A first sync through `service` completes and equals the clean one; its counters."""
    db = tmp_path / "through.duckdb"
    result = sync_cli(service, key or truth.key, db, page_limit=page_limit)
    assert result.exit_code == 0, result.output
    assert "sync completed" in result.output
    got = snapshot(db, truth.today)
    for table in TABLES:
        assert got[table] == truth.rows[table], table
    assert all(truth.rows[table] for table in TABLES)  # nothing compared vacuously
    return counters(result.output)


def assert_fails_keeping_the_warehouse(
    truth: Truth, service: LocalService, tmp_path: Path, env: dict[str, str] | None = None
) -> str:
    """A `--full` sync through `service` into a copy of the clean warehouse exits 1 and
    leaves every row as it was; its output."""
    db = tmp_path / "earlier.duckdb"
    shutil.copy(truth.warehouse, db)
    result = sync_cli(service, truth.key, db, "--full", env=env)
    assert result.exit_code == 1, result.output
    assert "NOT completed" in result.output and "Traceback" not in result.output
    assert snapshot(db, truth.today) == truth.rows
    assert truth.key not in result.output
    return result.output


# --- pagination ---------------------------------------------------------------------------


def test_a_repeated_cursor_stops_the_run_naming_it(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    output = assert_fails_keeping_the_warehouse(truth, serve("repeat_cursor=1.0"), tmp_path)
    assert "the server returned cursor" in output and "a second time" in output
    assert "stopping instead of looping" in output


def test_a_cursor_on_the_last_page_is_not_followed(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    # Followed, each of those cursors would serve its last page a second time.
    assert assert_recovers(truth, serve("last_cursor=1.0"), tmp_path)["requests"] == (
        truth.requests
    )


def test_empty_pages_that_promise_more_are_followed(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    assert assert_recovers(truth, serve("empty_page=0.4"), tmp_path)["requests"] > truth.requests


def test_empty_pages_that_never_end_stop_the_run_naming_them(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    output = assert_fails_keeping_the_warehouse(truth, serve("empty_page=1.0"), tmp_path)
    assert "empty pages in a row, each saying more was coming" in output


# --- rate limits --------------------------------------------------------------------------

REFUSALS = ("429_zero", "429_date", "429_bare")


@pytest.mark.parametrize("kind", REFUSALS)
def test_odd_429s_now_and_then_are_waited_out(
    kind: str, truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    assert assert_recovers(truth, serve(f"{kind}=0.2"), tmp_path)["429"] > 0


@pytest.mark.parametrize("kind", REFUSALS)
def test_429s_for_ever_stop_the_run_once_the_wait_cap_is_spent(
    kind: str, truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    # A Retry-After of 0 must not turn into a tight loop, nor a missing one into a hang.
    env = {"CHANNELKIT_MAX_RATE_LIMIT_WAIT_SECONDS": "1.5"}
    output = assert_fails_keeping_the_warehouse(truth, serve(f"{kind}=1.0"), tmp_path, env)
    assert "429" in output and "the cap max_rate_limit_wait is 1.5 s" in output


@pytest.mark.parametrize("kind", ["reset_ahead", "clock_ahead"])
def test_a_reset_from_a_clock_ten_minutes_ahead_costs_no_ten_minutes(
    kind: str, truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    # A Starter key (60 requests a window) and pages of 1: the walk spends several 1-second
    # windows. Believing a reset 10 minutes away would wait a minute or more at each.
    service = serve(f"{kind}=1.0")
    starter = service.create_key(user="admin", team="comms", plan="starter")
    counts = assert_recovers(truth, service, tmp_path, key=starter, page_limit=1)
    assert counts["requests"] > 2 * 60  # the budget was spent more than once
    if kind == "clock_ahead":  # the Date headers tell the clock: paced right, never refused
        assert counts["429"] == 0
    else:  # the reset is not believed: each spent window costs one 429, then Retry-After
        assert 0 < counts["429"] <= counts["requests"] // 60 + 1


# --- bodies -------------------------------------------------------------------------------


def test_an_html_page_now_and_then_is_retried(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    assert assert_recovers(truth, serve("html=0.1"), tmp_path)["retries"] > 0


def test_html_for_ever_stops_the_run_naming_it(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    output = assert_fails_keeping_the_warehouse(truth, serve("html=1.0"), tmp_path)
    assert "200 response is not JSON (text/html" in output
    assert "Down for maintenance" in output


def test_every_recoverable_misbehaviour_at_once(
    truth: Truth, serve: Callable[[str], LocalService], tmp_path: Path
) -> None:
    faults = "last_cursor=0.1,empty_page=0.1,429_zero=0.05,429_date=0.05,429_bare=0.05,html=0.05"
    assert_recovers(truth, serve(faults), tmp_path)
