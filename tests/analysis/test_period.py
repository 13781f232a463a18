"""Resolving start/end/tz into a Period: local dates, DST, daily-row bounds and labels."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from channelkit.analysis.period import Period
from channelkit.errors import InvalidParameterError


def test_dates_are_local_midnights() -> None:
    p = Period.resolve(date(2026, 3, 23), "2026-03-30", ZoneInfo("Europe/Berlin"))
    assert p.start is not None and p.end is not None
    assert p.start.astimezone(UTC) == datetime(2026, 3, 22, 23, tzinfo=UTC)
    assert p.end.astimezone(UTC) == datetime(2026, 3, 29, 22, tzinfo=UTC)  # CEST
    assert (p.start_day, p.end_day) == (date(2026, 3, 23), date(2026, 3, 30))
    assert p.label == "2026-03-23 to 2026-03-29 (Europe/Berlin)"


def test_previous_period_has_the_same_local_length_across_dst() -> None:
    p = Period.resolve("2026-03-30", "2026-04-06", ZoneInfo("Europe/Berlin"))
    prev = p.previous()
    assert (prev.start_day, prev.end_day) == (date(2026, 3, 23), date(2026, 3, 30))
    assert prev.start is not None and prev.end is not None
    # A week that contains the switch to summer time lasts 167 hours.
    assert prev.end.astimezone(UTC) - prev.start.astimezone(UTC) == timedelta(hours=167)


def test_naive_and_aware_datetimes() -> None:
    naive = Period.resolve(datetime(2026, 3, 23, 12), None, ZoneInfo("Europe/Berlin"))
    assert naive.start is not None
    assert naive.start.astimezone(UTC) == datetime(2026, 3, 23, 11, tzinfo=UTC)
    assert naive.start_day == date(2026, 3, 24)  # the 23rd began before the period
    aware = Period.resolve("2026-03-23T00:00:00+00:00", None, ZoneInfo("Europe/Berlin"))
    assert aware.start is not None and aware.start.hour == 1
    assert aware.label == "from 2026-03-23 01:00 (Europe/Berlin)"


def test_labels() -> None:
    assert Period.resolve(None, None, ZoneInfo("UTC")).label == "all time (UTC)"
    assert Period.resolve("2026-03-01", "2026-03-02", ZoneInfo("UTC")).label == "2026-03-01 (UTC)"
    assert Period.resolve(None, "2026-03-02", ZoneInfo("UTC")).label == "until 2026-03-01 (UTC)"


@pytest.mark.parametrize(
    ("start", "end", "tz", "param"),
    [
        ("2026-03-30", "2026-03-23", ZoneInfo("UTC"), "end"),
        ("2026-03-30", "2026-03-30", ZoneInfo("UTC"), "end"),
        ("yesterday", None, ZoneInfo("UTC"), "start"),
        (None, "2026-13-01", ZoneInfo("UTC"), "end"),
        (20260301, None, ZoneInfo("UTC"), "start"),
    ],
)
def test_bad_values_name_the_parameter(
    start: object, end: object, tz: ZoneInfo, param: str
) -> None:
    with pytest.raises(InvalidParameterError) as info:
        Period.resolve(start, end, tz)  # type: ignore[arg-type]
    assert info.value.param == param
    assert str(info.value).startswith(f"{param}: ")
    assert isinstance(info.value, ValueError)


def test_previous_needs_both_ends() -> None:
    with pytest.raises(InvalidParameterError, match="start"):
        Period.resolve("2026-03-01", None, ZoneInfo("UTC")).previous()
