"""The calendar round trip's cost, as ratios to checking the same rows as a posts file.

Run: .venv/bin/python bench/publish_calendar.py

ROWS scheduled posts in two channels are exported; the baseline is the dry run of the same
rows as a plain posts spreadsheet (`Plan.check_against`: channel listing + one post listing
per channel). The calendar's dry run adds only what it needs to compare rows with posts
(the same listings: no read per row). Submitting EDITED changed rows costs one re-read and
one PATCH each; a second submit of the same file sends no write.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import pandas as pd
from _scheduled import schedule_posts

from channelkit.client import Client
from channelkit.publish import Plan, calendar_frame, load_calendar
from channelkit.publish.sheets.spreadsheet import read_sheet
from channelkit.service import LocalService

ROWS = 200
EDITED = 20
T = TypeVar("T")


def _timed(action: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    value = action()
    return value, time.perf_counter() - started


def main() -> None:
    with LocalService() as service:
        key = service.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=service.base_url, api_key=key) as client:
            first = schedule_posts(client, ROWS)
            folder = Path(tempfile.mkdtemp())
            frame = calendar_frame(
                client, start=first.date(), end=(first + timedelta(days=30)).date(), tz="UTC"
            )
            calendar_path = folder / "cal.csv"
            frame.to_csv(calendar_path, index=False)
            posts_path = folder / "posts.csv"
            plain = frame.rename(columns={"scheduled_at (UTC)": "scheduled_at"})
            plain[["channel", "title", "body", "tags", "priority", "scheduled_at"]].assign(
                title=lambda f: f["title"] + " (copy)"
            ).to_csv(posts_path, index=False)

            before = client.stats.requests
            _, baseline = _timed(
                lambda: Plan(read_sheet(posts_path), tz="UTC").check_against(client)
            )
            baseline_requests = client.stats.requests - before

            before = client.stats.requests
            calendar, dry = _timed(lambda: load_calendar(calendar_path).check_against(client))
            dry_requests = client.stats.requests - before
            assert calendar.counts() == {"unchanged": ROWS}, calendar.counts()

            edited = pd.read_csv(calendar_path, dtype=object)
            edited.loc[: EDITED - 1, "title"] = edited.loc[: EDITED - 1, "title"] + " (edited)"
            edited.to_csv(calendar_path, index=False)
            before = client.stats.requests
            result, submit = _timed(lambda: load_calendar(calendar_path).submit(client))
            submit_requests = client.stats.requests - before
            assert result.counts() == {"updated": EDITED, "unchanged": ROWS - EDITED}

            before = client.stats.requests
            again, rerun = _timed(lambda: load_calendar(calendar_path).submit(client))
            rerun_requests = client.stats.requests - before
            assert again.counts() == {"unchanged": ROWS}

    print(f"{ROWS} rows in 2 channels; {EDITED} edited")
    print(f"baseline (posts file dry run): {baseline:.2f} s, {baseline_requests} requests")
    print(
        f"calendar dry run: {dry:.2f} s ({dry / baseline:.2f}x), {dry_requests} requests "
        f"({dry_requests / baseline_requests:.2f}x)"
    )
    print(
        f"submit of {EDITED} edits: {submit:.2f} s ({submit / baseline:.2f}x), "
        f"{submit_requests} requests = dry run + {submit_requests - dry_requests} "
        f"(a re-read and a PATCH per edit: {2 * EDITED})"
    )
    print(
        f"second submit: {rerun:.2f} s ({rerun / baseline:.2f}x), {rerun_requests} requests, "
        "no write"
    )


if __name__ == "__main__":
    if "--small" in sys.argv[1:]:  # a run of a few seconds (the test suite runs it so)
        ROWS, EDITED = 20, 4
    main()
