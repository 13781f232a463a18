"""Latency and throughput of the local service on the demo workspace.

Starts `channelkit serve --seed demo` as a separate process (so the load client does not
share its interpreter), then measures, over keep-alive connections on loopback:

- median latency of `GET /posts?limit=100` and of `POST /posts` (one client, sequential),
  each also as a ratio to `GET /channels?limit=1`, the cheapest authenticated request,
  measured in the same run as the baseline;
- requests per second of `GET /posts?limit=100` from 8 concurrent client threads for 10 s,
  against the same load of the baseline request, and the server's CPU time per request
  (from /proc, so it does not depend on what else the machine is doing);
- how long the demo seed takes, in process, and from `serve` start to the printed base URL.

Run: `.venv/bin/python bench/service_latency.py`
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from channelkit.service.db import Database
from channelkit.service.demo import seed_demo

ROUNDS = 300
LOAD_SECONDS = 10.0
CONCURRENCY = 8


def start_demo() -> tuple[subprocess.Popen[str], str, str, float]:
    channelkit = Path(sys.executable).parent / "channelkit"
    started = time.perf_counter()
    proc = subprocess.Popen(
        # a 50 ms rate window: the 1000-requests-per-window limit must not cap the load
        [
            str(channelkit),
            "serve",
            "--seed",
            "demo",
            "--db",
            ":memory:",
            "--port",
            "0",
            "--rate-window",
            "0.05",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    base_url = proc.stdout.readline().split()[-1]
    seed_seconds = time.perf_counter() - started
    keys = dict(proc.stdout.readline().split() for _ in range(4))
    return proc, base_url, keys["admin"], seed_seconds


def median_ms(client: httpx.Client, request: httpx.Request, rounds: int = ROUNDS) -> float:
    timings = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.send(request)
        timings.append(time.perf_counter() - start)
        assert response.status_code < 300, response.text
    return statistics.median(timings) * 1000


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(base_url: str, key: str, path: str, pid: int) -> tuple[float, float]:
    """Requests/s of `path` from CONCURRENCY threads, each with its own keep-alive
    connection, for LOAD_SECONDS; and the server's CPU milliseconds per request."""
    counts: list[int] = []
    deadline = time.perf_counter() + LOAD_SECONDS

    def worker() -> None:
        done = 0
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as c:
            while time.perf_counter() < deadline:
                response = c.get(path)
                assert response.status_code == 200, response.text
                done += 1
        counts.append(done)

    cpu_before = cpu_seconds(pid)
    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    total = sum(counts)
    return total / elapsed, (cpu_seconds(pid) - cpu_before) * 1000 / total


def seed_in_process() -> float:
    db = Database.open(":memory:")
    started = time.perf_counter()
    with db.transaction() as con:
        seed_demo(con, db.now())
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def main() -> None:
    seed_only = seed_in_process()
    proc, base_url, key, seed_seconds = start_demo()
    try:
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base_url, headers=headers) as client:
            channel = client.get("/channels", params={"limit": 1}).json()["data"][0]["id"]
            baseline = median_ms(client, client.build_request("GET", "/channels?limit=1"))
            listing = median_ms(client, client.build_request("GET", "/posts?limit=100"))
            body = {"channel_id": channel, "title": "Bench", "body": "A **bench** post."}
            create = median_ms(client, client.build_request("POST", "/posts", json=body), 100)
        base_rate, base_cpu = load(base_url, key, "/channels?limit=1", proc.pid)
        rate, cpu = load(base_url, key, "/posts?limit=100", proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"demo seed, in process:             {seed_only:8.2f} s")
    print(f"demo seed, serve start to ready:   {seed_seconds:8.2f} s")
    print(f"GET /channels?limit=1 (baseline):  {baseline:8.2f} ms median")
    print(
        f"GET /posts?limit=100:              {listing:8.2f} ms median  ({listing / baseline:.1f}x)"
    )
    print(f"POST /posts:                       {create:8.2f} ms median  ({create / baseline:.1f}x)")
    print(f"{CONCURRENCY} concurrent clients, {LOAD_SECONDS:.0f} s each:")
    print(
        f"  GET /channels?limit=1 (baseline): {base_rate:6.0f} requests/s, "
        f"server CPU {base_cpu:.2f} ms/request"
    )
    print(f"  GET /posts?limit=100:             {rate:6.0f} requests/s ({rate / base_rate:.2f}x), "
          f"server CPU {cpu:.2f} ms/request")  # fmt: skip


if __name__ == "__main__":
    main()
