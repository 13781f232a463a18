"""How numbers read in a report, including missing values."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime

import pandas as pd
import pytest

from channelkit.reports.formatting import (
    MISSING,
    direction,
    fmt_date,
    fmt_datetime,
    fmt_int,
    fmt_number,
    fmt_pct,
    fmt_signed,
    fmt_signed_pct,
)


@pytest.mark.parametrize("missing", [None, math.nan, pd.NA, pd.NaT])
def test_missing_values_read_as_a_dash(missing: object) -> None:
    for fmt in (fmt_int, fmt_number, fmt_pct, fmt_signed_pct, fmt_signed, fmt_date):
        assert fmt(missing) == MISSING
    assert fmt_datetime(missing, "UTC") == MISSING
    assert direction(missing) == "flat"


def test_numbers() -> None:
    assert fmt_int(1612) == "1,612"
    assert fmt_int(2.6) == "3"
    assert fmt_number(3.0) == "3"
    assert fmt_number(1234.56) == "1,234.6"
    assert fmt_pct(0.13089) == "13.1%"
    assert fmt_pct(1) == "100.0%"


def test_changes_carry_a_sign_and_a_direction() -> None:
    assert fmt_signed(-460) == "\u2212460"
    assert fmt_signed(35) == "+35"
    assert fmt_signed(0.004, percent_points=True) == "+0.4 pp"
    assert fmt_signed_pct(-0.5) == "\u221250.0%"
    assert fmt_signed_pct(0.125) == "+12.5%"
    assert fmt_signed_pct(math.inf) == MISSING
    assert [direction(v) for v in (3, -1, 0)] == ["up", "down", "flat"]


def test_dates_in_the_report_timezone() -> None:
    moment = datetime(2026, 3, 29, 22, 30, tzinfo=UTC)
    assert fmt_datetime(moment, "UTC") == "2026-03-29 22:30"
    assert fmt_datetime(moment, "Europe/Berlin") == "2026-03-30 00:30"
    assert fmt_datetime(pd.Timestamp(moment), "Europe/Berlin") == "2026-03-30 00:30"
    assert fmt_date(date(2026, 3, 1)) == "2026-03-01"
    assert fmt_date(moment) == "2026-03-29"
