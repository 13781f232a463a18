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

from channelkit._resources import RESOURCES
from channelkit.errors import WarehouseError
from channelkit.storage.connection import open_warehouse
from channelkit.storage.parquet import PARQUET_TABLES, export_parquet, recover_parquet
from channelkit.storage.writer import WarehouseWriter
from channelkit.sync.arrow import SHAPES, items_to_arrow


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
    writer.commit_batch("posts", items_to_arrow(SHAPES["posts"], posts, "t"))
    rows = [daily("post_0", "2026-10-30", 5), daily("post_0", "2026-11-01", 7)]
    rows.append(daily("post_1", "2026-11-02", 1))
    writer.commit_batch("post_daily", items_to_arrow(SHAPES["post_daily"], rows, "t"))
    con.close()
    return path


def test_every_table_is_readable_by_three_engines(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    paths = export_parquet(warehouse, out)
    # Every synced resource as declared, and what the sync derives and records.
    assert set(paths) == {r.table for r in RESOURCES} | {"post_tags", "sync_runs"}
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
    assert_plain_folders(out)


def assert_plain_folders(out: Path) -> None:
    """Every table is a plain folder of Parquet files; no link, nothing else left behind."""
    assert sorted(p.name for p in out.iterdir()) == sorted(PARQUET_TABLES)
    links = [Path(root) / name for root, dirs, files in os.walk(out) for name in dirs + files]
    assert not [p for p in links if p.is_symlink()]
    found = {p.relative_to(out).parts[0] for p in out.rglob("*.parquet")}
    assert found == set(PARQUET_TABLES)


def test_an_export_of_an_earlier_version_with_links_becomes_plain_folders(
    warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "parquet"
    (out / ".versions" / "posts-1").mkdir(parents=True)
    (out / ".versions" / "posts-1" / "data.parquet").write_text("old")
    (out / "posts").symlink_to(".versions/posts-1", target_is_directory=True)
    (out / "sync_runs").mkdir()  # a plain folder of a still earlier version
    export_parquet(warehouse, out)
    assert len(pd.read_parquet(out / "posts")) == 3
    assert_plain_folders(out)


# The export in a child process, paused (and then killed) at one point of its work.
KILLED_EXPORT = """
import os, sys, time
from pathlib import Path
from channelkit.storage import parquet

point, marker = sys.argv[3], Path(sys.argv[4])

def pause():
    # Written beside and renamed: the parent, polling for the marker, must never find it
    # created but still empty (it then killed the export too early: a CI failure).
    partial = marker.with_name(marker.name + ".partial")
    partial.write_text(point)
    partial.replace(marker)
    time.sleep(120)

if point == "writing":
    write = parquet._write
    def paused_write(con, table, staging):
        if table == "post_daily":
            pause()
        return write(con, table, staging)
    parquet._write = paused_write
elif point == "one table swapped":
    swap = parquet._swap
    def paused_swap(new, final):
        swap(new, final)
        pause()
    parquet._swap = paused_swap
elif point == "between the two renames":
    parquet._exchange = lambda a, b: False  # as on Windows or macOS
    replace = os.replace
    def paused_replace(src, dst):
        replace(src, dst)
        if Path(dst).name == "replaced-posts":
            pause()
    os.replace = paused_replace
elif point == "before the cleanup":
    remove = parquet._remove
    def paused_remove(path):
        if path.name.startswith(".staging-"):
            pause()
        remove(path)
    parquet._remove = paused_remove
parquet.export_parquet(sys.argv[1], sys.argv[2])
"""


@pytest.mark.parametrize(
    "point", ["writing", "one table swapped", "between the two renames", "before the cleanup"]
)
def test_kill_9_during_an_export_leaves_a_complete_copy(
    warehouse: Path, tmp_path: Path, point: str
) -> None:
    out = tmp_path / "parquet"
    export_parquet(warehouse, out)
    before = pd.read_parquet(out / "posts")
    con = open_warehouse(warehouse, read_only=False)
    con.execute("UPDATE posts SET title = title || ' (edited)'")
    con.close()
    marker = tmp_path / "paused"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_EXPORT, str(warehouse), str(out), point, str(marker)],
        env=env,
    )
    deadline = time.monotonic() + 60
    while child.poll() is None and not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert marker.read_text() == point, "the export never reached the point to kill it at"
    if point == "between the two renames":
        # The one window without `posts`: the next export (or this) puts it back first.
        assert not (out / "posts").exists()
        recover_parquet(out)
    after = pd.read_parquet(out / "posts")
    if point == "before the cleanup":
        assert list(after["title"]) == [f"{t} (edited)" for t in before["title"]]
    else:
        assert after.equals(before)  # the previous complete copy
    assert not [p for p in out.rglob("*") if p.is_symlink()]
    export_parquet(warehouse, out)
    assert_plain_folders(out)
    assert all(pd.read_parquet(out / "posts")["title"].str.endswith("(edited)"))


def test_target_that_is_a_file_is_refused(warehouse: Path, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(WarehouseError, match="exists and is not a directory"):
        export_parquet(warehouse, target)


def test_missing_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="no such warehouse"):
        export_parquet(tmp_path / "nope.duckdb", tmp_path / "out")
