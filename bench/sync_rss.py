"""Peak memory (RSS) of a 1M-post full sync.

    .venv/bin/python bench/sync_rss.py [--posts 1000000]

Runs against the synthetic page server (bench/_page_server.py, its own process; its memory
is not counted). The sync streams pages into Arrow batches of 5,000 rows through a bounded
queue, so memory should stay flat whatever the workspace size. Target: peak <= 400 MB.
Also prints the peak of the same sync over a tenth of the posts, for comparison.
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
    report = run_sync(client, {db!r}, only="posts,channels", progress=False)
assert report.completed, report.summary()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.counts["posts"].new, peak_kb, time.perf_counter() - started)
"""


def measure(posts: int) -> tuple[int, float, float]:
    """Sync `posts` posts in a fresh process; return (rows, peak MB, seconds)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from _page_server import running

    with running(posts) as url, tempfile.TemporaryDirectory() as tmp:
        code = CHILD.format(bench=str(Path(__file__).parent), url=url, db=f"{tmp}/wh.duckdb")
        out = (
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            .stdout.splitlines()[-1]
            .split()
        )
    return int(out[0]), int(out[1]) / 1024, float(out[2])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=1_000_000)
    args = parser.parse_args()
    for posts in (args.posts // 10, args.posts):
        rows, peak, seconds = measure(posts)
        print(f"{rows:>9,} posts: peak RSS {peak:,.0f} MB, {seconds:.1f} s")
    print("target: peak RSS <= 400 MB at 1M posts")


if __name__ == "__main__":
    main()
