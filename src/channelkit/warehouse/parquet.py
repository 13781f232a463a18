"""Export the warehouse as Parquet datasets, one directory per table.

Each dataset is written to a hidden temporary directory beside its final place and then
renamed over it, so a reader sees the old dataset or the new one, never a half-written
one. The daily analytics tables are hive-partitioned by month (`month=2026-11/`), which
lets engines skip months a query does not touch; the others are a single file each.
All tables are read in one transaction: the datasets are one consistent snapshot.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import duckdb

from channelkit._constants import PARQUET_TABLES
from channelkit.warehouse.connection import WarehouseError, open_warehouse

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
    staged: dict[str, Path] = {}
    try:
        con.execute("BEGIN TRANSACTION")
        try:
            for table in PARQUET_TABLES:
                staged[table] = _write(con, table, directory)
        finally:
            con.execute("COMMIT")
    except BaseException:
        for tmp in staged.values():
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {table: _swap(tmp, directory / table) for table, tmp in staged.items()}


def _write(con: duckdb.DuckDBPyConnection, table: str, directory: Path) -> Path:
    tmp = directory / f".{table}.tmp-{uuid.uuid4().hex}"
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


def _swap(tmp: Path, final: Path) -> Path:
    old: Path | None = None
    if final.exists():
        old = final.with_name(f".{final.name}.old-{uuid.uuid4().hex}")
        final.rename(old)
    tmp.rename(final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
