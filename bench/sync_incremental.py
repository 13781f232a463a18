"""Incremental sync after 0.1% changes, as a ratio to the full sync of the same workspace.

    .venv/bin/python bench/sync_incremental.py [--posts 100000]

The synthetic page server (bench/_page_server.py) first serves N posts; after the full
sync it is restarted with 0.1% of the posts changed (the most recent ones: views still
move) and 0.1% new posts. Target: incremental time / full time <= 2%.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _page_server import running

from channelkit.client import Client
from channelkit.sync import SyncReport, run_sync


def timed_sync(base_url: str, path: Path) -> tuple[float, SyncReport]:
    started = time.perf_counter()
    with Client(base_url=base_url, api_key="bench-key") as client:
        report = run_sync(client, path, only="posts,channels", progress=False)
    assert report.completed, report.summary()
    return time.perf_counter() - started, report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=100_000)
    args = parser.parse_args()
    changes = max(1, args.posts // 1000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wh.duckdb"
        with running(args.posts) as base_url:
            full_time, full = timed_sync(base_url, path)
        with running(args.posts, changed=changes, new=changes) as base_url:
            inc_time, inc = timed_sync(base_url, path)
    posts = inc.counts["posts"]
    print(f"posts: {args.posts:,}; changed {changes}, new {changes}")
    print(f"full sync:        {full_time:.2f} s, {full.requests:,} requests")
    print(
        f"incremental sync: {inc_time:.3f} s, {inc.requests:,} requests "
        f"(new {posts.new}, updated {posts.updated}, unchanged {posts.unchanged})"
    )
    print(f"ratio incremental / full: {inc_time / full_time:.2%} (target <= 2%)")


if __name__ == "__main__":
    main()
