"""Report periods: parsing the flags and resolving them to whole local days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from channelkit.reports.period import (
    ReportParameterError,
    ReportPeriod,
    check_tz,
    local_date,
    parse_date,
    parse_duration,
    parse_period,
    previous_period,
    resolve_period,
)

ANCHOR = date(2026, 4, 6)


def _resolve(**kwargs: object) -> ReportPeriod:
    options: dict[str, object] = {
        "since": None,
        "until": None,
        "period": None,
        "tz": "UTC",
        "anchor": ANCHOR,
        "default_period": "7d",
    }
    options.update(kwargs)
    return resolve_period(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "days"), [("7d", 7), ("1d", 1), (" 4W ", 28), ("2w", 14)])
def test_parse_period(text: str, days: int) -> None:
    assert parse_period(text) == days


@pytest.mark.parametrize("text", ["", "7", "d", "0d", "-1d", "7 days", "1m", "7.5d"])
def test_parse_period_rejects_with_the_value_named(text: str) -> None:
    with pytest.raises(ReportParameterError, match="period"):
        parse_period(text)


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
    with pytest.raises(ReportParameterError, match="max age"):
        parse_duration(text)


def test_parse_date_names_the_option() -> None:
    assert parse_date("2026-04-01", param="--since") == date(2026, 4, 1)
    with pytest.raises(ReportParameterError, match="--since '2026-13-01'"):
        parse_date("2026-13-01", param="--since")


def test_check_tz() -> None:
    assert check_tz("Europe/Berlin") == "Europe/Berlin"
    for bad in ("Mars/Olympus", "", "../etc/passwd"):
        with pytest.raises(ReportParameterError, match="IANA"):
            check_tz(bad)


def test_local_date_crosses_midnight_by_timezone() -> None:
    moment = datetime(2026, 3, 29, 22, 30, tzinfo=UTC)
    assert local_date(moment, "UTC") == date(2026, 3, 29)
    assert local_date(moment, "Europe/Berlin") == date(2026, 3, 30)
    with pytest.raises(ValueError, match="aware"):
        local_date(datetime(2026, 3, 29), "UTC")


def test_default_period_ends_on_the_anchor_day_excluded() -> None:
    period = _resolve()
    assert (period.start, period.end, period.days) == (date(2026, 3, 30), ANCHOR, 7)
    assert period.last_day == date(2026, 4, 5)
    assert period.label == "2026-03-30 to 2026-04-05 (7 days, UTC)"


def test_since_and_until_include_both_days() -> None:
    period = _resolve(since=date(2026, 3, 1), until=date(2026, 3, 31), tz="Europe/Berlin")
    assert (period.start, period.end, period.days) == (date(2026, 3, 1), date(2026, 4, 1), 31)
    assert period.tz == "Europe/Berlin"


def test_period_with_since_or_until() -> None:
    after = _resolve(since=date(2026, 3, 1), period="2w")
    assert (after.start, after.end) == (date(2026, 3, 1), date(2026, 3, 15))
    before = _resolve(until=date(2026, 3, 31), period="1d")
    assert (before.start, before.end) == (date(2026, 3, 31), date(2026, 4, 1))
    assert before.label == "2026-03-31 (UTC)"


def test_contradicting_or_empty_periods_are_refused() -> None:
    with pytest.raises(ReportParameterError, match="at most two"):
        _resolve(since=date(2026, 3, 1), until=date(2026, 3, 2), period="7d")
    with pytest.raises(ReportParameterError, match="before --since"):
        _resolve(since=date(2026, 3, 2), until=date(2026, 3, 1))
    with pytest.raises(ReportParameterError, match="IANA"):
        _resolve(tz="Nowhere/Land")


def test_previous_period_has_the_same_length_just_before() -> None:
    current = _resolve(period="4w")
    before = previous_period(current)
    assert (before.start, before.end) == (date(2026, 2, 9), date(2026, 3, 9))
    assert before.days == current.days == 28
