"""Export the warehouse as Parquet datasets, one directory per table.

`DIR/<table>` is a symbolic link to a complete version of the dataset under
`DIR/.versions/`. Each export writes new versions there and then swaps every link with
an atomic rename, so a reader opening `DIR/posts` sees the old dataset or the new one,
never a half-written one and never none. Versions no link points to (the replaced ones,
or those of an export killed half-way) are removed by the next export.
The daily analytics tables are hive-partitioned by month (`month=2026-11/`), which lets
engines skip months a query does not touch; the others are a single file each.
All tables are read in one transaction: the datasets are one consistent snapshot.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import duckdb

from channelkit._constants import PARQUET_TABLES
from channelkit.warehouse.connection import WarehouseError, open_warehouse

_VERSIONS = ".versions"
_STAGED_LINK = ".link-"
PARTITIONED_BY_MONTH = frozenset({"post_daily", "channel_daily"})
# Sorted for deterministic files and useful row-group statistics.
_ORDER = {
    "channels": "id",
    "posts": "published_at, id",
    "post_tags": "post_id, tag",
    "post_daily": "date, post_id",
    "channel_daily": "date, channel_id",
    "sync_runs": "started_at, run_id",
}


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
    versions = directory / _VERSIONS
    _clean(directory)
    staged: dict[str, Path] = {}
    try:
        versions.mkdir(exist_ok=True)
        con.execute("BEGIN TRANSACTION")
        try:
            for table in PARQUET_TABLES:
                staged[table] = _write(con, table, versions)
        finally:
            con.execute("COMMIT")
        swapped = {table: _swap(tmp, directory / table) for table, tmp in staged.items()}
    except OSError as exc:
        raise WarehouseError(
            f"{directory}: exporting Parquet failed: {exc.strerror or exc}; the previous "
            "datasets are still in place"
        ) from None
    finally:
        _clean(directory)
    return swapped


def _clean(directory: Path) -> None:
    """Remove every version no link points to (replaced, or left by a killed export)."""
    versions = directory / _VERSIONS
    if not versions.is_dir():
        return
    live = {
        os.readlink(link) for table in PARQUET_TABLES if (link := directory / table).is_symlink()
    }
    for entry in versions.iterdir():
        if f"{_VERSIONS}/{entry.name}" not in live:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
    for entry in directory.iterdir():  # links staged by a killed swap
        if entry.name.startswith(_STAGED_LINK) and entry.is_symlink():
            entry.unlink(missing_ok=True)


def _write(con: duckdb.DuckDBPyConnection, table: str, directory: Path) -> Path:
    tmp = directory / f"{table}-{uuid.uuid4().hex}"
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
                f"COPY (SELECT * FROM {table} ORDER BY {_ORDER[table]}) TO "
                f"'{_sql_path(tmp / 'data.parquet')}' (FORMAT parquet)"
            )
    except (duckdb.Error, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise WarehouseError(
            f"writing Parquet for table {table} into {tmp} failed: {exc}"
        ) from None
    return tmp


def _swap(version: Path, final: Path) -> Path:
    link = final.with_name(f"{_STAGED_LINK}{final.name}-{uuid.uuid4().hex}")
    link.symlink_to(f"{_VERSIONS}/{version.name}", target_is_directory=True)
    if final.is_dir() and not final.is_symlink():
        # A dataset exported by an earlier channelkit (a plain directory): moved aside
        # once; from then on every swap is atomic.
        final.rename(version.with_name(f"{final.name}-legacy-{uuid.uuid4().hex}"))
    os.replace(link, final)
    return final


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
