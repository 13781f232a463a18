"""The record of every run: `sync_runs` as `wh.runs()` returns it, equal to what the server
saw, and `channelkit status` reading it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import channelkit as ck
from channelkit.analysis.runs import columns, last_volume, read_sync_runs
from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import WarehouseError
from channelkit.service import LocalService, local
from channelkit.storage.connection import open_warehouse
from channelkit.sync import run_sync
from fixtures.sqlite_file import write_sqlite

DAY = 86_400.0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the HTTP requests the local service receives (counted in front of it)."""
    seen: list[str] = []
    real = local.create_app

    def counting(*args: Any, **kwargs: Any) -> Callable[..., Any]:
        app = real(*args, **kwargs)

        async def counter(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                seen.append(scope["path"])
            await app(scope, receive, send)

        return counter

    monkeypatch.setattr(local, "create_app", counting)
    return seen


def test_two_syncs_leave_two_runs_whose_requests_are_the_servers(
    counted: list[str], tmp_path: Path
) -> None:
    db = tmp_path / "wh.duckdb"
    with LocalService(admin=True, rate_window=1.0) as svc:
        key = svc.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=svc.base_url, api_key=key) as client:
            channel = client.channels.create(name="News").id
            for day in range(3):
                client.posts.create(channel_id=channel, title=f"Post {day}", body="b")
                svc.advance_clock(DAY)
            served = []
            for _ in range(2):
                before = len(counted)
                wh = ck.sync(client, db, progress=False)
                served.append(len(counted) - before)
            client.posts.create(channel_id=channel, title="One more", body="b")
    runs = wh.runs()
    assert list(runs.columns) == columns()
    assert len(runs) == 2
    assert list(runs["requests"]) == served
    assert list(runs["outcome"]) == ["completed", "completed"]
    assert list(runs["mode"]) == ["full", "incremental"]
    assert runs["posts_new"].tolist() == [3, 0]
    assert runs["posts_unchanged"].iloc[1] >= 1
    assert (runs["pages"] >= 4).all() and (runs["pages"] <= runs["requests"]).all()
    assert (runs["seconds"] > 0).all()
    assert runs["unknown_fields"].tolist() == [{}, {}]
    assert wh.runs(last=1)["run_id"].tolist() == runs["run_id"].tolist()[1:]

    result = CliRunner().invoke(main, ["status", "--db", str(db)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("started (UTC)")
    assert [line.split()[2:4] for line in lines[1:3]] == [
        ["completed", "full"],
        ["completed", "incremental"],
    ]
    assert "last completed sync:" in result.output and "posts 3" in result.output
    as_json = json.loads(CliRunner().invoke(main, ["status", "--db", str(db), "--json"]).output)
    assert [run["requests"] for run in as_json["runs"]] == served


def _runs(modes_and_rows: list[tuple[str, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"outcome": "completed", "mode": m, "rows_read": n} for m, n in modes_and_rows]
    )


@pytest.mark.parametrize(
    ("history", "last", "usual", "unusual"),
    [
        # median of 100, 120, 90 is 100: usual within [50, 200]
        ([100, 120, 90], 49, 100, True),
        ([100, 120, 90], 50, 100, False),
        ([100, 120, 90], 200, 100, False),
        ([100, 120, 90], 201, 100, True),
        ([100, 120], 5, None, False),  # fewer than 3 runs before it: no usual yet
    ],
)
def test_the_last_runs_volume_is_compared_with_the_median_of_the_runs_of_its_mode(
    history: list[int], last: int, usual: float | None, unusual: bool
) -> None:
    # A full run in between counts for full runs only.
    rows = [("incremental", n) for n in history] + [("full", 10_000), ("incremental", last)]
    volume = last_volume(_runs(rows))
    assert volume is not None
    assert (volume.usual, volume.unusual, volume.rows_read) == (usual, unusual, last)


def test_status_says_when_the_last_volume_is_unusual(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    writable = open_warehouse(db, read_only=False)
    try:
        for i, rows in enumerate([100, 120, 90, 10]):
            counts = {"tables": {"posts": {"new": 0, "updated": 0, "unchanged": rows}}}
            writable.execute(
                "INSERT INTO sync_runs (run_id, started_at, finished_at, status, mode, "
                "base_url, counts, requests) VALUES (?, TIMESTAMPTZ '2026-11-01 00:00:00+00' "
                "+ to_days(?), TIMESTAMPTZ '2026-11-01 00:01:00+00' + to_days(?), "
                "'completed', 'incremental', 'http://h/v1', ?, 3)",
                [f"run{i}", i, i, json.dumps(counts)],
            )
    finally:
        writable.close()
    result = CliRunner().invoke(main, ["status", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "warning: the last incremental run read 10 rows; the usual" in result.output
    assert "is 100 (the median of the 3 before it)" in result.output


def test_status_says_an_error_only_under_the_run_that_had_one(tmp_path: Path) -> None:
    """A failed run beside completed ones: the completed runs' error is None (pandas made
    it NaN, shown as `error: nan` under each, issue 45.8), the failed one's is said."""
    db = tmp_path / "wh.duckdb"
    with LocalService(admin=True) as svc:
        key = svc.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=svc.base_url, api_key=key) as client:
            client.posts.create(
                channel_id=client.channels.create(name="News").id, title="t", body="b"
            )
            for _ in range(2):
                assert run_sync(client, db, progress=False).completed
        with Client(base_url=svc.base_url, api_key="ck_not_a_key") as client:
            assert not run_sync(client, db, progress=False).completed
    con = open_warehouse(db, read_only=True)
    try:
        errors = read_sync_runs(con)["error"].tolist()
    finally:
        con.close()
    assert errors[:2] == [None, None] and "401" in errors[2]
    shown = CliRunner().invoke(main, ["status", "--db", str(db)]).output
    assert "nan" not in shown and shown.count("  error: ") == 1, shown


def test_a_run_refused_at_its_file_asks_the_service_nothing(tmp_path: Path) -> None:
    # A file refused as the working copy is made (a SQLite database) ends the run in one
    # error before the key's view is listed.
    path = write_sqlite(tmp_path / "service.sqlite")
    with LocalService(admin=True) as svc:
        key = svc.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=svc.base_url, api_key=key) as client:
            with pytest.raises(WarehouseError, match="is a SQLite database"):
                run_sync(client, path, progress=False)
            assert client.stats.requests == 0
