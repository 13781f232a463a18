"""Sync the service into a local DuckDB warehouse (and Parquet): `run_sync`.

    from channelkit.sync import run_sync

    with ck.Client() as client:
        report = run_sync(client, "warehouse.duckdb")
    print(report.summary())

`ck.sync` (sync, then open the `ck.Warehouse`) is `channelkit._facade.sync`: it sits above
this package and the read API, so that this package never imports the read API.
"""

from __future__ import annotations

from channelkit.errors import SyncError
from channelkit.sync.report import SyncReport
from channelkit.sync.runner import run_sync

__all__ = ["SyncError", "SyncReport", "run_sync"]
