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
nothing: it sees the new state when it connects again. Nothing else writes the warehouse
meanwhile (`deliver` keeps its record in a file of its own), so the rename carries nothing
over.

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
from channelkit.storage.connection import check_format, connect, locked_message, wait_unlocked


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
        try:
            wait_unlocked(path, lambda: connect(path, read_only=False)).close()
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise WarehouseError(f"{path}: cannot open warehouse: {exc}") from None
            raise WarehouseError(locked_message(path)) from None
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
    """Put `work` in `path`'s place."""
    if not work.exists():
        return
    try:
        os.replace(work, path)
    except OSError as exc:
        raise WarehouseError(
            f"cannot put {work} in place of {path}: {exc.strerror or exc}; the sync's rows are "
            f"in {work}, and the next sync puts them in place"
        ) from None
