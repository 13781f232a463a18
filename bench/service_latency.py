"""Latency and throughput of the local service on the demo workspace, and an A/B against an
older commit of the service run side by side on the same machine.

Starts `channelkit serve --seed demo` as separate processes (so the load client does not
share their interpreter), then measures, over keep-alive connections on loopback:

- median latency of `GET /posts?limit=100` and of `POST /posts` (one client, sequential),
  each also as a ratio to `GET /channels?limit=1`, the cheapest authenticated request,
  measured in the same run as the baseline;
- requests per second and p50/p99 latency of `GET /posts?limit=100` from 20 concurrent
  readers, and the server's CPU time per request (from /proc, so it does not depend on
  what else the machine is doing);
- the A/B: this tree's service against commit 2f07f9b (before the handler-table refactor,
  checked out with `git worktree add --detach /tmp/channelkit-svc-2f07f9b 2f07f9b` when
  missing), both started now and loaded in alternating rounds, so a busy machine slows
  both alike; the figures that matter are the ratios;
- where the time of a read goes: the same `GET /posts?limit=100` served in process (the
  app over httpx's ASGI transport, uvicorn's HTTP parsing left out) under cProfile, its
  own CPU time summed by kind of work (SQL, the JSON body, cursor signing, routing and the
  rate-limit gate, ...) as shares of the whole;
- how long the demo seed takes, in process, and from `serve` start to the printed base URL.

Run: `.venv/bin/python bench/service_latency.py [--small] [--old DIR] [--no-ab]`
(`--small`: a few seconds, for the test suite; no A/B unless `--old` is given).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from channelkit import _spec
from channelkit.service.app import Settings, create_app
from channelkit.service.db import Database
from channelkit.service.demo_workspace import seed_demo

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "2f07f9b"
OLD_TREE = Path("/tmp/channelkit-svc-2f07f9b")
READ_PATH = "/posts?limit=100"


@dataclass(frozen=True)
class Size:
    rounds: int  # sequential requests per latency median (and profiled in process)
    load_seconds: float  # per load round
    ab_rounds: int  # alternating rounds of the A/B
    readers: int


FULL = Size(rounds=300, load_seconds=8.0, ab_rounds=3, readers=20)
SMALL = Size(rounds=20, load_seconds=1.0, ab_rounds=1, readers=4)


@dataclass
class Service:
    name: str
    proc: subprocess.Popen[str]
    base_url: str
    key: str


def start_demo(name: str, src: Path) -> tuple[Service, float]:
    """`serve --seed demo` from the package in `src`; the time until its URL is printed."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        # a 50 ms rate window: the 1000-requests-per-window limit must not cap the load
        [sys.executable, "-m", "channelkit", "serve", "--seed", "demo", "--db", ":memory:",
         "--port", "0", "--rate-window", "0.05"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    base_url = proc.stdout.readline().split()[-1]
    seconds = time.perf_counter() - started
    key = None
    while key is None:  # the key table's layout differs between versions; the row starts
        words = proc.stdout.readline().split()  # with the key's name and ends with the key
        if not words and proc.poll() is not None:
            raise RuntimeError(f"{name}: serve printed no admin key")
        if words and words[0] == "admin" and words[-1].startswith("ck_"):
            key = words[-1]
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # never block its prints
    return Service(name, proc, base_url, key), seconds


def median_ms(client: httpx.Client, request: httpx.Request, rounds: int) -> float:
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


@dataclass(frozen=True)
class Load:
    rate: float  # requests/s
    p50_ms: float
    p99_ms: float
    cpu_ms: float  # server CPU per request


def load(service: Service, path: str, size: Size) -> Load:
    """`size.readers` threads, each with its own keep-alive connection, for
    `size.load_seconds` (counted from when every reader has its client)."""
    timings: list[float] = []
    headers = {"Authorization": f"Bearer {service.key}"}
    ready = threading.Barrier(size.readers + 1)
    window: list[float] = []

    def reader() -> None:
        mine = []
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=30) as client:
            ready.wait()
            while (start := time.perf_counter()) < window[0]:
                response = client.get(path)
                mine.append(time.perf_counter() - start)
                assert response.status_code == 200, response.text
        timings.extend(mine)

    threads = [threading.Thread(target=reader) for _ in range(size.readers)]
    for thread in threads:
        thread.start()
    cpu_before = cpu_seconds(service.proc.pid)
    started = time.perf_counter()
    window.append(started + size.load_seconds)
    ready.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(service.proc.pid) - cpu_before
    timings.sort()
    p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
    return Load(
        len(timings) / elapsed,
        statistics.median(timings) * 1000,
        p99 * 1000,
        cpu * 1000 / len(timings),
    )


