"""The sync writes a working copy; readers read the last committed warehouse meanwhile.

DuckDB lets one process write a file or several processes read it, never both at once. A
sync that held the warehouse for its whole run (minutes, most of them waiting for the rate
limit) would lock every reader out; so the sync never opens the warehouse to write while it
runs. It writes `warehouse.duckdb.sync`, a copy of the warehouse made when the run starts
(or the one a killed run left, which it continues: its checkpoints are in it), one batch per
transaction as before, and when the run ends (completed or not: what it committed is kept)
`switch` puts it in the warehouse's place with one rename. A reader opening the warehouse
sees the file before the run or the file after it, never a half-written one, and a reader
left open (a notebook's `duckdb.connect(..., read_only=True)`) keeps its file and blocks
nothing: it sees the new state when it connects again.

The rename happens while the old file is held writable for a moment (readers and
`deliver` that meet the lock try again, `WAREHOUSE_LOCK_WAIT_SECONDS`), so that what
`deliver` recorded in the old file meanwhile (its `delivery_ledger`) is carried over.

    work = working_copy(Path("warehouse.duckdb"))     # warehouse.duckdb.sync
    ... write through open_warehouse(work, read_only=False) ...
    switch(work, Path("warehouse.duckdb"))
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path

import duckdb

from channelkit._constants import WAREHOUSE_WORK_SUFFIX
from channelkit.errors import WarehouseError
from channelkit.storage.connection import check_format, connect, wait_unlocked

# What another writer may add to the warehouse while a sync runs (deliver's record of what
# it sent), merged into the working copy at the switch: key columns, then the rest.
_CARRIED = {"delivery_ledger": ("report", "period", "target")}


def work_path(path: Path) -> Path:
    return path.with_name(path.name + WAREHOUSE_WORK_SUFFIX)


def working_copy(path: Path) -> Path:
    """The file a sync into `path` writes: the one a killed run left (it continues it), else
    a fresh copy of `path` (none when `path` does not exist yet: the run creates it)."""
    work = work_path(path)
    if work.exists() or not path.exists():
        return work
    check_format(path)
    if path.with_name(path.name + ".wal").exists():
        # a writer killed before its checkpoint (an older channelkit): replay it first
        wait_unlocked(path, lambda: connect(path, read_only=False)).close()
    spare = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        shutil.copyfile(path, spare)
        with contextlib.suppress(FileExistsError):  # another sync made it first: use that
            os.link(spare, work)
    except OSError as exc:
        raise WarehouseError(f"cannot copy {path} to {work}: {exc.strerror or exc}") from None
    finally:
        spare.unlink(missing_ok=True)
    return work


def switch(work: Path, path: Path) -> None:
    """Put `work` in `path`'s place, carrying over what another writer added to `path`."""
    if not work.exists():
        return
    guard = None
    if path.exists():
        try:
            # held writable: deliver cannot record into the old file between the carrying
            # over and the rename (it waits); nothing is written to it, so it leaves no WAL
            guard = connect(path, read_only=False)
        except (duckdb.IOException, duckdb.ConnectionException):
            # a reader has it open (a notebook's connection, a session in this process): it
            # never blocks the sync, so carry over without the guard (see docs/warehouse.md)
            guard = None
        _carry_over(guard, path, work)
    try:
        os.replace(work, path)
    except OSError as exc:
        raise WarehouseError(
            f"cannot put {work} in place of {path}: {exc.strerror or exc}; the sync's rows are "
            f"in {work}, and the next sync puts them in place"
        ) from None
    finally:
        if guard is not None:
            guard.close()


def _carry_over(guard: duckdb.DuckDBPyConnection | None, path: Path, work: Path) -> None:
    con = guard or connect(":memory:", read_only=False)
    source = "main" if guard is not None else "old"
    try:
        if guard is None:
            wait_unlocked(path, lambda: con.execute(f"ATTACH '{_quoted(path)}' AS old (READ_ONLY)"))
        con.execute(f"ATTACH '{_quoted(work)}' AS fresh")
        for table, key in _CARRIED.items():
            match = " AND ".join(f"f.{c} = o.{c}" for c in key)
            with contextlib.suppress(duckdb.CatalogException):  # a file from before the table
                con.execute(
                    f"INSERT INTO fresh.{table} SELECT * FROM {source}.{table} o "
                    f"WHERE NOT EXISTS (SELECT 1 FROM fresh.{table} f WHERE {match})"
                )
        con.execute("DETACH fresh")
    finally:
        if guard is None:
            con.close()


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
