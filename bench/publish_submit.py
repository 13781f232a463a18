"""Submission time under a plan's rate limit, as a ratio to the rate-limit bound.

Run: .venv/bin/python bench/publish_submit.py

A Starter key (60 requests per window) with a 2-second window stands in for the real
60-second one. The plan submits ROWS posts; the requests it needs (channel listing, the
duplicate check's post listing, one create per row) are counted by the client. The bound is
ceil(requests / limit) windows, the time the rate limit allows for that many requests
(target: elapsed <= 1.05x the bound, with no 429 answered).
"""

from __future__ import annotations

import math
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
    header = "channel,title,body,scheduled_at,timezone\n"
    start = datetime(2030, 1, 7, 8, 0)
    lines = [
        f"all-hands,Post {i},Body {i},{start + timedelta(hours=i):%Y-%m-%d %H:%M},UTC\n"
        for i in range(ROWS)
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
    assert result.counts() == {"created": ROWS}, result.counts()
    requests = stats.requests
    bound = math.ceil(requests / limit) * WINDOW
    print(f"plan {PLAN}: {limit} requests per {WINDOW:g} s window; {ROWS} rows")
    print(f"requests: {requests} ({stats.responses_429} answered 429, {stats.retries} retries)")
    print(f"elapsed: {elapsed:.2f} s; rate-limit bound ceil({requests}/{limit}) x {WINDOW:g} s")
    print(f"= {bound:.2f} s; ratio {elapsed / bound:.3f} (target <= 1.05)")
    # Fixed windows let the last batch go at the start of its window: a stricter bound.
    strict = (math.ceil(requests / limit) - 1) * WINDOW
    print(f"strict bound (one window less) {strict:.2f} s; ratio {elapsed / strict:.3f}")


if __name__ == "__main__":
    main()
