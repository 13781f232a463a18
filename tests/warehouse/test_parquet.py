"""Parquet export: one dataset per table, readable by DuckDB, pandas and pyarrow, atomic."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pytest

from channelkit._constants import PARQUET_TABLES
from channelkit.sync.arrow import POST_DAILY, POSTS, items_to_arrow
from channelkit.warehouse.connection import WarehouseError, open_warehouse
from channelkit.warehouse.parquet import export_parquet
from channelkit.warehouse.writer import WarehouseWriter


def daily(post_id: str, date: str, views: int) -> dict[str, Any]:
    return {
        "post_id": post_id,
        "channel_id": "chan_1",
        "date": date,
        "views": views,
        "unique_viewers": views,
        "reactions": 1,
        "comments": 0,
        "shares": 0,
        "clicks": 2,
    }


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    con = open_warehouse(path, read_only=False)
    writer = WarehouseWriter(con)
    posts = [
        {
            "id": f"post_{i}",
            "channel_id": "chan_1",
            "title": f"T{i}",
            "priority": "high",
            "status": "published",
            "tags": ["a", f"t{i}"],
            "published_at": f"2026-10-{20 + i}T08:00:00Z",
        }
        for i in range(3)
    ]
    writer.commit_batch("posts", items_to_arrow(POSTS, posts, "t"))
    rows = [daily("post_0", "2026-10-30", 5), daily("post_0", "2026-11-01", 7)]
    rows.append(daily("post_1", "2026-11-02", 1))
    writer.commit_batch("post_daily", items_to_arrow(POST_DAILY, rows, "t"))
    con.close()
    return path


def test_every_table_is_readable_by_three_engines(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    paths = export_parquet(warehouse, out)
    assert set(paths) == {
        "channels",
        "posts",
        "post_tags",
        "post_daily",
        "channel_daily",
        "sync_runs",
    }
    months = sorted(p.name for p in (out / "post_daily").iterdir())
    assert months == ["month=2026-10", "month=2026-11"]

    con = duckdb.connect()
    total = con.execute(
        f"SELECT sum(views), count(DISTINCT month) FROM read_parquet("
        f"'{out}/post_daily/**/*.parquet', hive_partitioning = true)"
    ).fetchall()
    assert total == [(13, 2)]
    posts = pd.read_parquet(out / "posts")
    assert sorted(posts["id"]) == ["post_0", "post_1", "post_2"]
    assert str(posts["published_at"].dt.tz) == "UTC"
    assert list(posts.loc[posts["id"] == "post_1", "tags"].iloc[0]) == ["a", "t1"]
    table = ds.dataset(out / "post_tags", format="parquet").to_table()
    assert table.num_rows == 6
    empty = ds.dataset(out / "channels", format="parquet").to_table()
    assert empty.num_rows == 0 and "subscriber_count" in empty.column_names


def test_re_export_replaces_datasets_and_leaves_no_temporaries(
    warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "parquet"
    export_parquet(warehouse, out)
    con = open_warehouse(warehouse, read_only=False)
    con.execute("DELETE FROM post_daily WHERE date < '2026-11-01'")
    export_parquet(con, out)
    con.close()
    assert sorted(p.name for p in (out / "post_daily").iterdir()) == ["month=2026-11"]
    assert_only_live_versions(out)


def assert_only_live_versions(out: Path) -> None:
    """Every table is a link to a complete version; nothing else is left behind."""
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".versions"]
    live = sorted(os.readlink(out / table) for table in PARQUET_TABLES)
    assert all((out / table).is_symlink() for table in PARQUET_TABLES)
    assert sorted(f".versions/{p.name}" for p in (out / ".versions").iterdir()) == live


def test_a_legacy_plain_directory_is_replaced(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    (out / "posts").mkdir(parents=True)
    (out / "posts" / "data.parquet").write_text("old")
    export_parquet(warehouse, out)
    assert len(pd.read_parquet(out / "posts")) == 3
    assert_only_live_versions(out)


KILLED_EXPORT = """
import sys
from channelkit.warehouse.parquet import export_parquet
export_parquet(sys.argv[1], sys.argv[2])
"""


def test_kill_9_during_an_export_leaves_no_temporary_directory_after_the_next(
    warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "parquet"
    export_parquet(warehouse, out)
    before = pd.read_parquet(out / "posts")
    con = open_warehouse(warehouse, read_only=False)  # big enough to be caught mid-write
    con.execute(
        "INSERT INTO post_daily SELECT post_id || '_' || i, channel_id, "
        "DATE '2020-01-01' + CAST(i AS INTEGER), views, "
        "unique_viewers, reactions, comments, shares, clicks, synced_at "
        "FROM (SELECT * FROM post_daily QUALIFY row_number() OVER (PARTITION BY post_id) = 1), "
        "range(2000) r(i)"
    )
    con.close()
    versions = {p.name for p in (out / ".versions").iterdir()}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_EXPORT, str(warehouse), str(out)], env=env
    )
    deadline = time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        if {p.name for p in (out / ".versions").iterdir()} - versions:
            os.kill(child.pid, signal.SIGKILL)
            break
        time.sleep(0.001)
    child.wait()
    assert child.returncode == -signal.SIGKILL, "the export ended before it could be killed"
    # Readers still see the previous, complete datasets.
    assert pd.read_parquet(out / "posts").equals(before)
    assert {p.name for p in (out / ".versions").iterdir()} - versions  # the killed one's
    export_parquet(warehouse, out)
    assert_only_live_versions(out)
    days = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{out}/post_daily/**/*.parquet')"
    )
    assert days.fetchall() == [(3 + 2 * 2000,)]


def test_target_that_is_a_file_is_refused(warehouse: Path, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(WarehouseError, match="exists and is not a directory"):
        export_parquet(warehouse, target)


def test_missing_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="no such warehouse"):
        export_parquet(tmp_path / "nope.duckdb", tmp_path / "out")
