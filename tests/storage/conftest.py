"""The storage tests' warehouse: a new file, open for writing as the sync opens it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from channelkit.storage.connection import open_warehouse


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_warehouse(tmp_path / "wh.duckdb", read_only=False)
    yield con
    con.close()
