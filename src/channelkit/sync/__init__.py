"""Sync the service into a local DuckDB warehouse (and Parquet): `ck.sync`, `run_sync`.

import channelkit as ck

with ck.Client() as client:
    wh = ck.sync(client, "warehouse.duckdb")   # a ck.Warehouse
print(wh.sync_report.summary())
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from channelkit._constants import WAREHOUSE_PATH
from channelkit.sync.report import SyncReport
from channelkit.sync.runner import SyncError, run_sync

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.warehouse import Warehouse

__all__ = ["SyncError", "SyncReport", "run_sync", "sync"]


def sync(client: Client, path: str | Path = WAREHOUSE_PATH, **options: Any) -> Warehouse:
    """Sync into the warehouse at `path` and open it for analysis.

    Options are those of `run_sync` (full, since, only, lookback_days, parquet, progress).
    Raises `SyncError` (carrying `.report`) when the sync did not complete; what it wrote
    is kept, and calling `sync` again continues where it stopped.
    """
    report = run_sync(client, path, **options)
    if not report.completed:
        raise SyncError(f"sync did not complete: {report.error}", report)
    from channelkit.warehouse import Warehouse

    return Warehouse(path, sync_report=report)


class _CallableModule(types.ModuleType):
    # Importing `channelkit.sync` makes Python set the package attribute `channelkit.sync`
    # to this module, shadowing the `ck.sync(...)` function; a callable module keeps
    # `ck.sync(client, path)` working whichever was imported first.
    def __call__(
        self, client: Client, path: str | Path = WAREHOUSE_PATH, **options: Any
    ) -> Warehouse:
        return sync(client, path, **options)


sys.modules[__name__].__class__ = _CallableModule
