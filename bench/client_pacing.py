"""Pacing: time to walk P pages under a plan limit L per window W, against ceil(P/L) * W.

    .venv/bin/python bench/client_pacing.py [--rate-window 2] [--page-size 20]

Walks the seeded demo service with a Starter key (L = 60) and a short window, once per
window length given. The bound ceil(P/L) * W is what any client needs at best: P requests
fit in no fewer windows. Targets: ratio <= 1.05 with 0 responses 429 (all would be
avoidable: nothing else uses the key). For comparison, a naive loop (bare httpx, waiting
Retry-After only once refused) walks the same pages on a fresh key.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import httpx

from channelkit import Client
from channelkit._constants import PLAN_LIMITS
from channelkit.service import LocalService


def paced_walk(service: LocalService, key: str, page_size: int) -> tuple[float, int, int]:
    with Client(service.base_url, key) as client:
        started = time.perf_counter()
        pages = sum(1 for _ in client.raw_pages("/posts", limit=page_size))
        return time.perf_counter() - started, pages, client.stats.responses_429


def naive_walk(service: LocalService, key: str, page_size: int) -> tuple[float, int, int]:
    headers = {"Authorization": f"Bearer {key}"}
    refused = pages = 0
    cursor: str | None = None
    with httpx.Client(base_url=service.base_url, headers=headers) as http:
        started = time.perf_counter()
        while True:
            params = {"limit": str(page_size), **({"cursor": cursor} if cursor else {})}
            response = http.get("/posts", params=params)
            if response.status_code == 429:
                refused += 1
                time.sleep(float(response.headers["retry-after"]))
                continue
            pages += 1
            page = json.loads(response.content)
            cursor = page["next_cursor"]
            if not page["has_more"]:
                return time.perf_counter() - started, pages, refused


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate-window", type=float, nargs="+", default=[2.0, 5.0])
    parser.add_argument("--page-size", type=int, default=20)
    args = parser.parse_args()
    limit = PLAN_LIMITS["starter"]
    for window in args.rate_window:
        with LocalService(seed="demo", rate_window=window) as service:

            def key() -> str:
                return service.create_key(user="admin", team="comms", plan="starter")

            elapsed, pages, refused = paced_walk(service, key(), args.page_size)
            bound = math.ceil(pages / limit) * window
            naive_elapsed, _, naive_refused = naive_walk(service, key(), args.page_size)
        print(
            f"W={window:g} s, L={limit}, P={pages} pages: bound {bound:.1f} s | channelkit "
            f"{elapsed:.2f} s, ratio {elapsed / bound:.3f}, 429s {refused} | naive loop "
            f"{naive_elapsed:.2f} s, ratio {naive_elapsed / bound:.3f}, 429s {naive_refused}"
        )


if __name__ == "__main__":
    main()
