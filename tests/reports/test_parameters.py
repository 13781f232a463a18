"""Report periods: parsing the way people say them and resolving them to whole local days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from channelkit._tz import UTC_ZONE
from channelkit.errors import InvalidParameterError
from channelkit.reports.parameters import (
    ReportPeriod,
    check_period,
    compare_period,
    local_date,
    parse_date,
    parse_duration,
    previous_period,
    resolve_period,
)

LAST_DAY = date(2026, 11, 22)  # a Sunday: the last complete synced day


def _resolve(**kwargs: object) -> ReportPeriod:
    options: dict[str, object] = {
        "since": None,
        "until": None,
        "period": None,
        "tz": UTC_ZONE,
        "last_day": LAST_DAY,
        "default_period": "7d",
    }
    options.update(kwargs)
    return resolve_period(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "first", "last", "name", "previous", "year_before"),
    [
        ("month", "2026-10-01", "2026-10-31", "October 2026", "September 2026", "October 2025"),
        ("1m", "2026-10-01", "2026-10-31", "October 2026", "September 2026", "October 2025"),
        (" MONTH ", "2026-10-01", "2026-10-31", "October 2026", "September 2026", "October 2025"),
        ("week", "2026-11-16", "2026-11-22", "Week 47, 2026", "Week 46, 2026", "Week 47, 2025"),
        ("quarter", "2026-07-01", "2026-09-30", "Q3 2026", "Q2 2026", "Q3 2025"),
        ("2025", "2025-01-01", "2025-12-31", "2025", "2024", "2024"),
        ("2026-03", "2026-03-01", "2026-03-31", "March 2026", "February 2026", "March 2025"),
        ("2026-Q1", "2026-01-01", "2026-03-31", "Q1 2026", "Q4 2025", "Q1 2025"),
        ("2026-W44", "2026-10-26", "2026-11-01", "Week 44, 2026", "Week 43, 2026", "Week 44, 2025"),
        (
            "2026-10-05",
            "2026-10-05",
            "2026-10-05",
            "5 October 2026",
            "4 October 2026",
            "5 October 2025",
        ),
        (
            "7d",
            "2026-11-16",
            "2026-11-22",
            "7 days to 22 November 2026",
            "7 days to 15 November 2026",
            "7 days to 22 November 2025",
        ),
    ],
)
def test_periods_people_say(
    text: str, first: str, last: str, name: str, previous: str, year_before: str
) -> None:
    period = _resolve(period=text)
    assert (period.start.isoformat(), period.last_day.isoformat()) == (first, last)
    assert period.name == name
    assert compare_period(period).name == previous
    assert compare_period(period, "year").name == year_before


def test_month_compares_with_the_calendar_month_before() -> None:
    march = _resolve(period="2026-03")
    before = previous_period(march)
    assert (before.start, before.end, before.days) == (date(2026, 2, 1), date(2026, 3, 1), 28)
    assert march.label == "March 2026 (2026-03-01 to 2026-03-31, UTC)"


def test_week_53_compares_with_week_52_a_year_earlier() -> None:
    week = _resolve(period="2026-W53")
    assert compare_period(week, "year").name == "Week 52, 2025"


def test_leap_day_a_year_earlier() -> None:
    day = _resolve(period="2028-02-29")
    assert compare_period(day, "year").start == date(2027, 2, 28)


@pytest.mark.parametrize(
    "text",
    ["", "7", "d", "0d", "-1d", "7 dais", "7.5d", "2026-13", "2026-Q5", "2026-W54", "whenever"],
)
def test_check_period_rejects_with_the_value_named(text: str) -> None:
    with pytest.raises(InvalidParameterError, match="period") as error:
        check_period(text)
    assert error.value.param == "period"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("26h", timedelta(hours=26)),
        ("90m", timedelta(minutes=90)),
        ("45s", timedelta(seconds=45)),
        ("2d", timedelta(days=2)),
        ("1w", timedelta(days=7)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "26", "h", "0h", "1h30m", "1.5h", "soon"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(InvalidParameterError, match="max_age"):
        parse_duration(text)


def test_parse_date_names_the_option() -> None:
    assert parse_date("2026-04-01", param="since") == date(2026, 4, 1)
    with pytest.raises(InvalidParameterError, match="since: '2026-13-01'"):
        parse_date("2026-13-01", param="since")


def test_local_date_crosses_midnight_by_timezone() -> None:
    moment = datetime(2026, 3, 29, 22, 30, tzinfo=UTC)
    assert local_date(moment, UTC_ZONE) == date(2026, 3, 29)
    assert local_date(moment, ZoneInfo("Europe/Berlin")) == date(2026, 3, 30)
    with pytest.raises(ValueError, match="aware"):
        local_date(datetime(2026, 3, 29), UTC_ZONE)


def test_default_period_ends_with_the_last_complete_day() -> None:
    period = _resolve()
    assert (period.start, period.last_day, period.days) == (date(2026, 11, 16), LAST_DAY, 7)
    assert period.label == "7 days to 22 November 2026 (2026-11-16 to 2026-11-22, UTC)"
    assert period.query() == {"period": "7d", "tz": UTC_ZONE}
    assert _resolve(period="1m").query() == {"period": "month", "tz": UTC_ZONE}


def test_since_and_until_include_both_days() -> None:
    period = _resolve(since=date(2026, 3, 1), until=date(2026, 3, 31), tz=ZoneInfo("Europe/Berlin"))
    assert (period.start, period.end, period.days) == (date(2026, 3, 1), date(2026, 4, 1), 31)
    assert period.tz.key == "Europe/Berlin"


def test_period_with_since_or_until() -> None:
    after = _resolve(since=date(2026, 3, 1), period="2w")
    assert (after.start, after.end) == (date(2026, 3, 1), date(2026, 3, 15))
    before = _resolve(until=date(2026, 3, 31), period="1d")
    assert (before.start, before.end) == (date(2026, 3, 31), date(2026, 4, 1))
    assert before.label == "2026-03-31 (UTC)"
    assert before.query() == {
        "start": date(2026, 3, 31),
        "end": date(2026, 4, 1),
        "tz": UTC_ZONE,
    }


def test_contradicting_or_empty_periods_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="at most two"):
        _resolve(since=date(2026, 3, 1), until=date(2026, 3, 2), period="7d")
    with pytest.raises(InvalidParameterError, match="before --since"):
        _resolve(since=date(2026, 3, 2), until=date(2026, 3, 1))
    with pytest.raises(InvalidParameterError, match="names its own days"):
        _resolve(since=date(2026, 3, 2), period="2026-03")
    with pytest.raises(InvalidParameterError, match="names its own days"):
        _resolve(until=date(2026, 3, 31), period="month")
    with pytest.raises(InvalidParameterError, match="compare"):
        compare_period(_resolve(), "last year")


def test_previous_period_of_days_has_the_same_length_just_before() -> None:
    current = _resolve(period="4w")
    before = previous_period(current)
    assert (before.start, before.end) == (date(2026, 9, 28), date(2026, 10, 26))
    since_until = _resolve(since=date(2026, 3, 1), until=date(2026, 3, 10))
    assert previous_period(since_until).label == "2026-02-19 to 2026-02-28 (UTC)"
    assert before.days == current.days == 28
