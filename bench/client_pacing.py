"""Pacing: time to walk P pages under a plan limit L per window W, against ceil(P/L) * W.

    .venv/bin/python bench/client_pacing.py [--rate-window 2 5] [--pages 180]

Walks the seeded demo service with a Starter key (L = 60), starting as a window opens
(the local service aligns windows to multiples of W), for P pages. The bound ceil(P/L) * W
is what any client needs at best: P requests fit in no fewer windows. Targets: ratio <= 1.05
with 0 responses 429 (all would be avoidable: nothing else uses the key). For comparison, a
naive loop (bare httpx, waiting Retry-After only once refused) walks the same pages.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from collections.abc import Callable

import httpx

from channelkit import Client
from channelkit._spec import PLAN_LIMITS
from channelkit.service import LocalService

PAGE_SIZE = 10  # small pages: the demo's posts give enough of them


def at_window_start(window: float) -> None:
    time.sleep(window - time.time() % window + 0.01)


def paced_walk(base_url: str, key: str, pages: int) -> tuple[float, int]:
    with Client(base_url, key) as client:
        walk = client.raw_pages("/posts", limit=PAGE_SIZE)
        started = time.perf_counter()
        fetched = sum(1 for _ in itertools.islice(walk, pages))
        elapsed = time.perf_counter() - started
        assert fetched == pages, f"only {fetched} pages"
        return elapsed, client.stats.responses_429


def naive_walk(base_url: str, key: str, pages: int) -> tuple[float, int]:
    refused = 0
    cursor: str | None = None
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        started = time.perf_counter()
        for _ in range(pages):
            while True:
                params = {"limit": str(PAGE_SIZE), **({"cursor": cursor} if cursor else {})}
                response = http.get("/posts", params=params)
                if response.status_code != 429:
                    break
                refused += 1
                time.sleep(float(response.headers["retry-after"]))
            cursor = json.loads(response.content)["next_cursor"]
        return time.perf_counter() - started, refused


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate-window", type=float, nargs="+", default=[2.0, 5.0])
    parser.add_argument("--pages", type=int, default=180)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.rate_window, args.pages = [0.5], 70
    limit = PLAN_LIMITS["starter"]
    walks: dict[str, Callable[[str, str, int], tuple[float, int]]] = {
        "channelkit": paced_walk,
        "naive loop": naive_walk,
    }
    for window in args.rate_window:
        bound = math.ceil(args.pages / limit) * window
        with LocalService(seed="demo", rate_window=window) as service:
            for name, walk in walks.items():
                key = service.create_key(user="admin", team="comms", plan="starter")
                at_window_start(window)
                elapsed, refused = walk(service.base_url, key, args.pages)
                print(
                    f"W={window:g} s, L={limit}, P={args.pages}: bound {bound:.1f} s | "
                    f"{name:10s} {elapsed:6.2f} s  ratio {elapsed / bound:.3f}  429s {refused}"
                )


if __name__ == "__main__":
    main()
