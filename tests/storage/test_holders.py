"""The lock message names who holds the warehouse: a reader, a writer or a running sync.

Held by real DuckDB connections in other processes; the holder's kind is read from Linux's
`/proc/locks` (proc(5)), so these run where it exists.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from channelkit.errors import WarehouseError
from channelkit.storage.connection import open_warehouse
from channelkit.storage.working_copy import work_path

pytestmark = pytest.mark.skipif(
    not Path("/proc/locks").exists(), reason="the holder is named from Linux's /proc/locks"
)


@contextmanager
def _held(*files: tuple[Path, bool]) -> Iterator[int]:
    """Another process holding each (file, read_only) with a DuckDB connection; its pid."""
    opens = "\n".join(
        f"cons.append(duckdb.connect({str(path)!r}, read_only={read_only}))"
        for path, read_only in files
    )
    code = f"import sys, duckdb\ncons = []\n{opens}\nprint('ready', flush=True)\nsys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield holder.pid
    finally:
        holder.communicate("")


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    open_warehouse(path, read_only=False).close()
    return path


def test_a_reader_holding_the_file_is_named_as_a_reader(warehouse: Path) -> None:
    with _held((warehouse, True)) as pid:
        with pytest.raises(WarehouseError) as refused:
            open_warehouse(warehouse, read_only=False)
    message = str(refused.value)
    assert f"locked by a reader (process {pid}: a notebook's" in message
    assert "writer" not in message and "older channelkit" not in message


def test_two_readers_are_both_named(warehouse: Path) -> None:
    with _held((warehouse, True)) as first, _held((warehouse, True)) as second:
        with pytest.raises(WarehouseError) as refused:
            open_warehouse(warehouse, read_only=False)
    low, high = sorted((first, second))
    assert f"locked by readers (processes {low}, {high}:" in str(refused.value)


def test_a_sync_holding_the_file_and_its_working_copy_is_named_as_a_sync(
    warehouse: Path,
) -> None:
    """What the sync holds while it runs (its working copy) and, a moment, the warehouse."""
    work = work_path(warehouse)
    open_warehouse(work, read_only=False).close()
    with _held((work, False), (warehouse, False)) as pid:
        with pytest.raises(WarehouseError) as refused:
            open_warehouse(warehouse, read_only=True)
    assert f"locked by a running sync (process {pid}," in str(refused.value)


def test_a_writer_without_a_working_copy_is_named_as_a_writer(warehouse: Path) -> None:
    with _held((warehouse, False)) as pid:
        with pytest.raises(WarehouseError) as refused:
            open_warehouse(warehouse, read_only=True)
    assert f"locked by a writer (process {pid}: a writable DuckDB connection" in str(refused.value)
