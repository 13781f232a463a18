"""Time reading: no wall time is ever silently moved, whatever the zone and date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channelkit.publish.times import (
    TimeError,
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
        moment = localize(naive, zone)
    except TimeError as exc:
        assert "does not exist" in str(exc) or "happens twice" in str(exc)
        return
    assert moment.tzinfo is UTC
    assert moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None) == naive


@settings(max_examples=200, deadline=None)
@given(naive=naive_times.map(lambda d: d.replace(microsecond=0)), zone=st.sampled_from(ZONES))
def test_text_with_offset_round_trips(naive: datetime, zone: str) -> None:
    aware = naive.replace(tzinfo=ZoneInfo(zone))
    assert parse_when(aware.isoformat(), zone_name=None) == aware.astimezone(UTC)


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
        localize(datetime(2030, 10, 6, 2, 15), "Australia/Lord_Howe")
    moment = combine_date_time("2030-10-06", "02:30", zone_name="Australia/Lord_Howe")
    assert moment == datetime(2030, 10, 6, 2, 30, tzinfo=ZoneInfo("Australia/Lord_Howe"))
    assert moment - combine_date_time(
        "2030-10-06", "01:59", zone_name="Australia/Lord_Howe"
    ) == timedelta(minutes=1)
