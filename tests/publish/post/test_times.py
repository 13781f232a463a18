"""Time reading: no wall time is ever silently moved, whatever the zone and date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channelkit.errors import TimeError
from channelkit.publish.post.times import (
    combine_date_time,
    excel_serial_to_datetime,
    localize,
    parse_when,
)

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"]
naive_times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31))


@settings(max_examples=400, deadline=None)
@given(naive=naive_times, zone=st.sampled_from(ZONES))
def test_localize_keeps_the_wall_time_or_refuses(naive: datetime, zone: str) -> None:
    try:
        moment = localize(naive, ZoneInfo(zone))
    except TimeError as exc:
        assert "does not exist" in str(exc) or "happens twice" in str(exc)
        return
    assert moment.tzinfo is UTC
    # Fractions of a second are dropped (the service keeps whole seconds).
    assert moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None) == naive.replace(microsecond=0)


@settings(max_examples=200, deadline=None)
@given(naive=naive_times.map(lambda d: d.replace(microsecond=0)), zone=st.sampled_from(ZONES))
def test_text_with_offset_round_trips(naive: datetime, zone: str) -> None:
    aware = naive.replace(tzinfo=ZoneInfo(zone))
    assert parse_when(aware.isoformat(), tz=None) == aware.astimezone(UTC)


@pytest.mark.parametrize(
    ("serial", "expected"),
    [
        (46357, datetime(2026, 12, 1)),
        (46357.375, datetime(2026, 12, 1, 9, 0)),
        (46357.999988426, datetime(2026, 12, 1, 23, 59, 59)),  # float noise rounds
    ],
)
def test_excel_serials(serial: float, expected: datetime) -> None:
    assert excel_serial_to_datetime(serial) == expected


def test_lord_howe_half_hour_shift_and_combined_columns() -> None:
    # Lord Howe moves its clocks by 30 minutes: 02:00-02:30 is skipped on 2030-10-06.
    with pytest.raises(TimeError, match="does not exist in Australia/Lord_Howe"):
        localize(datetime(2030, 10, 6, 2, 15), ZoneInfo("Australia/Lord_Howe"))
    moment = combine_date_time("2030-10-06", "02:30", tz=ZoneInfo("Australia/Lord_Howe"))
    assert moment == datetime(2030, 10, 6, 2, 30, tzinfo=ZoneInfo("Australia/Lord_Howe"))
    assert moment - combine_date_time(
        "2030-10-06", "01:59", tz=ZoneInfo("Australia/Lord_Howe")
    ) == timedelta(minutes=1)


@pytest.mark.parametrize(
    "value",
    [
        "2026-12-28 09:00:30.5",
        "2026-12-28T09:00:30.999999",
        "2026-12-28 09:00:30.123456789",
        datetime(2026, 12, 28, 9, 0, 30, 500_000),
        46384.37535301,  # an Excel time with milliseconds (a pasted =NOW() value)
    ],
)
def test_fractions_of_a_second_are_dropped_first(value: object) -> None:
    moment = parse_when(value, tz=ZoneInfo("UTC"))
    assert moment == datetime(2026, 12, 28, 9, 0, 30, tzinfo=UTC) and moment.microsecond == 0
    assert combine_date_time("2026-12-28", "09:00:30.75", tz=ZoneInfo("UTC")) == moment


HOSTILE_TIMES = [
    "2026-12-01 09:00+24:00",
    "2026-12-01 09:00+99:99",
    "2026-12-01 09:00-18:01",
    "2026-12-01 09:00+05:60",
    "9999-12-31 23:59:59-14:00",
    "9999-12-31 23:59:59-00:01",
    "0001-01-01 00:00+01:00",
    "0000-01-01 09:00Z",
    "2026-02-30 09:00Z",
    "2026-12-01 24:00Z",
    "9999-12-31 23:59",  # naive, read in a zone west of UTC: past 9999 in UTC
    1e308,
    float("nan"),
    float("inf"),
    -1,
    10**400,
    True,
    "",
    "   ",
    "\x00",
    "=NOW()",
    "2026-12-01T09:00:00+18:00:00",
    datetime(9999, 12, 31, 23, 59, tzinfo=ZoneInfo("America/Los_Angeles")),
    datetime(1, 1, 1, 0, 0, tzinfo=ZoneInfo("Asia/Tokyo")),
    datetime(9999, 12, 31, 22, 0),
    object(),
    [2026, 12, 1],
]


@pytest.mark.parametrize("value", HOSTILE_TIMES, ids=repr)
def test_every_hostile_time_is_a_time_error(value: object) -> None:
    with pytest.raises(TimeError) as info:
        parse_when(value, tz=ZoneInfo("America/Los_Angeles"))
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize(
    ("day", "clock", "zone"),
    [
        ("9999-12-31", "23:59", "America/Los_Angeles"),
        ("0001-01-01", "00:00", "Asia/Tokyo"),
        ("2026-13-01", "09:00", "UTC"),
        (1e308, 0.5, "UTC"),
        ("2026-12-01", "25:00", "UTC"),
    ],
)
def test_hostile_date_and_time_columns_are_time_errors(
    day: object, clock: object, zone: str
) -> None:
    with pytest.raises(TimeError):
        combine_date_time(day, clock, tz=ZoneInfo(zone))


def test_offsets_up_to_18_hours_and_the_range_edges_are_accepted() -> None:
    assert parse_when("2026-12-01 09:00+18:00", tz=None) == datetime(
        2026, 11, 30, 15, 0, tzinfo=UTC
    )
    assert parse_when("9999-12-31 23:59:59Z", tz=None).year == 9999
    assert parse_when("0001-01-01 00:00:00Z", tz=None).year == 1
