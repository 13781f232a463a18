"""Opening warehouse files: migrations, foreign/newer files, locks — with clear messages."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from channelkit.errors import WarehouseError
from channelkit.storage.connection import is_storage_fault, open_warehouse, storage_problem
from channelkit.storage.schema import CONTRACT_COLUMNS, CONTRACT_MARK, SCHEMA_VERSION
from fixtures.sqlite_file import write_sqlite


def test_new_file_is_created_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    con = open_warehouse(path, read_only=False)
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    con.close()
    assert {"posts", "channels", "post_daily", "sync_runs", "sync_checkpoints"} <= tables
    reader = open_warehouse(path, read_only=True)
    meta = dict(reader.execute("SELECT key, value FROM schema_meta").fetchall())
    reader.close()
    assert meta == {
        "app": "channelkit",
        "schema_version": str(SCHEMA_VERSION),
        "contract": CONTRACT_MARK,
    }


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    described = con.execute(f"DESCRIBE {table}").fetchall()
    return {name: type_ for name, type_, *_ in described}


def test_every_contract_field_has_its_column(tmp_path: Path) -> None:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    for table in ("posts", "channels"):
        columns = _columns(con, table)
        for column, type_ in CONTRACT_COLUMNS[table]:
            assert columns.get(column) == type_, (table, column)
    con.close()
    assert ("author_email", "VARCHAR") in CONTRACT_COLUMNS["posts"]
    assert ("tags", "VARCHAR[]") in CONTRACT_COLUMNS["posts"]


def test_a_contract_field_the_file_lacks_is_added_when_the_sync_opens_it(tmp_path: Path) -> None:
    # As a file written before the contract had `cover_image_url`: no column, no mark.
    path = tmp_path / "wh.duckdb"
    con = open_warehouse(path, read_only=False)
    con.execute(
        "INSERT INTO posts (id, channel_id, title, priority, status, synced_at) "
        "VALUES ('p1', 'c1', 'Hi', 'normal', 'draft', now())"
    )
    con.execute("ALTER TABLE posts DROP COLUMN cover_image_url")
    con.execute("DELETE FROM schema_meta WHERE key = 'contract'")
    con.close()
    with pytest.raises(WarehouseError, match=r"no column for posts.cover_image_url yet; run"):
        open_warehouse(path, read_only=True)
    open_warehouse(path, read_only=False).close()
    reader = open_warehouse(path, read_only=True)
    assert _columns(reader, "posts")["cover_image_url"] == "VARCHAR"
    assert reader.execute("SELECT id, cover_image_url FROM posts").fetchall() == [("p1", None)]
    meta = dict(reader.execute("SELECT key, value FROM schema_meta").fetchall())
    reader.close()
    assert meta["contract"] == CONTRACT_MARK


def test_a_file_without_the_mark_but_every_column_opens_read_only(tmp_path: Path) -> None:
    # Files written before the mark existed have every column: readers need no sync first.
    path = tmp_path / "wh.duckdb"
    con = open_warehouse(path, read_only=False)
    con.execute("DELETE FROM schema_meta WHERE key = 'contract'")
    con.close()
    open_warehouse(path, read_only=True).close()


def test_missing_file_for_reading(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="no such warehouse; run `channelkit sync"):
        open_warehouse(tmp_path / "nope.duckdb", read_only=True)
    assert not (tmp_path / "nope.duckdb").exists()


def test_foreign_duckdb_file(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    duckdb.connect(str(path)).execute("CREATE TABLE events (x INT)").close()
    for read_only in (True, False):
        with pytest.raises(WarehouseError, match="from another tool, not a channelkit"):
            open_warehouse(path, read_only=read_only)


def test_not_a_duckdb_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.duckdb"
    path.write_text("just text, not a database\n" * 100)
    with pytest.raises(WarehouseError, match="notes.duckdb"):
        open_warehouse(path, read_only=False)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    con = open_warehouse(path, read_only=False)
    con.execute(
        "UPDATE schema_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)]
    )
    con.close()
    with pytest.raises(WarehouseError, match="newer than this channelkit understands"):
        open_warehouse(path, read_only=True)


def test_file_locked_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    open_warehouse(path, read_only=False).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, duckdb
                con = duckdb.connect({str(path)!r})
                print("ready", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        for read_only in (True, False):
            with pytest.raises(
                WarehouseError, match=rf"locked by a writer \(process {holder.pid}:"
            ):
                open_warehouse(path, read_only=read_only)
    finally:
        holder.communicate("")
    open_warehouse(path, read_only=True).close()  # free again once the writer is gone


def test_connections_never_fetch_or_load_extensions(tmp_path: Path) -> None:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    settings = con.execute(
        "SELECT current_setting('autoinstall_known_extensions'), "
        "current_setting('autoload_known_extensions')"
    ).fetchall()
    con.close()
    assert settings == [(False, False)]


def test_a_sqlite_file_is_refused_before_duckdb_reads_it(tmp_path: Path) -> None:
    path = write_sqlite(tmp_path / "service.sqlite")
    for read_only in (True, False):
        with pytest.raises(WarehouseError, match=r"service.sqlite is a SQLite database, not a"):
            open_warehouse(path, read_only=read_only)


def damaged(tmp_path: Path, how: str) -> Path:
    path = tmp_path / f"{how}.duckdb"
    con = open_warehouse(path, read_only=False)
    con.execute("CREATE TABLE filler AS SELECT range AS i, 'row ' || range AS s FROM range(300000)")
    con.execute(  # a completed sync, so that the read API opens it
        "INSERT INTO sync_runs (run_id, started_at, finished_at, status, mode, base_url) "
        "VALUES ('r', now(), now(), 'completed', 'full', 'http://x/v1')"
    )
    con.close()
    size = path.stat().st_size
    with path.open("r+b") as file:
        if how == "truncated":
            file.truncate(size // 2)
        else:
            file.seek(size // 2)
            file.write(b"\xff" * 5000)
    return path


@pytest.mark.parametrize("how", ["truncated", "corrupted"])
def test_a_damaged_file_ends_in_one_line_naming_it(tmp_path: Path, how: str) -> None:
    from channelkit.warehouse import Warehouse

    path = damaged(tmp_path, how)
    with pytest.raises(WarehouseError) as caught:
        wh = Warehouse(path)
        wh.sql("SELECT sum(length(s)) FROM filler")
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    assert "damaged" in message and "channelkit sync --full" in message


@pytest.mark.parametrize(
    ("message", "advice"),
    [
        (
            'IO Error: Could not write file "/data/wh.duckdb.wal": No space left on device',
            "the disk is full",
        ),
        ("TransactionException: Could not commit: disk full", "the disk is full"),
        ("Corrupt database file: computed checksum 1 does not match stored checksum 2", "damaged"),
        ('IO Error: Could not read enough bytes from file "/data/wh.duckdb"', "damaged"),
    ],
)
def test_storage_faults_are_named_with_a_remedy(message: str, advice: str) -> None:
    text = storage_problem(duckdb.Error(message))
    assert advice in text and "\n" not in text
    assert is_storage_fault(duckdb.Error(message))
    assert not is_storage_fault(duckdb.Error("Binder Error: column x not found"))
