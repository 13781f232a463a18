"""Periods as people say them: every phrase is the same period as its canonical form, in
`Warehouse`, every `--period` and the delivery config (one parser)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import channelkit as ck
from channelkit._tz import UTC_ZONE
from channelkit.analysis.period import Period, parse_period
from channelkit.errors import InvalidParameterError
from channelkit.reports.parameters import check_period
from fixtures.warehouse import build_long_warehouse

LAST_DAY = date(2026, 11, 22)  # a Sunday: week 47 is the last complete week

# (phrase, canonical form), with the last complete synced day LAST_DAY.
SAME_AS = [
    ("last month", "2026-10"),
    ("Last Month", "2026-10"),
    ("month", "2026-10"),
    ("last week", "2026-W47"),
    ("LAST WEEK", "2026-W47"),
    ("last quarter", "2026-Q3"),
    ("last year", "2025"),
    ("October", "2026-10"),
    ("october", "2026-10"),
    ("October 2026", "2026-10"),
    ("  october   2026 ", "2026-10"),
    ("Oct 2026", "2026-10"),
    ("oct. 2026", "2026-10"),
    ("2026 October", "2026-10"),
    ("December", "2025-12"),  # the latest December that has begun
    ("Sept 2026", "2026-09"),
    ("Q3", "2026-Q3"),
    ("q3 2026", "2026-Q3"),
    ("Q3-2026", "2026-Q3"),
    ("Q4", "2025-Q4"),  # Q4 2026 has begun (October): latest Q4 is this one
    ("last 7 days", "7d"),
    ("past 7 days", "7d"),
    ("last 28 days", "28d"),
    ("28 days", "28d"),
    ("last 2 weeks", "2w"),
    ("yesterday", "2026-11-22"),
    ("Yesterday", "2026-11-22"),
    # Issue 28: more of what people say.
    ("today", "2026-11-23"),  # the day of the last sync, after the last complete day
    ("previous month", "2026-10"),
    ("Previous Week", "2026-W47"),
    ("W47", "2026-W47"),
    ("w47 2026", "2026-W47"),
    ("W48", "2025-W48"),  # the latest week 48 that has begun
    ("25/11/2026", "2026-11-25"),
    ("25.11.2026", "2026-11-25"),
    ("11/25/2026", "2026-11-25"),  # month first: the only way it reads as a date
    ("4/4/2026", "2026-04-04"),
    ("11/2026", "2026-11"),
]


@pytest.mark.parametrize(("phrase", "canonical"), SAME_AS)
def test_a_phrase_is_its_canonical_period(phrase: str, canonical: str) -> None:
    said = parse_period(phrase, tz=ZoneInfo("Europe/Berlin"), last_day=LAST_DAY)
    expected = parse_period(canonical, tz=ZoneInfo("Europe/Berlin"), last_day=LAST_DAY)
    if canonical == "2025-Q4":
        # Q4 2026 began on 1 October, before the last day: "Q4" is that one.
        expected = parse_period("2026-Q4", tz=ZoneInfo("Europe/Berlin"), last_day=LAST_DAY)
    assert said == expected
    assert said.label == expected.label
    assert said.compared("previous") == expected.compared("previous")
    assert said.compared("year") == expected.compared("year")


def test_a_range_of_days_includes_both_days() -> None:
    for text in ("2026-10-01..2026-10-15", "2026-10-01 to 2026-10-15", "2026-10-01 – 2026-10-15"):
        said = parse_period(text, tz=UTC_ZONE, last_day=LAST_DAY)
        assert said == Period.of_days(date(2026, 10, 1), date(2026, 10, 16), UTC_ZONE, "range")
        assert said.label == "2026-10-01 to 2026-10-15 (UTC)"
        assert (said.compared("previous").start_day, said.compared("previous").end_day) == (
            date(2026, 9, 16),
            date(2026, 10, 1),
        )


@pytest.mark.parametrize(
    ("phrase", "first", "stop", "label", "previous"),
    [
        ("this month", date(2026, 11, 1), date(2026, 11, 23), "November 2026 to date",
         (date(2026, 10, 1), date(2026, 10, 23))),
        ("This Quarter", date(2026, 10, 1), date(2026, 11, 23), "Q4 2026 to date",
         (date(2026, 7, 1), date(2026, 8, 23))),
        ("this year", date(2026, 1, 1), date(2026, 11, 23), "2026 to date",
         (date(2025, 1, 1), date(2025, 11, 23))),
    ],
)  # fmt: skip
def test_this_period_is_to_date_and_compared_with_the_same_days(
    phrase: str, first: date, stop: date, label: str, previous: tuple[date, date]
) -> None:
    said = parse_period(phrase, tz=UTC_ZONE, last_day=LAST_DAY)
    assert (said.start_day, said.end_day, said.to_date) == (first, stop, True)
    assert said.label == label
    before = said.compared("previous")
    assert (before.start_day, before.end_day, before.to_date) == (*previous, True)


def test_to_date_comparison_is_cut_at_a_shorter_month() -> None:
    march = parse_period("this month", tz=UTC_ZONE, last_day=date(2027, 3, 30))
    february = march.compared("previous")
    assert (february.start_day, february.end_day) == (date(2027, 2, 1), date(2027, 3, 1))


def test_this_week_on_its_first_day_has_no_synced_day_yet() -> None:
    # LAST_DAY is a Sunday: the sync ran on Monday, in week 48, so "this week" is week 48
    # (never week 47 again, which is "last week").
    with pytest.raises(InvalidParameterError, match="Week 48, 2026, which has no complete"):
        parse_period("this week", tz=UTC_ZONE, last_day=LAST_DAY)
    assert parse_period("last week", tz=UTC_ZONE, last_day=LAST_DAY).label == "Week 47, 2026"


@pytest.mark.parametrize(
    ("phrase", "says"),
    [
        ("last whenever", "'last month', 'this month'"),  # never a period
        ("Octember 2026", "'October 2026'"),
        ("q5", "'Q3 2026'"),
        ("2026-10-15..2026-10-01", "the last day 2026-10-01 is before the first 2026-10-15"),
        ("2026-02-30..2026-03-02", "is not a real date"),
        ("2026-W60", "2026 has ISO weeks 1..53"),
        ("last 0 days", "at least one day"),
        # A typo of a known word: a did-you-mean instead of the list (issue 28).
        ("Ocotber 2026", "not a period; did you mean 'October 2026'?"),
        ("last mnth", "not a period; did you mean 'last month'?"),
        ("yesterdy", "not a period; did you mean 'yesterday'?"),
        ("03/04/2026", "could be 3 April 2026 or 4 March 2026"),
    ],
)
def test_an_unknown_phrase_lists_examples(phrase: str, says: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        parse_period(phrase, tz=UTC_ZONE, last_day=LAST_DAY)
    assert info.value.param == "period"
    assert says in str(info.value)


@pytest.mark.parametrize("phrase", ["last month", "October 2026", "Q3", "last 28 days"])
def test_report_and_delivery_periods_accept_the_phrases(phrase: str) -> None:
    assert check_period(phrase) == phrase


def test_the_warehouse_takes_the_phrases(tmp_path: Path) -> None:
    wh = ck.Warehouse(build_long_warehouse(tmp_path / "long.duckdb", posts=300))
    by_phrase = wh.kpis(period="October 2026")
    by_form = wh.kpis(period="2026-10")
    assert by_phrase.attrs["period"] == by_form.attrs["period"] == "October 2026"
    assert list(by_phrase["value"]) == list(by_form["value"])
    assert wh.kpis(period="last month").attrs["period"] == "October 2026"
