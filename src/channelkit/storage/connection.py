"""Opening a warehouse file: schema checks, migrations and clear lock errors.

DuckDB lets one process write a file, or several processes read it, never both. The sync
never holds the warehouse while it runs (it writes a working copy, `working_copy`), and
`deliver` only reads it (its record is a file of its own); a connection that meets the file
locked tries again for up to `WAREHOUSE_LOCK_WAIT_SECONDS` before it says who holds it
(`holders`).

Every connection refuses to install or load DuckDB extensions on its own: opening a file
of another format (a SQLite database, say) would otherwise download and run an extension.
Such a file is recognised by its first bytes and refused before DuckDB sees it.

DuckDB's Python client keeps one database instance per path and process
(`FetchOrCreateInstance` in duckdb/duckdb-python `src/duckdb_py/pyconnection.cpp` takes every
file path from its instance cache; the C API's docs, "Startup & Shutdown", call the cache what
a program needs that "(re)opens multiple databases to the same file within the same
process"): while any connection to the warehouse is open in a process, a new
`duckdb.connect(path)` there joins the file that connection opened, even after a sync has
renamed a new warehouse into its place. A reader opened then gets an instance of its own
(an unnamed `:memory:` database, which the Python DB API docs say is always "a new and
separate database instance", with the file ATTACHed read-only), so it reads the file now at
the path. Only then: a second instance of a file the process already holds would, when it
closes, drop the process's POSIX lock on it (DuckDB locks with fcntl), which would let
another process write under the first reader.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

import duckdb

from channelkit._constants import WAREHOUSE_LOCK_RETRY_SECONDS, WAREHOUSE_LOCK_WAIT_SECONDS
from channelkit.errors import WarehouseError
from channelkit.storage.holders import holder
from channelkit.storage.reach import refresh_reach
from channelkit.storage.schema import (
    CONTRACT_MARK,
    MIGRATIONS,
    REACH_VERSION,
    READABLE_FROM,
    SCHEMA_APP,
    SCHEMA_VERSION,
    TOTALS_VERSION,
    contract_steps,
    missing_columns,
)
from channelkit.storage.totals import refresh_totals

# No extension is ever fetched or loaded behind our back (a foreign file, a function name).
_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
_DUCKDB_MAGIC = b"DUCK"  # bytes 8..12 of every DuckDB database file
_FOREIGN = {b"SQLite format 3\x00": "a SQLite database", b"PAR1": "a Parquet file"}


def connect(
    path: str | Path, *, read_only: bool, settings: Mapping[str, str | int] | None = None
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that never installs or auto-loads extensions; `settings`
    (DuckDB's global options, e.g. `threads`) apply from the start."""
    return duckdb.connect(str(path), read_only=read_only, config={**_CONFIG, **(settings or {})})


_Opened = TypeVar("_Opened")


def wait_unlocked(path: Path, opening: Callable[[], _Opened]) -> _Opened:
    """`opening()`, tried again while `path` is locked by another process, for up to
    `WAREHOUSE_LOCK_WAIT_SECONDS`; the last lock error is raised after that."""
    deadline = time.monotonic() + WAREHOUSE_LOCK_WAIT_SECONDS
    while True:
        try:
            return opening()
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                raise
        time.sleep(WAREHOUSE_LOCK_RETRY_SECONDS)


def quoted(path: Path) -> str:
    """`path` as the body of a SQL string literal."""
    return str(path).replace("'", "''")


def replaced_in_process(path: Path) -> bool:
    """Whether this process still holds a file that was at `path` before another replaced
    it (a connection opened before a sync switched a new warehouse in)."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return True  # cannot tell (not Linux): an instance of its own is never stale
    # Linux shows an open file that was renamed over or removed as "<its path> (deleted)"
    # (stackoverflow.com/questions/24039632, "Broken symlinks and a mysterious (deleted)";
    # tests/test_warehouse.py's stale-reader tests see it happen).
    gone = f"{os.path.realpath(path)} (deleted)"
    for fd in os.listdir(fds):
        with contextlib.suppress(OSError):  # closed meanwhile
            if os.readlink(fds / fd) == gone:
                return True
    return False


def _connect_own_instance(
    path: Path, settings: Mapping[str, str | int] | None
) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the file now at `path`, in a DuckDB instance of its own
    (named as `duckdb.connect` names it: the file's stem)."""
    con = connect(":memory:", read_only=False, settings=settings)
    name = path.stem if path.stem not in ("memory", "system", "temp") else "warehouse"
    alias = '"' + name.replace('"', '""') + '"'
    try:
        con.execute(f"ATTACH '{quoted(path)}' AS {alias} (READ_ONLY)")
        con.execute(f"USE {alias}")
    except BaseException:
        con.close()
        raise
    return con


