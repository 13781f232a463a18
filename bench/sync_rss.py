"""Peak memory (RSS) of a 1M-post full sync.

    .venv/bin/python bench/sync_rss.py [--posts 1000000]

Runs against the synthetic page server (bench/_page_server.py, its own process; its memory
is not counted). The sync streams pages into Arrow batches of 5,000 rows through a bounded
queue, so the rows in flight stay flat whatever the workspace size; DuckDB's memory does
not (the primary keys' indexes, held in memory while written: storage/memory.py). Target:
peak within 250 MB of the limit the sync gives DuckDB (128 MB plus 150 bytes per keyed
row), with `--lake` too (the Delta Lake copy streamed from DuckDB after the run). Last
measured (December 2026, ids of the service's shape): 1M posts 623 MB, 647 MB with
`--lake`, against a limit of 578 MB; 100k posts 278 MB and 315 MB. (With ids in creation
order the peak was 370 MB; with the service's ids the fixed 128 MB limit of that time
ended the sync at its ~480,000th post.)
Also prints the peaks of the same syncs over a tenth of the posts, for comparison, and
the sizes on disk of the warehouse file and the lake.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import resource, sys, time
sys.path.insert(0, {bench!r})
from channelkit.client import Client
from channelkit.sync import run_sync
started = time.perf_counter()
with Client(base_url={url!r}, api_key="bench-key") as client:
    report = run_sync(client, {db!r}, only="posts,channels", progress=False, lake={lake!r})
assert report.completed, report.summary()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.counts["posts"].new, peak_kb, time.perf_counter() - started, report.lake_seconds)
"""


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure(posts: int, lake: bool) -> tuple[int, float, float, float, int, int]:
    """Sync `posts` posts in a fresh process; return (rows, peak MB, seconds, lake
    seconds, warehouse bytes, lake bytes)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from _page_server import running

    with running(posts) as url, tempfile.TemporaryDirectory() as tmp:
        db, lake_dir = Path(tmp) / "wh.duckdb", Path(tmp) / "lake"
        code = CHILD.format(
            bench=str(Path(__file__).parent),
            url=url,
            db=str(db),
            lake=str(lake_dir) if lake else None,
        )
        out = (
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            .stdout.splitlines()[-1]
            .split()
        )
        sizes = _size(db), _size(lake_dir) if lake else 0
    return int(out[0]), int(out[1]) / 1024, float(out[2]), float(out[3]), *sizes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.posts = 2_000
    for posts in (args.posts // 10, args.posts):
        for lake in (False, True):
            rows, peak, seconds, lake_s, db_bytes, lake_bytes = measure(posts, lake)
            label = "with --lake" if lake else "DuckDB only"
            extra = f", lake write {lake_s:.1f} s, lake {lake_bytes / 1e6:,.0f} MB" if lake else ""
            print(
                f"{rows:>9,} posts, {label}: peak RSS {peak:,.0f} MB, {seconds:.1f} s, "
                f"warehouse {db_bytes / 1e6:,.0f} MB{extra}"
            )
    print(
        "target: peak RSS within 250 MB of DuckDB's limit (128 MB + 150 bytes per keyed row: "
        "a post and its two tags are 3 keyed rows)"
    )


if __name__ == "__main__":
    main()
