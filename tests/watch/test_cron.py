"""Cron's five fields in a job's own zone, on the days the clocks change and across a year end.

Each expected instant is written as the local time and the offset the zone has then
(CET +1, CEST +2, EST -5, EDT -4), not computed by the code under test.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from channelkit.errors import InvalidParameterError
from channelkit.watch.config import load_watch
from channelkit.watch.cron import Cron


def _utc(y: int, m: int, d: int, hour: int, minute: int, offset: int) -> datetime:
    """The instant of local y-m-d hour:minute at UTC`offset`."""
    return datetime(y, m, d, hour, minute, tzinfo=UTC) - timedelta(hours=offset)


def _day(cron: str, tz: str, y: int, m: int, d: int) -> list[datetime]:
    start = datetime(y, m, d, tzinfo=UTC) - timedelta(hours=6)
    return Cron.parse(cron, ZoneInfo(tz)).slots(start, start + timedelta(hours=36))


def test_a_0230_job_runs_an_hour_on_when_the_clocks_skip_it() -> None:
    berlin = _day("30 2 * * *", "Europe/Berlin", 2027, 3, 28)
    assert _utc(2027, 3, 28, 3, 30, 2) in berlin  # 02:30 does not exist: 03:30 CEST
    assert berlin == [_utc(2027, 3, 28, 3, 30, 2), _utc(2027, 3, 29, 2, 30, 2)]
    new_york = _day("30 2 * * *", "America/New_York", 2027, 3, 14)
    assert _utc(2027, 3, 14, 3, 30, -4) in new_york


def test_a_time_that_happens_twice_runs_once_at_the_first() -> None:
    # Berlin repeats 02:00-03:00 on 31 October 2027; New York repeats 01:00-02:00 on 7 Nov
    berlin = _day("30 2 * * *", "Europe/Berlin", 2027, 10, 31)
    assert [t for t in berlin if t.date() == datetime(2027, 10, 31).date()] == [
        _utc(2027, 10, 31, 2, 30, 2)
    ]
    new_york = _day("30 1 * * *", "America/New_York", 2027, 11, 7)
    assert [
        t for t in new_york if _utc(2027, 11, 7, 0, 0, -4) <= t < _utc(2027, 11, 8, 0, 0, -5)
    ] == [_utc(2027, 11, 7, 1, 30, -4)]


def test_a_job_with_star_for_its_hour_runs_by_the_wall_clock() -> None:
    spring = Cron.parse("0 * * * *", ZoneInfo("Europe/Berlin")).slots(
        _utc(2027, 3, 28, 0, 0, 1), _utc(2027, 3, 29, 0, 0, 2)
    )
    assert len(spring) == 23  # no 02:00 that day
    autumn = Cron.parse("0 * * * *", ZoneInfo("Europe/Berlin")).slots(
        _utc(2027, 10, 31, 0, 0, 2), _utc(2027, 11, 1, 0, 0, 1)
    )
    assert len(autumn) == 25  # both 02:00s
    assert _utc(2027, 10, 31, 2, 0, 2) in autumn and _utc(2027, 10, 31, 2, 0, 1) in autumn


def test_a_weekly_job_across_a_year_end_and_its_last_time() -> None:
    monday = Cron.parse("0 8 * * mon", ZoneInfo("Europe/Berlin"))
    found = monday.slots(datetime(2026, 12, 20, tzinfo=UTC), datetime(2027, 1, 12, tzinfo=UTC))
    assert found == [_utc(2026, 12, 21, 8, 0, 1), _utc(2026, 12, 28, 8, 0, 1),
                     _utc(2027, 1, 4, 8, 0, 1), _utc(2027, 1, 11, 8, 0, 1)]  # fmt: skip
    assert monday.last_slot(_utc(2027, 1, 4, 7, 59, 1)) == _utc(2026, 12, 28, 8, 0, 1)
    assert monday.last_slot(_utc(2027, 1, 4, 8, 0, 1)) == _utc(2027, 1, 4, 8, 0, 1)


def test_day_of_month_and_weekday_both_given_means_either() -> None:
    both = Cron.parse("0 12 1 * 1", ZoneInfo("UTC")).slots(
        datetime(2027, 2, 1, tzinfo=UTC), datetime(2027, 2, 16, tzinfo=UTC)
    )
    # 1 February 2027 is a Monday; then Mondays 8 and 15
    assert [t.day for t in both] == [1, 8, 15]
    steps = Cron.parse("*/20 9-10 * jan-dec *", ZoneInfo("UTC")).slots(
        datetime(2027, 2, 1, tzinfo=UTC), datetime(2027, 2, 2, tzinfo=UTC)
    )
    assert [(t.hour, t.minute) for t in steps] == [(h, m) for h in (9, 10) for m in (0, 20, 40)]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0 * * *", "expected 5 fields"),
        ("60 * * * *", "minute: '60' is outside 0-59"),
        ("0 5-2 * * *", "hour: '5-2' is outside"),
        ("0 * * * funday", "day of week: 'funday' is not a number"),
        ("*/0 * * * *", "minute: step '0' must be 1 or more"),
    ],
)
def test_a_bad_expression_is_refused_naming_its_field(text: str, said: str) -> None:
    with pytest.raises(InvalidParameterError, match=said.replace("(", r"\(")):
        Cron.parse(text, ZoneInfo("UTC"))


def test_a_zone_named_in_any_case_in_the_watch_file_is_the_jobs_zone(tmp_path: Path) -> None:
    # The file is the edge: its `tz` is resolved there, once, and the job's cron carries the
    # ZoneInfo (ZoneInfo("europe/berlin") itself raises: zone names are case-sensitive files).
    watch = tmp_path / "watch.toml"
    job = '[[jobs]]\nname = "sync"\ncron = "0 8 * * *"\ntz = "europe/berlin"\n'
    hook = 'alert = { webhooks = [{ url = "http://127.0.0.1:9/h", kind = "json" }] }\n'
    watch.write_text(f'[watch]\ndb = "warehouse.duckdb"\n{hook}{job}', encoding="utf-8")
    cron = load_watch(watch, env={}).jobs[0].cron
    assert cron is not None and cron.tz == ZoneInfo("Europe/Berlin")
    day = datetime(2027, 1, 4, tzinfo=UTC)
    assert cron.slots(day, day + timedelta(days=1)) == [datetime(2027, 1, 4, 7, tzinfo=UTC)]
