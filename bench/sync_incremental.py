"""Incremental sync after 0.1% changes, as ratios to the full sync of the same workspace.

    .venv/bin/python bench/sync_incremental.py [--posts 100000] [--dir /mnt/xfs]

Two synthetic page servers (bench/_page_server.py) run side by side: one serves N posts,
the other the same workspace a little later, with 0.1% of the posts changed (the most
recent ones: views still move) and 0.1% new posts. A full sync reads the first; the
incremental run after it reads the second: it re-reads what changed recently and, by
design, one slice of the older history (1/7 of it by default: see docs/warehouse.md);
both parts are printed, side by side with the full run. Targets: the increment (without
the slice, with the working copy the run starts with) <= 2% of the full run's time and
requests. The run's own clock counts the slice from its planning on, and the recent posts
and channels are written after that (the one writing thread writes them while the slice is
fetched): the increment so counted leaves their writing out. Each pair therefore also runs
the same incremental run with no slice planned, from a copy of the full run's file: the
increment alone, writes included, printed as "without its slice". The working copy's
cost is printed apart: how it was made (a copy-on-write clone where the file system can,
else a plain copy: docs/warehouse.md), its seconds and the warehouse's size, and its share
of the full run. The cycle's last run lists every
post unfiltered instead of a slice (the only way to find scheduled posts and drafts that
colleagues created): its cost is printed as a ratio to the first incremental run.

The machine is shared, and one run's time moves by half from one minute to the next: the
full sync (into an empty file) and the incremental run after it (which copies the full
run's file first, as every run does) are run in turns, `--repeat` pairs, each pair under
about the same load; each pair's ratio is printed, and the median pair's figures.

Last measured (December 2026, 2 shared cores, ext4, ids of the service's shape; every
figure in docs/warehouse.md, "The writer's lookups"): at 100k posts the increment 4.5-5.2%
of the full run (target 2% not reached: a run that finds nothing changed costs 5%),
6.4-8.5% without its slice; at 1M posts 2.1%, 2.4% without its slice, the plain copy 1.2%.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _page_server import running

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit.client import Client
from channelkit.sync import SyncReport, run_sync, walks


def timed_sync(base_url: str, path: Path) -> tuple[float, SyncReport]:
    started = time.perf_counter()
    with Client(base_url=base_url, api_key="bench-key") as client:
        report = run_sync(client, path, only="posts,channels", progress=False)
    assert report.completed, report.summary()
    return time.perf_counter() - started, report


def timed_sync_without_slice(base_url: str, path: Path) -> float:
    """An incremental run that walks no slice of older history: the increment alone.

    A run's own clock counts the slice from its planning on, which begins before the recent
    posts are written (the writing thread writes them meanwhile): a run without the slice
    is the only measure of what the increment costs by itself. No option skips the slice
    (every run walks one, or the warehouse never converges), so it is switched off here.
    """
    plan = walks.Planner._posts_history
    walks.Planner._posts_history = lambda self, *, restart: None  # type: ignore[method-assign]
    try:
        seconds, report = timed_sync(base_url, path)
    finally:
        walks.Planner._posts_history = plan  # type: ignore[method-assign]
    assert report.history_requests == 0, report.summary()
    return seconds


@dataclass(frozen=True)
class Pair:
    """A full sync and the incremental runs after it, run in turns (about the same load)."""

    full: tuple[float, SyncReport]
    incremental: tuple[float, SyncReport]
    alone: float  # the same incremental run without its slice (`timed_sync_without_slice`)

    @property
    def increment(self) -> float:
        """The incremental run's seconds without its history slice."""
        seconds, report = self.incremental
        return seconds - report.history_seconds

    @property
    def share(self) -> float:
        return self.increment / self.full[0]

    @property
    def alone_share(self) -> float:
        return self.alone / self.full[0]


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
    parser.add_argument(
        "--repeat", type=int, default=5, help="pairs of runs, a full and an incremental (median)"
    )
    args = parser.parse_args()
    if args.small:
        args.posts, args.repeat = 2_000, 1
    changes = max(1, args.posts // 1000)
    pairs: list[Pair] = []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "wh.duckdb"
        with (
            running(args.posts) as before_url,
            running(args.posts, changed=changes, new=changes) as after_url,
        ):
            kept, alone = path.with_name("full.duckdb"), path.with_name("alone.duckdb")
            for _ in range(args.repeat):
                path.unlink(missing_ok=True)
                full = timed_sync(before_url, path)
                size = path.stat().st_size
                shutil.copyfile(path, kept)
                incremental = timed_sync(after_url, path)
                shutil.copyfile(kept, alone)
                pairs.append(Pair(full, incremental, timed_sync_without_slice(after_url, alone)))
                for file in alone.parent.glob("alone.duckdb*"):
                    file.unlink()
            # The runs after it, up to the cycle's last: it lists every post unfiltered.
            listing_time, listing = timed_sync(after_url, path)
            while "every post listed" not in (listing.history_slice or ""):
                listing_time, listing = timed_sync(after_url, path)
    pair = sorted(pairs, key=lambda p: p.share)[(len(pairs) - 1) // 2]  # the median pair
    (full_time, full), (inc_time, inc) = pair.full, pair.incremental
    posts = inc.counts["posts"]
    slice_time, slice_requests = inc.history_seconds, inc.history_requests
    delta_requests = inc.requests - slice_requests
    print(
        f"posts: {args.posts:,}; changed {changes}, new {changes}; {args.repeat} pairs of "
        "runs in turns (full sync s / increment s = share): "
        + "; ".join(f"{p.full[0]:.2f} / {p.increment:.3f} = {p.share:.2%}" for p in pairs)
    )
    print(
        f"working copy at the incremental run's start: {inc.start_copy}, "
        f"{inc.start_copy_seconds:.3f} s for {size / 2**20:,.1f} MB "
        f"= {inc.start_copy_seconds / full_time:.2%} of full time (part of the increment; "
        "each pair: "
        + ", ".join(f"{p.incremental[1].start_copy_seconds / p.full[0]:.2%}" for p in pairs)
        + ")"
    )
    print("the median pair (by the increment's share):")
    print(f"full sync:                {full_time:7.2f} s  {full.requests:>6,} requests")
    print(
        f"incremental run, total:   {inc_time:7.2f} s  {inc.requests:>6,} requests "
        f"(posts new {posts.new}, updated {posts.updated}, unchanged {posts.unchanged})"
    )
    print(
        f"  the increment:          {pair.increment:7.2f} s  {delta_requests:>6,} requests  "
        f"= {pair.share:.2%} of full time, {delta_requests / full.requests:.2%} "
        "of its requests (target <= 2% each)"
    )
    print(
        f"  without its slice:      {pair.alone:7.2f} s  (the same run, no slice planned: "
        f"{pair.alone_share:.2%} of full time; the median pair by this share "
        f"{statistics.median(p.alone_share for p in pairs):.2%}; each pair: "
        + ", ".join(f"{p.alone_share:.2%}" for p in pairs)
        + ")"
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