def _connect_beside_others(
    path: Path, *, read_only: bool, settings: Mapping[str, str | int] | None
) -> duckdb.DuckDBPyConnection:
    """`connect`, or, for a read-only file already opened read-only in this process with
    DuckDB's default configuration (a user's `duckdb.connect(path, read_only=True)`), a
    connection sharing that database; a read-only connection of its own instance when this
    process holds an older file of that path (see the module's docstring)."""
    if read_only and replaced_in_process(path):
        return _connect_own_instance(path, settings)
    try:
        return connect(path, read_only=read_only, settings=settings)
    except duckdb.ConnectionException:
        # DuckDB shares one database per file and process and refuses a connection whose
        # configuration differs. The file's format was checked above, so the default
        # (the user's own) extension settings are safe to share; changing them would
        # change the user's connection too.
        if not read_only or settings:
            raise
        return duckdb.connect(str(path), read_only=True)


def locked_message(path: Path) -> str:
    """The file is locked by another process: who, and what to do about it."""
    return (
        f"{path} is locked by {holder(path)} after {WAREHOUSE_LOCK_WAIT_SECONDS:g} s of "
        "waiting; try again when it has finished (a reader keeps it until its connection "
        "is closed)"
    )


def _already_open(path: Path, *, read_only: bool) -> str:
    if read_only:
        return (
            f"{path} is open in this process by another DuckDB connection that is writable "
            "or has its own config; close it (`con.close()`), or open it as "
            f"`duckdb.connect({str(path)!r}, read_only=True)` to read beside channelkit"
        )
    return (
        f"{path} is open read-only in this process (a `with wh.session():` block or a "
        "`duckdb.connect(..., read_only=True)`); close that connection first"
    )


def check_format(path: Path) -> None:
    """Refuse a file that is not a DuckDB database (a SQLite file, Parquet) by its bytes."""
    try:
        with path.open("rb") as file:
            head = file.read(16)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise WarehouseError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if not head or head[8:12] == _DUCKDB_MAGIC:
        return
    kind = next((k for magic, k in _FOREIGN.items() if head.startswith(magic)), None)
    what = kind or "not a DuckDB database"
    raise WarehouseError(
        f"{path} is {what}, not a channelkit warehouse; pass the DuckDB file `channelkit "
        "sync` writes (e.g. --db warehouse.duckdb), or a new path to create one"
    )


def open_warehouse(
    path: str | Path, *, read_only: bool, settings: Mapping[str, str | int] | None = None
) -> duckdb.DuckDBPyConnection:
    """Open `path`, checking it is a channelkit warehouse of a schema version we know.

    Writable connections create the file and apply pending migrations; read-only
    connections refuse a file that is missing or older than READABLE_FROM. `settings` are
    DuckDB's global options (`threads`, `memory_limit`), set as the file opens.
    """
    path = Path(path)
    if read_only and not path.exists():
        raise WarehouseError(f"{path}: no such warehouse; run `channelkit sync --db {path}` first")
    check_format(path)
    try:
        con = wait_unlocked(
            path, lambda: _connect_beside_others(path, read_only=read_only, settings=settings)
        )
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise WarehouseError(locked_message(path)) from None
        raise WarehouseError(f"{path}: cannot open warehouse: {storage_problem(exc)}") from None
    except (duckdb.ConnectionException, duckdb.ResourceInUseException):
        # the latter: DuckDB refuses a file that another instance of this process writes
        raise WarehouseError(_already_open(path, read_only=read_only)) from None
    except duckdb.Error as exc:
        raise WarehouseError(f"{path}: cannot open warehouse: {storage_problem(exc)}") from None
    try:
        # DuckDB draws a progress bar on stdout for slow queries: not ours to print.
        con.execute("SET enable_progress_bar = false")
        version, contract = _schema_version(con, path)
        if version > SCHEMA_VERSION:
            raise WarehouseError(
                f"{path} has warehouse schema version {version}, newer than this channelkit "
                f"understands ({SCHEMA_VERSION}); upgrade channelkit"
            )
        if version < READABLE_FROM and read_only:
            raise WarehouseError(
                f"{path} has schema version {version}; run `channelkit sync` to migrate "
                f"it to version {SCHEMA_VERSION}"
            )
        if version < SCHEMA_VERSION or contract != CONTRACT_MARK:
            if not read_only:
                _migrate(con, version)
            elif missing := _missing_in_held_tables(con):
                names = ", ".join(f"{table}.{column}" for table, column, _ in missing)
                raise WarehouseError(
                    f"{path} has no column for {names} yet; run `channelkit sync` to add it"
                )
    except duckdb.Error as exc:
        con.close()
        raise WarehouseError(f"{path}: cannot open warehouse: {storage_problem(exc)}") from None
    except BaseException:
        con.close()
        raise
    return con


