"""Clock changes in the numbers (issue 35): a local day of 23 or 25 hours holds what
happened in it, and hourly best times stay at their local hour across the change.

Europe changes its clocks on Sunday 28 March and Sunday 31 October 2027, the US on
14 March and 7 November 2027.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
import time_machine

import channelkit as ck
from channelkit.analysis.timing import SOME_BETTER
from fixtures import equal_rates

SPRING = date(2027, 3, 28)
AUTUMN = date(2027, 10, 31)


def test_a_planted_nine_o_clock_stays_at_nine_across_the_change(tmp_path: Path) -> None:
    # 09:05 Berlin time on working days from 1 March to mid-April 2027: 08:05 UTC before
    # 28 March, 07:05 UTC after it. The planted hour is 09:00 local throughout.
    frame = equal_rates.posts(1, planted=1.23)
    synced = datetime(2027, 5, 3, 6, tzinfo=UTC)
    path = equal_rates.build(
        tmp_path / "spring.duckdb", frame, first_day=date(2027, 3, 1), zone="Europe/Berlin",
        synced=synced,
    )  # fmt: skip
    with time_machine.travel(synced, tick=False):
        best = ck.Warehouse(path).best_times(period="all time", tz="Europe/Berlin")
    assert best.attrs["verdict"] == SOME_BETTER
    assert best.loc[0, "hour"] == 9 and bool(best.loc[0, "distinct"])
    # Every 09:05 post is in the 9 o'clock slot, before and after the change.
    days = frame["day"].to_numpy()
    assert (days < (SPRING - date(2027, 3, 1)).days).any()
    assert (days > (SPRING - date(2027, 3, 1)).days).any()
    assert best.loc[best["hour"] == 9, "posts"].sum() == (frame["hour"] == 9).sum()


@pytest.mark.parametrize(
    ("zone", "day"),
    [
        ("Europe/Berlin", SPRING),  # 23 hours
        ("Europe/Berlin", AUTUMN),  # 25 hours
        ("America/New_York", date(2027, 3, 14)),
        ("America/New_York", date(2027, 11, 7)),
    ],
)
def test_a_short_or_long_local_day_holds_the_posts_published_in_it(
    tmp_path: Path, zone: str, day: date
) -> None:
    # Posts at 00:05, 12:05 and 23:05 local time on the days around the change: a day
    # bounded at the wrong offset (or at UTC midnight) would gain or lose one of them.
    first = day - timedelta(days=3)
    frame = pd.DataFrame(
        [
            {"post_id": f"p{d}{h:02d}", "channel_id": "ch01", "audience": 100, "day": d,
             "hour": h, "tag": "news", "readers": 50}
            for d in range(7)
            for h in (0, 12, 23)
        ]
    )  # fmt: skip
    synced = datetime.combine(day + timedelta(days=10), datetime.min.time(), UTC)
    path = equal_rates.build(
        tmp_path / "edges.duckdb", frame, first_day=first, zone=zone, synced=synced
    )
    wh = ck.Warehouse(path)
    for offset in (2, 3, 4):  # the day before, the day itself, the day after
        one = first + timedelta(days=offset)
        expected = sorted(f"p{offset}{h:02d}" for h in (0, 12, 23))
        assert sorted(wh.posts(period=one.isoformat(), tz=zone)["id"]) == expected, one
    # The day is really 23 or 25 hours long (between its two local midnights in UTC).
    midnights = [
        datetime.combine(d, datetime.min.time(), ZoneInfo(zone)).astimezone(UTC)
        for d in (day, day + timedelta(days=1))
    ]
    assert (midnights[1] - midnights[0]) / timedelta(hours=1) in (23, 25)
