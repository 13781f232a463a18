"""The functions of `import channelkit as ck` that join several parts: `ck.sync`.

They sit above the parts they join (here the sync and the read API), so that neither part
imports the other.

    import channelkit as ck

    with ck.Client() as client:
        wh = ck.sync(client, "warehouse.duckdb")   # a ck.Warehouse
    print(wh.sync_report.summary())
"""

from __future__ import annotations

import sys
from collections.abc import Collection
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit._constants import (
    SYNC_BATCH_ROWS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
    WAREHOUSE_PATH,
)
from channelkit._resources import GROUPS
from channelkit.errors import SyncError
from channelkit.sync.options import SyncOptions
from channelkit.sync.progress import one_line, shown
from channelkit.sync.runner import run_sync

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.warehouse import Warehouse

__all__ = ["sync"]


def sync(
    client: Client,
    path: str | Path = WAREHOUSE_PATH,
    *,
    full: bool = False,
    since: str | date | datetime | None = None,
    only: str | Collection[str] | None = None,
    lookback_days: int = SYNC_LOOKBACK_DAYS,
    parquet: str | Path | None = None,
    lake: str | Path | None = None,
    progress: bool = True,
    page_limit: int = SYNC_PAGE_LIMIT,
    batch_rows: int = SYNC_BATCH_ROWS,
    convergence_runs: int = SYNC_CONVERGENCE_RUNS,
    new_view: bool = False,
) -> Warehouse:
    """Sync the service into the DuckDB warehouse at `path` and open it for analysis.

        with ck.Client() as client:
            wh = ck.sync(client, "warehouse.duckdb", since="2026-01-01", parquet="parquet/")

    The first run, and any run with `full`, reads everything; later runs are incremental.
    `since` keeps posts and analytics from that date on; `only` syncs some of the groups of
    the synced resources (`_resources.GROUPS`: {groups}; a list, or comma-separated text);
    `lookback_days` re-reads recent days whose numbers still move; `parquet` also writes
    every table as Parquet into that directory and `lake` keeps a Delta Lake copy (a
    directory or an `s3://...` URL); `progress` shows progress bars on a terminal;
    `page_limit` is the page size asked for and `batch_rows` the rows per committed batch;
    every incremental run re-reads a slice of older history so that within
    `convergence_runs` runs the whole history is read again. A key that sees fewer
    channels than the one that filled the warehouse is refused before anything is written
    (their posts would be marked deleted); `new_view` accepts it.

    Returns a `ck.Warehouse` whose `sync_report` says what was done. Raises
    `InvalidParameterError` for a bad argument and `SyncError` (carrying `.report`) when
    the sync did not complete: what it wrote is kept, and calling `sync` again continues
    where it stopped.
    """
    options = SyncOptions.check(
        full=full,
        since=since,
        only=only,
        lookback_days=lookback_days,
        parquet=parquet,
        lake=lake,
        page_limit=page_limit,
        batch_rows=batch_rows,
        convergence_runs=convergence_runs,
        new_view=new_view,
    )
    report = run_sync(client, path, options, progress=progress)
    if shown(progress) is not None:
        print(one_line(report), file=sys.stderr)
    if not report.completed:
        raise SyncError(f"sync did not complete: {report.error}", report)
    from channelkit.warehouse import Warehouse

    return Warehouse(path, sync_report=report)


def _quoted(names: Collection[str]) -> str:
    """'"a", "b" and "c"': the names as a sentence lists them."""
    quoted = [f'"{name}"' for name in names]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1] if len(quoted) > 1 else "".join(quoted)


# The groups `only` takes, from their declarations (`_resources.py`), not a copy of them.
if sync.__doc__ is not None:  # None under python -OO
    sync.__doc__ = sync.__doc__.replace("{groups}", _quoted(GROUPS))
