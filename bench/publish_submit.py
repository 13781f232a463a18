"""Submission time under a plan's rate limit, as a ratio to the rate-limit bound.

Run: .venv/bin/python bench/publish_submit.py [--small]

The sent-posts ledger is on, as for users (a fresh file in a temporary folder, so that
every run creates its rows): each row is recorded pending before it is sent and created
after. `--small` sends 30 rows (a quick check that the bench runs); `--rows 10000` the
large case (about six minutes on a Starter key).

A Starter key (60 requests per window) with a 2-second window stands in for the real
60-second one. The plan submits ROWS posts; the requests it needs (channel listing, the
duplicate check's post listing, one create per row) are counted by the client. The bound is
ceil(requests / limit) windows, the time the rate limit allows for that many requests
(target: elapsed <= 1.05x the bound, with no 429 answered).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from datetime import datetime, timedelta

from channelkit._spec import PLAN_LIMITS
from channelkit.client import Client
from channelkit.publish import load_spreadsheet
from channelkit.service import LocalService

ROWS = 200
WINDOW = 2.0
PLAN = "starter"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="30 rows: a quick run")
    parser.add_argument("--rows", type=int, default=ROWS, help=f"rows to send (default {ROWS})")
    arguments = parser.parse_args()
    rows = 30 if arguments.small else arguments.rows
    with tempfile.TemporaryDirectory(prefix="channelkit-bench-") as folder:
        os.environ["CHANNELKIT_LEDGER"] = os.path.join(folder, "ledger.sqlite3")
        run(rows)


def run(rows: int) -> None:
    header = "channel,title,body,scheduled_at,timezone\n"
    start = datetime(2030, 1, 7, 8, 0)
    lines = [
        f"all-hands,Post {i},Body {i},{start + timedelta(hours=i):%Y-%m-%d %H:%M},UTC\n"
        for i in range(rows)
    ]
    data = (header + "".join(lines)).encode()
    limit = PLAN_LIMITS[PLAN]
    with LocalService(rate_window=WINDOW) as service:
        admin = service.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=service.base_url, api_key=admin) as client:
            client.channels.create(name="All hands")
        key = service.create_key(user="admin", team="comms", plan=PLAN)
        with Client(base_url=service.base_url, api_key=key) as client:
            plan = load_spreadsheet(data, filename="bench.csv")
            started = time.perf_counter()
            result = plan.submit(client, progress=False)
            elapsed = time.perf_counter() - started
            stats = client.stats
    assert result.counts() == {"created": rows}, result.counts()
    requests = stats.requests
    bound = math.ceil(requests / limit) * WINDOW
    print(
        f"plan {PLAN}: {limit} requests per {WINDOW:g} s window; {rows} rows (sent-posts ledger on)"
    )
    print(f"requests: {requests} ({stats.responses_429} answered 429, {stats.retries} retries)")
    print(f"elapsed: {elapsed:.2f} s; rate-limit bound ceil({requests}/{limit}) x {WINDOW:g} s")
    print(f"= {bound:.2f} s; ratio {elapsed / bound:.3f} (target <= 1.05)")
    # Fixed windows let the last batch go at the start of its window: a stricter bound.
    strict = (math.ceil(requests / limit) - 1) * WINDOW
    if strict:  # one window in all (--small) has no stricter bound
        print(f"strict bound (one window less) {strict:.2f} s; ratio {elapsed / strict:.3f}")


if __name__ == "__main__":
    main()
