"""Export the warehouse as Parquet datasets, one plain folder per table.

`DIR/<table>` is an ordinary directory of Parquet files: `find`, `Path.rglob`, zip,
OneDrive/SharePoint and Windows read it as it is (no symbolic link anywhere). Each export
writes every table into a hidden staging folder `DIR/.staging-<id>/` and then puts each
new folder in place of the old one:

- on Linux with one atomic exchange of the two folders (`renameat2(RENAME_EXCHANGE)`), so
  a reader opening `DIR/posts` sees the old dataset or the new one, never a half-written
  one and never none;
- elsewhere with two renames (the old folder aside into the staging folder, the new one
  in place); a process killed between the two leaves the old folder aside, and the next
  export (or `recover_parquet`) puts it back before anything else.

The staging folder is removed at the end, or by the next export after a kill. The daily
analytics tables are hive-partitioned by month (`month=2026-11/`), which lets engines
skip months a query does not touch; the others are a single file each. All tables are
read in one transaction: the datasets are one consistent snapshot.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
import uuid
from pathlib import Path

import duckdb

from channelkit._resources import CHILD_TABLES, RESOURCES
from channelkit.errors import WarehouseError
from channelkit.storage.connection import open_warehouse
from channelkit.storage.schema import copied_columns

_STAGING = ".staging-"
_ASIDE = "replaced-"  # an old folder moved aside, inside a staging folder
_LEGACY_VERSIONS = ".versions"  # where earlier channelkit versions kept the datasets
_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100
PARTITIONED_BY_MONTH = frozenset(r.table for r in RESOURCES if r.by_month)
# The tables exported, each sorted for deterministic files and useful row-group statistics:
# the synced resources as declared, and what the sync derives and records.
_ORDER = {
    **{r.table: r.order for r in RESOURCES},
    **{child.table: child.order for child in CHILD_TABLES},
    "sync_runs": "started_at, run_id",
}
PARQUET_TABLES = tuple(_ORDER)


def export_parquet(
    con_or_path: duckdb.DuckDBPyConnection | str | Path, directory: str | Path
) -> dict[str, Path]:
    """Write every table under `directory` (`directory/<table>/...`); return their paths.

    export_parquet("warehouse.duckdb", "parquet/")
    duckdb.sql("SELECT * FROM read_parquet('parquet/post_daily/**/*.parquet')")
    pandas.read_parquet("parquet/posts")
    """
    if isinstance(con_or_path, duckdb.DuckDBPyConnection):
        return _export(con_or_path, _prepare(Path(directory)))
    con = open_warehouse(con_or_path, read_only=True)
    try:
        return _export(con, _prepare(Path(directory)))
    finally:
        con.close()


def _prepare(directory: Path) -> Path:
    if directory.exists() and not directory.is_dir():
        raise WarehouseError(f"{directory}: exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WarehouseError(f"{directory}: cannot create the Parquet directory: {exc}") from None
    return directory


def _export(con: duckdb.DuckDBPyConnection, directory: Path) -> dict[str, Path]:
    recover_parquet(directory)
    staging = directory / f"{_STAGING}{uuid.uuid4().hex}"
    try:
        staging.mkdir()
        con.execute("BEGIN TRANSACTION")
        try:
            written = {table: _write(con, table, staging) for table in PARQUET_TABLES}
        finally:
            con.execute("COMMIT")
        swapped = {table: _swap(new, directory / table) for table, new in written.items()}
    except OSError as exc:
        raise WarehouseError(
            f"{directory}: exporting Parquet failed: {exc.strerror or exc}; the previous "
            "datasets are still in place"
        ) from None
    finally:
        _remove(staging)
    _remove(directory / _LEGACY_VERSIONS)
    return swapped


def recover_parquet(directory: str | Path) -> None:
    """Finish what an export killed mid-way left: a table folder moved aside between the
    two renames goes back in place; every staging folder is removed."""
    directory = Path(directory)
    if not directory.is_dir():
        return
    for staging in sorted(directory.glob(f"{_STAGING}*")):
        for aside in sorted(staging.glob(f"{_ASIDE}*")):
            final = directory / aside.name.removeprefix(_ASIDE)
            if final.name in PARQUET_TABLES and not final.exists() and not final.is_symlink():
                os.replace(aside, final)
        _remove(staging)


def _write(con: duckdb.DuckDBPyConnection, table: str, staging: Path) -> Path:
    tmp = staging / table
    try:
        rows = int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
        if table in PARTITIONED_BY_MONTH and rows:
            con.execute(
                f"COPY (SELECT *, strftime(date, '%Y-%m') AS month FROM {table} "
                f"ORDER BY {_ORDER[table]}) TO '{_sql_path(tmp)}' "
                "(FORMAT parquet, PARTITION_BY (month), FILENAME_PATTERN 'data_{i}')"
            )
        else:
            tmp.mkdir()
            con.execute(
                f"COPY (SELECT {copied_columns(table)} FROM {table} ORDER BY {_ORDER[table]}) TO "
                f"'{_sql_path(tmp / 'data.parquet')}' (FORMAT parquet)"
            )
    except (duckdb.Error, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise WarehouseError(
            f"writing Parquet for table {table} into {tmp} failed: {exc}"
        ) from None
    return tmp


def _swap(new: Path, final: Path) -> Path:
    """Put folder `new` in place of `final` (absent, a folder, or an earlier version's
    symbolic link); what it replaced is left in `new`'s staging folder."""
    if not final.exists() and not final.is_symlink():
        os.replace(new, final)
    elif not _exchange(new, final):
        aside = new.with_name(f"{_ASIDE}{final.name}")
        os.replace(final, aside)
        # A kill here leaves `final` missing: recover_parquet puts `aside` back.
        os.replace(new, final)
    return final


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directory entries atomically (Linux); False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    # No such call (old kernel), or a file system that cannot exchange: rename instead.
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
