"""Throughput: an unthrottled walk through the client vs a bare httpx loop over the same pages.

    .venv/bin/python bench/client_throughput.py [--repeat 5] [--page-size 100]

Both walk every post of the seeded demo service (`channelkit serve --seed demo`, in its own
process so that it does not compete with the client for the GIL), following `next_cursor`,
with the demo's Enterprise key and a 1 s window (1,000 requests a second: far above what one
connection does, so pacing never has to wait). Runs alternate after one warm-up round; the best and
the median of each are compared (the best is the steadier figure on a shared machine).
Target: bare time / client time >= 0.8 (the client keeps at least 80% of the throughput).
The client process's CPU time per walk is printed too: steadier than wall time when other
work shares the machine.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx

from channelkit import Client


@contextmanager
def demo_server() -> Iterator[tuple[str, str]]:
    """(base URL, admin key) of a `channelkit serve --seed demo` child process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-c", "from channelkit.cli import main; main()", "serve"]
    command += ["--db", ":memory:", "--seed", "demo", "--rate-window", "1", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        key = next(line.split()[-1] for line in server.stdout if line.split()[:1] == ["admin"])
        yield f"http://127.0.0.1:{port}/v1", key
    finally:
        server.terminate()
        server.wait(timeout=10)


def bare(base_url: str, key: str, page_size: int) -> int:
    items = 0
    cursor: str | None = None
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        while True:
            params = {"limit": str(page_size), **({"cursor": cursor} if cursor else {})}
            page = json.loads(http.get("/posts", params=params).content)
            items += len(page["data"])
            cursor = page["next_cursor"]
            if not page["has_more"] or cursor is None:
                return items


def raw_pages(base_url: str, key: str, page_size: int) -> int:
    with Client(base_url, key) as client:
        return sum(len(page.data) for page in client.raw_pages("/posts", limit=page_size))


def models(base_url: str, key: str, page_size: int) -> int:
    with Client(base_url, key) as client:
        return sum(1 for _ in client.posts.list(limit=page_size))


def timed(walk: Callable[[str, str, int], int], *args: object) -> tuple[float, float, int]:
    """(wall seconds, this process's CPU seconds, items) of one walk."""
    started, cpu = time.perf_counter(), time.process_time()
    items = walk(*args)  # type: ignore[arg-type]
    return time.perf_counter() - started, time.process_time() - cpu, items


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.repeat = 1
    walks = {"bare httpx": bare, "client.raw_pages": raw_pages, "client.posts.list": models}
    times: dict[str, list[float]] = {name: [] for name in walks}
    cpu: dict[str, list[float]] = {name: [] for name in walks}
    with demo_server() as (base_url, key):
        counts = set()
        for run in range(args.repeat + 1):
            for name, walk in walks.items():
                elapsed, used, items = timed(walk, base_url, key, args.page_size)
                if run:  # the first round warms connections, caches and model schemas
                    times[name].append(elapsed)
                    cpu[name].append(used)
                counts.add(items)
    assert len(counts) == 1, f"walks disagree on the number of posts: {counts}"
    best_base, median_base = min(times["bare httpx"]), statistics.median(times["bare httpx"])
    print(f"{counts.pop():,} posts, pages of {args.page_size}, {args.repeat} runs each")
    for name, runs in times.items():
        best, median = min(runs), statistics.median(runs)
        print(
            f"{name:18s} best {best * 1000:7.1f} ms (ratio {best_base / best:.3f})   "
            f"median {median * 1000:7.1f} ms (ratio {median_base / median:.3f})   "
            f"client CPU {statistics.median(cpu[name]) * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    main()
