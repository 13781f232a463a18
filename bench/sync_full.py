"""Full sync of 100k posts vs the floor: a bare httpx fetch + JSON decode of the same pages.

    .venv/bin/python bench/sync_full.py [--posts 100000]

Both run against the synthetic page server (bench/_page_server.py, its own process), with
pages of 100. Target: sync time / floor time <= 1.5. Also prints the same full sync with
`--lake` (a Delta Lake copy written after the run), as a ratio to the DuckDB-only sync.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import httpx
from _page_server import running

from channelkit.client import Client
from channelkit.sync import run_sync


def bare_loop(base_url: str) -> tuple[float, int]:
    started = time.perf_counter()
    items = 0
    with httpx.Client(base_url=base_url) as http:
        for path in ("/channels", "/posts"):
            cursor: str | None = None
            while True:
                params = {"limit": "100", **({"cursor": cursor} if cursor else {})}
                page = json.loads(http.get(path, params=params).content)
                items += len(page["data"])
                cursor = page["next_cursor"]
                if not page["has_more"] or cursor is None:
                    break
    return time.perf_counter() - started, items


def full_sync(base_url: str, directory: Path, lake: bool = False) -> tuple[float, int, int]:
    path = directory / f"wh-{time.monotonic_ns()}.duckdb"
    started = time.perf_counter()
    with Client(base_url=base_url, api_key="bench-key") as client:
        report = run_sync(
            client,
            path,
            only="posts,channels",
            progress=False,
            lake=path.with_suffix(".lake") if lake else None,
        )
    elapsed = time.perf_counter() - started
    assert report.completed, report.summary()
    return elapsed, report.counts["posts"].new, report.requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.posts, args.repeat = 2_000, 1
    with running(args.posts) as base_url, tempfile.TemporaryDirectory() as tmp:
        # Interleaved, so that a machine busy with something else hurts all three alike.
        floors, runs, lakes = [], [], []
        for _ in range(args.repeat):
            floors.append(bare_loop(base_url)[0])
            runs.append(full_sync(base_url, Path(tmp)))
            lakes.append(full_sync(base_url, Path(tmp), lake=True)[0])
    floor, best, lake = min(floors), min(r[0] for r in runs), min(lakes)
    print(f"posts: {args.posts:,}, requests per sync: {runs[0][2]:,}, rows: {runs[0][1]:,}")
    print(f"floor (bare httpx fetch + json decode): {floor:.2f} s")
    print(f"full sync into DuckDB:                  {best:.2f} s")
    print(f"full sync with --lake (Delta copy):     {lake:.2f} s")
    print(f"ratio sync / floor: {best / floor:.2f} (target <= 1.5)")
    print(f"lake overhead: with --lake / DuckDB only = {lake / best:.2f}")
    print(f"throughput: {args.posts / best:,.0f} posts/s")


if __name__ == "__main__":
    main()
