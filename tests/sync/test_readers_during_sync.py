"""Readers are never locked out by a sync (issue 36.1): three reader processes query the
warehouse in a loop while a rate-limited full sync runs, one of them through a plain
DuckDB connection left open the whole time (a notebook's); every read succeeds, none
waits on a lock more than 2 s, and the sync completes with the same counts as alone.
`bench/sync_readers.py` runs the same for minutes, beside the code before."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from channelkit._constants import WAREHOUSE_LOCK_WAIT_SECONDS
from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.sync import run_sync
from fixtures.readers import start_readers, stop_readers

pytestmark = pytest.mark.slow


def test_three_readers_read_throughout_a_rate_limited_sync(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with LocalService(seed="demo", rate_window=1.0) as service:
        key = service.demo_keys["starter"]  # 60 requests a window: the sync waits often
        with Client(service.base_url, key) as client:
            first = run_sync(client, db, progress=False)
        assert first.completed, first.summary()
        readers = start_readers(db, stop, ("warehouse", "plain", "held"), env)
        time.sleep(2)  # they are reading before the sync starts
        with Client(service.base_url, key) as client:
            again = run_sync(client, db, progress=False, full=True)
        seen = stop_readers(readers, stop, timeout=120)
    assert again.completed, again.summary()
    assert again.rate_limit_waits > 0 and again.duration_seconds > 3  # waited on the limit
    assert {t: c.new + c.deleted for t, c in again.counts.items()} == {t: 0 for t in again.counts}
    for reader in seen:
        assert reader["failures"] == [] and reader["reads"] > 3, reader
        assert reader["longest_wait"] <= WAREHOUSE_LOCK_WAIT_SECONDS, reader
    assert not (tmp_path / "w.duckdb.sync").exists()  # switched in
