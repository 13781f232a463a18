"""Readers at the same age from the posts' stored reach equal those summed from the daily
rows, the way a warehouse without the stored reach (the lake) counts them."""

from __future__ import annotations

import shutil
from typing import Any

import pandas as pd
import pytest
from tests.fixtures.warehouse import build_long_warehouse

from channelkit.analysis.rows import has_stored_reach
from channelkit.storage.connection import open_warehouse
from channelkit.storage.schema import REACH_COLUMNS
from channelkit.warehouse import Warehouse

CALLS: list[dict[str, Any]] = [
    {"period": "week"},
    {"period": "7d", "by": "channel"},
    {"period": "2026-10", "compare": "year"},
    {"period": "2026-10"},
    {"period": "2026-W45", "tag": "launch", "tz": "America/New_York"},
    {"start": "2026-11-02", "end": "2026-11-09", "by": "channel"},
]


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, Warehouse]:
    """The long warehouse, and a copy of it without the stored reach."""
    folder = tmp_path_factory.mktemp("reach")
    stored = build_long_warehouse(folder / "stored.duckdb")
    summed = folder / "summed.duckdb"
    shutil.copy(stored, summed)
    con = open_warehouse(summed, read_only=False)
    for column in REACH_COLUMNS:
        con.execute(f"ALTER TABLE posts DROP COLUMN {column}")
    con.close()
    return Warehouse(stored), Warehouse(summed)


def test_the_copy_has_no_stored_reach(both: tuple[Warehouse, Warehouse]) -> None:
    stored, summed = both
    with stored.duckdb as con:
        assert has_stored_reach(con)
    with summed.duckdb as con:
        assert not has_stored_reach(con)


@pytest.mark.parametrize("call", CALLS, ids=[str(c) for c in CALLS])
def test_same_numbers_with_and_without_the_stored_reach(
    both: tuple[Warehouse, Warehouse], call: dict[str, Any]
) -> None:
    stored, summed = both
    with_reach, without = stored.kpis(**call), summed.kpis(**call)
    assert with_reach.attrs["comparison"] == "compared at the same age"
    pd.testing.assert_frame_equal(with_reach, without)
