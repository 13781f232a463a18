"""What a batch of daily rows costs the sync's writer on a large file, against a baseline.

    .venv/bin/python bench/sync_writer.py [--posts 1000000] [--days 10] [--runs 5] [--small]

Builds the synthetic warehouse of `analysis_queries.py` (1M posts, 10M daily rows), then
writes, round after round, the batches an incremental sync writes: 5,000 daily rows of
500 posts that change days the file has (`changed days`), and 5,000 rows of the same
posts' next days (`new days`). Each goes through `WarehouseWriter.commit_batch`, which
also keeps what is derived from the rows (each post's reach, the daily totals per channel
and day) in the batch's transaction. The baseline, timed in turn, is the floor of any
batch: the same 5,000 rows inserted into an empty table of the same shape. `--small` is
a quick run of the same code (20,000 posts, 2 rounds).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import duckdb
import pyarrow as pa
from analysis_queries import build, scale

from channelkit.storage.connection import open_warehouse
from channelkit.storage.writer import WarehouseWriter

BATCH_POSTS = 500
BASELINE = "baseline: 5,000 rows into an empty table"
COLUMNS = "post_id, channel_id, date, views, unique_viewers, reactions, comments, shares, clicks"


def main() -> None:
    args = scale(__doc__, small=(20_000, 10, 2))
    times: dict[str, list[float]] = {BASELINE: [], "changed days": [], "new days": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        t0 = time.perf_counter()
        build(path, args.posts, args.days)
        print(f"built {args.posts:,} posts in {time.perf_counter() - t0:.1f} s")
        con = open_warehouse(path, read_only=False)
        try:
            writer = WarehouseWriter(con)
            step = args.posts // (args.runs + 1)
            for run in range(args.runs):
                first = step * (run + 1)
                ids = [f"post_{i:08d}" for i in range(first, first + BATCH_POSTS)]
                changed = _rows(con, ids, "unique_viewers + 1 AS unique_viewers", "date")
                later = _rows(con, ids, "unique_viewers", f"date + {args.days} AS date")
                times[BASELINE].append(_floor(con, changed))
                write = partial(writer.commit_batch, "post_daily")
                times["changed days"].append(_timed(partial(write, changed)))
                times["new days"].append(_timed(partial(write, later)))
        finally:
            con.close()
    base = statistics.median(times[BASELINE])
    print(f"{'batch (5,000 daily rows)':42} {'best':>7} {'median':>7} {'med/base':>8}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:42} {min(values):7.1f} {median:7.1f} {median / base:8.2f}")


def _rows(con: duckdb.DuckDBPyConnection, ids: list[str], viewers: str, day: str) -> pa.Table:
    select = COLUMNS.replace("unique_viewers", viewers).replace("date", day)
    return con.sql(
        f"SELECT {select} FROM post_daily WHERE post_id IN (SELECT unnest(?::VARCHAR[]))",
        params=[ids],
    ).to_arrow_table()


def _floor(con: duckdb.DuckDBPyConnection, rows: pa.Table) -> float:
    con.execute(f"CREATE TEMP TABLE floor AS SELECT {COLUMNS} FROM post_daily LIMIT 0")
    con.register("batch", rows)
    try:
        insert = f"INSERT INTO floor ({COLUMNS}) SELECT {COLUMNS} FROM batch"
        return _timed(lambda: con.execute(insert))
    finally:
        con.unregister("batch")
        con.execute("DROP TABLE floor")


def _timed(call: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    main()