_DAMAGED = (
    "checksum",
    "corrupt",
    "truncated",
    "could not read enough bytes",
    "not a valid",
    "magic",
    "damaged",
)


def is_storage_fault(error: BaseException) -> bool:
    """A fault of the file or the disk (not of a query): worth one line and a remedy."""
    lower = str(error).lower()
    return any(word in lower for word in (*_DAMAGED, "no space left", "disk full"))


def storage_problem(error: BaseException) -> str:
    """One line saying what went wrong with the file and what to do about it."""
    text = str(error).strip()
    lower = text.lower()
    first = text.splitlines()[0] if text else type(error).__name__
    if "no space left" in lower or "disk full" in lower or "could not write" in lower:
        return f"the disk is full ({first}); free some space and run again"
    if any(word in lower for word in _DAMAGED):
        return (
            f"the file is damaged ({first}); restore it from a backup, or move it aside and "
            "run `channelkit sync --full` to rebuild it"
        )
    return first


def _schema_version(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[int, str | None]:
    """The file's schema version and contract mark (0 and None for a new, empty file)."""
    try:
        meta = dict(con.execute("SELECT key, value FROM schema_meta").fetchall())
    except duckdb.CatalogException:
        # No schema_meta: a new, empty file, or someone else's. (Listing the catalog only
        # here: it costs more than the query above on every open.)
        if con.execute("SELECT count(*) FROM duckdb_tables()").fetchall()[0][0] == 0:
            return 0, None
        raise WarehouseError(
            f"{path} is a DuckDB file from another tool, not a channelkit warehouse"
        ) from None
    if meta.get("app") != SCHEMA_APP or "schema_version" not in meta:
        raise WarehouseError(
            f"{path} is a DuckDB file from another tool, not a channelkit warehouse"
        )
    return int(meta["schema_version"]), meta.get("contract")


def _missing_in_held_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """The contract columns a read-only file lacks in the tables it has: a whole table a
    later migration adds (a new synced resource) does not stop the file from being read as
    it is until the sync creates it (`wh.freshness()` counts it 0)."""
    existing = _table_columns(con)
    held = {table for table, _ in existing}
    return [missing for missing in missing_columns(existing) if missing[0] in held]


def held_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The tables the open file has (one a later migration adds may not be there yet)."""
    return {table for table, _ in _table_columns(con)}


def _table_columns(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    rows = con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = current_schema()"
    ).fetchall()
    return {(table, column) for table, column in rows}


def _migrate(con: duckdb.DuckDBPyConnection, current: int) -> None:
    # One transaction for all pending steps: a crash mid-migration leaves the old version.
    # Then the contract's columns the file lacks (a field added to `_spec` since).
    con.execute("BEGIN TRANSACTION")
    try:
        for step in MIGRATIONS[current:]:
            con.execute(step)
        # The daily rows synced before the derived columns and tables existed, once.
        if current < REACH_VERSION:
            refresh_reach(con)
        if current < TOTALS_VERSION:
            refresh_totals(con)
        for step in contract_steps(_table_columns(con)):
            con.execute(step)
        con.execute(
            "INSERT OR REPLACE INTO schema_meta "
            "VALUES ('app', ?), ('schema_version', ?), ('contract', ?)",
            [SCHEMA_APP, str(SCHEMA_VERSION), CONTRACT_MARK],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
