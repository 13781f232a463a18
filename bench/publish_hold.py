"""Holding and releasing every scheduled post, as ratios to the hand-made way it replaces.

Run: .venv/bin/python bench/publish_hold.py

ROWS scheduled posts in two channels. The baseline is what a comms lead did by hand before
`channelkit hold`: a calendar export and every row set to cancel, submitted (one listing per
channel, then a re-read and a PATCH per post), with no record of the times. `hold` lists
the posts once, then reads and PATCHes each (its version for If-Match, and the record
written before the move); `release` the same; a second release only lists.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

from _scheduled import schedule_posts

from channelkit.client import Client
from channelkit.publish import calendar_frame, load_calendar
from channelkit.publish.hold.holding import hold, release
from channelkit.service import LocalService

ROWS = 200
T = TypeVar("T")


def _measured(service: LocalService, action: Callable[[Client], T]) -> tuple[T, int, float]:
    """`action` with a client of its own key: each step has its own rate-limit budget, so
    the figures are the work, not the wait for another step's window."""
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=service.base_url, api_key=key) as client:
        started = time.perf_counter()
        value = action(client)
        return value, client.stats.requests, time.perf_counter() - started


def _schedule(client: Client) -> datetime:
    return schedule_posts(client, ROWS)


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    ledger = str(folder / "ledger.sqlite3")

    def by_hand(client: Client) -> None:
        first = datetime.now(UTC) + timedelta(days=1)
        end = (first + timedelta(days=30)).date()
        frame = calendar_frame(client, start=first.date(), end=end, tz="UTC")
        frame["action"] = "cancel"
        path = folder / "cal.csv"
        frame.to_csv(path, index=False)
        load_calendar(path, tz="UTC").check_against(client).submit(client)

    with LocalService() as service:
        _measured(service, _schedule)
        _, base_requests, base_seconds = _measured(service, by_hand)
    with LocalService() as service:
        _measured(service, _schedule)
        held, hold_requests, hold_seconds = _measured(service, lambda c: hold(c, ledger=ledger))
        back, release_requests, release_seconds = _measured(
            service, lambda c: release(c, ledger=ledger)
        )
        again, again_requests, again_seconds = _measured(
            service, lambda c: release(c, ledger=ledger)
        )
    assert len(held.held) == ROWS and len(back.released) == ROWS and not again.released
    print(f"{ROWS} scheduled posts in 2 channels; baseline: calendar export + cancel every row")
    print(f"baseline      {base_requests:4d} requests  {base_seconds:6.2f} s")
    for name, requests, seconds in (
        ("hold", hold_requests, hold_seconds),
        ("release", release_requests, release_seconds),
        ("release again", again_requests, again_seconds),
    ):
        print(
            f"{name:13s} {requests:4d} requests  {seconds:6.2f} s  "
            f"({requests / base_requests:.2f}x requests, {seconds / base_seconds:.2f}x time)"
        )


if __name__ == "__main__":
    main()
