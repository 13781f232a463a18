"""How numbers, dates and changes read, in notebooks and reports alike, including missing
values."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

from channelkit._tz import UTC_ZONE
from channelkit.display import numbers
from channelkit.display.numbers import (
    MISSING,
    count,
    day,
    direction,
    local_time,
    percent,
    signed,
    signed_percent,
    whole,
)


@pytest.mark.parametrize("missing", [None, math.nan, pd.NA, pd.NaT])
def test_missing_values_read_as_a_dash(missing: object) -> None:
    for fmt in (whole, count, percent, signed_percent, signed, day, numbers.moment):
        assert fmt(missing) == MISSING
    assert local_time(missing, UTC_ZONE) == MISSING
    assert direction(missing) == "flat"


def test_numbers() -> None:
    assert whole(1612) == "1,612"
    assert whole(2.6) == "3"
    assert count(12345.0) == "12,345"
    assert count(3.0) == "3"
    assert count(1234.56) == "1,234.6"
    assert count(2.345, 2) == "2.35"
    assert percent(0.57214) == "57.2%"
    assert percent(0.13089) == "13.1%"
    assert percent(1) == "100.0%"
    assert numbers.age(timedelta(hours=2, minutes=5).total_seconds()) == "2 hours"


def test_changes_carry_a_sign_and_a_direction() -> None:
    assert signed(-460) == "\u2212460"
    assert signed(35) == "+35"
    assert signed(1204) == "+1,204"
    assert signed(0.004, rate=True) == "+0.4 points"
    assert signed(-0.107139, rate=True) == "\u221210.7 points"
    assert signed_percent(-0.5) == "\u221250.0%"
    assert signed_percent(0.125) == "+12.5%"
    assert signed_percent(math.inf) == MISSING
    # a change that rounds to nothing has no sign: an interval's end at 0.9999 of the rest
    assert [signed_percent(v) for v in (-0.0001, 0.0004, 0.0)] == ["0.0%"] * 3
    assert signed_percent(-0.0005) == "\u22120.1%"  # rounds away from zero: keeps its sign
    assert numbers.interval(0.74, 0.56, 0.9999, numbers.relative) == (
        "\u221226.0% (\u221244.0% to 0.0%)"
    )
    assert [direction(v) for v in (3, -1, 0)] == ["up", "down", "flat"]


def test_only_a_change_outside_the_usual_range_is_coloured() -> None:
    """Within its usual range a fall is an ordinary week, not a loss: not red."""
    row = {"value": 0.657, "delta": -0.022, "usual_low": 0.60, "usual_high": 0.70}
    assert numbers.news(row) == "flat"
    assert numbers.news({**row, "value": 0.55}) == "down"
    assert numbers.news({**row, "value": 0.75, "delta": 0.1}) == "up"
    assert numbers.news({**row, "usual_low": None, "usual_high": None}) == "down"
    assert numbers.news({"value": 3, "delta": 0}) == "flat"


def test_dates_in_the_report_timezone() -> None:
    moment = datetime(2026, 3, 29, 22, 30, tzinfo=UTC)
    assert local_time(moment, UTC_ZONE) == "2026-03-29 22:30"
    assert local_time(moment, ZoneInfo("Europe/Berlin")) == "2026-03-30 00:30"
    assert local_time(pd.Timestamp(moment), ZoneInfo("Europe/Berlin")) == "2026-03-30 00:30"
    assert day(date(2026, 3, 1)) == "2026-03-01"
    assert day(moment) == "2026-03-29"