def seed_in_process() -> float:
    db = Database.open(":memory:")
    started = time.perf_counter()
    with db.transaction() as con:
        seed_demo(con, db.now())
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def old_tree(path: Path | None) -> Path:
    """The checkout of OLD_COMMIT, made as a detached worktree when missing."""
    tree = path or OLD_TREE
    if not (tree / "src" / "channelkit").is_dir():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), OLD_COMMIT],
            check=True,
            capture_output=True,
        )
    return tree


def latencies(service: Service, size: Size) -> None:
    headers = {"Authorization": f"Bearer {service.key}"}
    with httpx.Client(base_url=service.base_url, headers=headers) as client:
        channel = client.get("/channels", params={"limit": 1}).json()["data"][0]["id"]
        baseline = median_ms(client, client.build_request("GET", "/channels?limit=1"), size.rounds)
        listing = median_ms(client, client.build_request("GET", READ_PATH), size.rounds)
        body = {"channel_id": channel, "title": "Bench", "body": "A **bench** post."}
        create = median_ms(
            client, client.build_request("POST", "/posts", json=body), max(10, size.rounds // 3)
        )
    print(f"GET /channels?limit=1 (baseline):  {baseline:8.2f} ms median")
    print(f"GET {READ_PATH}:              {listing:8.2f} ms median  ({listing / baseline:.1f}x)")
    print(f"POST /posts:                       {create:8.2f} ms median  ({create / baseline:.1f}x)")
    base = load(service, "/channels?limit=1", size)
    read = load(service, READ_PATH, size)
    print(f"{size.readers} concurrent readers, {size.load_seconds:g} s each:")
    print(f"  GET /channels?limit=1 (baseline): {base.rate:6.0f} requests/s, "
          f"server CPU {base.cpu_ms:.2f} ms/request")  # fmt: skip
    print(f"  GET {READ_PATH}:             {read.rate:6.0f} requests/s "
          f"({read.rate / base.rate:.2f}x), server CPU {read.cpu_ms:.2f} ms/request")  # fmt: skip


def ab(new: Service, old: Service, size: Size) -> None:
    """Alternating rounds of the same read load on both services."""
    results: dict[str, list[Load]] = {new.name: [], old.name: []}
    for _ in range(size.ab_rounds):
        for service in (old, new):
            results[service.name].append(load(service, READ_PATH, size))
    print(f"A/B, GET {READ_PATH}, {size.readers} readers, {size.ab_rounds} alternating rounds "
          f"of {size.load_seconds:g} s:")  # fmt: skip
    for name, rounds in results.items():
        rates = ", ".join(f"{r.rate:.0f}" for r in rounds)
        p99s = ", ".join(f"{r.p99_ms:.0f}" for r in rounds)
        cpu = statistics.median(r.cpu_ms for r in rounds)
        print(f"  {name:>16}: {rates} requests/s; p99 {p99s} ms; server CPU {cpu:.2f} ms/request")
    mid = {name: statistics.median(r.rate for r in rounds) for name, rounds in results.items()}
    cpu = {name: statistics.median(r.cpu_ms for r in rounds) for name, rounds in results.items()}
    print(f"  this tree / {OLD_COMMIT}: throughput {mid[new.name] / mid[old.name]:.2f}x, "
          f"server CPU per request {cpu[new.name] / cpu[old.name]:.2f}x")  # fmt: skip


# Where a function's own time goes, by the file or builtin it belongs to; first match wins.
KINDS = (
    ("SQL (sqlite3)", ("sqlite3.", "service/db.py")),
    ("page body (JSON, text)", ("json/", "'dumps'", "timefmt.py", "'encode' of 'str'", "'join'")),
    ("cursor signing", ("hmac", "hashlib", "base64", "service/cursor.py")),
    ("keys, visibility, rate limit", ("gate.py", "ratelimit.py", "workspace.py")),
    ("handlers, query parameters", ("service/posts.py", "params.py", "app.py", "urllib/")),
    ("Starlette routing, responses", ("starlette", "asyncio", "anyio", "contextlib")),
)


def where_the_time_goes(size: Size) -> None:
    """Serve READ_PATH in process under cProfile; print each kind's share of own CPU time.

    The app is called as an ASGI app directly (no HTTP client in the profile), so every
    share is the service's own work; uvicorn's HTTP parsing is the part left out."""
    db = Database.open(":memory:")
    with db.transaction() as con:
        key = seed_demo(con, db.now())["admin"]
    app = create_app(db, Settings(rate_window=0.05))
    path, _, query = f"{_spec.API_VERSION_SEGMENT}{READ_PATH}".partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
        "query_string": query.encode(), "client": ("127.0.0.1", 1), "server": ("bench", 80),
        "headers": [(b"host", b"bench"), (b"authorization", f"Bearer {key}".encode())],
    }  # fmt: skip

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def get() -> None:
        started: list[dict[str, object]] = []

        async def send(message: dict[str, object]) -> None:
            if message["type"] == "http.response.start":
                started.append(message)

        await app(dict(scope), receive, send)  # type: ignore[arg-type]
        assert started[0]["status"] == 200, started

    async def serve(profile: cProfile.Profile) -> None:
        await get()  # warm-up: first-use costs are not the steady state
        profile.enable()
        for _ in range(size.rounds):
            await get()
        profile.disable()

    profile = cProfile.Profile(time.process_time)  # CPU time: the machine's load does not count
    asyncio.run(serve(profile))
    db.close()
    shares: dict[str, float] = {}
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (filename, _line, function), (_calls, _n, own, _cum, _callers) in stats.items():
        where = f"{filename} '{function}'"
        kind = next((k for k, marks in KINDS if any(m in where for m in marks)), "other (builtins)")
        shares[kind] = shares.get(kind, 0.0) + own
    total = sum(shares.values())
    print(f"where the time of GET {READ_PATH} goes (in process, {size.rounds} requests, "
          f"{total / size.rounds * 1000:.2f} ms CPU each under the profiler):")  # fmt: skip
    for kind, own in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"  {kind:<28} {own / total:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a quick run (the test suite's)")
    parser.add_argument("--old", type=Path, help=f"a checkout of {OLD_COMMIT} for the A/B")
    parser.add_argument("--no-ab", action="store_true", help="measure this tree only")
    args = parser.parse_args()
    size = SMALL if args.small else FULL
    with_ab = not args.no_ab and (args.old is not None or not args.small)
    print(f"demo seed, in process:             {seed_in_process():8.2f} s")
    services: list[Service] = []
    try:
        new, seconds = start_demo("this tree", ROOT / "src")
        services.append(new)
        print(f"demo seed, serve start to ready:   {seconds:8.2f} s")
        if with_ab:
            old, _ = start_demo(OLD_COMMIT, old_tree(args.old) / "src")
            services.append(old)
        latencies(new, size)
        where_the_time_goes(size)
        if with_ab:
            ab(new, old, size)
    finally:
        for service in services:
            service.proc.terminate()
            service.proc.wait(timeout=10)


if __name__ == "__main__":
    main()
