"""Incremental sync after 0.1% changes, as ratios to the full sync of the same workspace.

    .venv/bin/python bench/sync_incremental.py [--posts 100000] [--dir /mnt/xfs]

The synthetic page server (bench/_page_server.py) first serves N posts; after the full
sync it is restarted with 0.1% of the posts changed (the most recent ones: views still
move) and 0.1% new posts. The incremental run re-reads what changed recently and, by
design, one slice of the older history (1/7 of it by default: see docs/warehouse.md);
both parts are printed, side by side with the full run. Targets: the increment (without
the slice, with the working copy the run starts with) <= 2% of the full run's time and
requests. The working copy's cost is printed apart: how it was made (a copy-on-write clone
where the file system can, else a plain copy: docs/warehouse.md), its seconds and the
warehouse's size, and its share of the full run. The cycle's last run lists every
post unfiltered instead of a slice (the only way to find scheduled posts and drafts that
colleagues created): its cost is printed as a ratio to the first incremental run.

The machine is shared, and one run's time moves by half from one minute to the next: the
full sync is run `--repeat` times from an empty file and the first incremental run
`--repeat` times from the same copy of the full run's file; the medians are compared.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _page_server import running

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit.client import Client
from channelkit.sync import SyncReport, run_sync


def timed_sync(base_url: str, path: Path) -> tuple[float, SyncReport]:
    started = time.perf_counter()
    with Client(base_url=base_url, api_key="bench-key") as client:
        report = run_sync(client, path, only="posts,channels", progress=False)
    assert report.completed, report.summary()
    return time.perf_counter() - started, report


def median_run(
    runs: list[tuple[float, SyncReport]], key: Callable[[tuple[float, SyncReport]], float]
) -> tuple[float, SyncReport]:
    """The run whose `key` is the median (the lower middle one of an even count)."""
    ordered = sorted(runs, key=key)
    return ordered[(len(ordered) - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    parser.add_argument(
        "--dir",
        default=None,
        help="where the warehouse goes (a file system that clones, e.g. XFS: the copy's cost)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (medians)")
    args = parser.parse_args()
    if args.small:
        args.posts, args.repeat = 2_000, 1
    changes = max(1, args.posts // 1000)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path, kept = Path(tmp) / "wh.duckdb", Path(tmp) / "after-full.duckdb"
        fulls = []
        with running(args.posts) as base_url:
            for _ in range(args.repeat):
                path.unlink(missing_ok=True)
                fulls.append(timed_sync(base_url, path))
        shutil.copyfile(path, kept)
        incs = []
        with running(args.posts, changed=changes, new=changes) as base_url:
            for _ in range(args.repeat):
                shutil.copyfile(kept, path)  # a new file: the run copies it, as after a sync
                incs.append(timed_sync(base_url, path))
            size = path.stat().st_size
            # The runs after it, up to the cycle's last: it lists every post unfiltered.
            listing_time, listing = timed_sync(base_url, path)
            while "every post listed" not in (listing.history_slice or ""):
                listing_time, listing = timed_sync(base_url, path)
    full_time, full = median_run(fulls, lambda run: run[0])
    inc_time, inc = median_run(incs, lambda run: run[0] - run[1].history_seconds)
    posts = inc.counts["posts"]
    slice_time, slice_requests = inc.history_seconds, inc.history_requests
    delta_time, delta_requests = inc_time - slice_time, inc.requests - slice_requests
    print(
        f"posts: {args.posts:,}; changed {changes}, new {changes}; medians of {args.repeat} runs "
        f"(full: {', '.join(f'{t:.2f}' for t, _ in fulls)} s; increments: "
        f"{', '.join(f'{t - r.history_seconds:.3f}' for t, r in incs)} s)"
    )
    print(
        f"working copy at the incremental run's start: {inc.start_copy}, "
        f"{inc.start_copy_seconds:.3f} s for {size / 2**20:,.1f} MB "
        f"= {inc.start_copy_seconds / full_time:.2%} of full time "
        f"(part of the increment below)"
    )
    print(f"full sync:                {full_time:7.2f} s  {full.requests:>6,} requests")
    print(
        f"incremental run, total:   {inc_time:7.2f} s  {inc.requests:>6,} requests "
        f"(posts new {posts.new}, updated {posts.updated}, unchanged {posts.unchanged})"
    )
    print(
        f"  the increment:          {delta_time:7.2f} s  {delta_requests:>6,} requests  "
        f"= {delta_time / full_time:.2%} of full time, {delta_requests / full.requests:.2%} "
        "of its requests (target <= 2% each)"
    )
    print(
        f"  history slice {inc.history_slice}:\n"
        f"                          {slice_time:7.2f} s  {slice_requests:>6,} requests  "
        f"= {slice_time / full_time:.2%} of full time, {slice_requests / full.requests:.2%} "
        f"of its requests ({inc.history_rows:,} rows re-read)"
    )
    print(
        f"the cycle's last run, {listing.history_slice}:\n"
        f"                          {listing_time:7.2f} s  {listing.requests:>6,} requests  "
        f"= {listing_time / inc_time:.2f}x the run above, "
        f"{listing.requests / inc.requests:.2f}x its requests (once per cycle of "
        f"{SYNC_CONVERGENCE_RUNS} runs: scheduled posts and drafts of others)"
    )


if __name__ == "__main__":
    main()
