"""One reference day for every period phrase, and running periods "to date" (issue 35).

The warehouses are the steady workspace (tests/fixtures/steady.py) synced at pinned
instants around the year end of 2026, whose ISO week 53 runs from Monday 28 December 2026
to Sunday 3 January 2027. Nothing changes from week to week there, so a running week must
sit inside the usual range of the same days of earlier weeks. Every query runs with the
wall clock moved (time-machine) to an instant of its own: the answers follow the
warehouse's last complete synced day, never the clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
import time_machine
from click.testing import CliRunner, Result

import channelkit as ck
from channelkit.analysis.period import earlier_periods, parse_period
from channelkit.cli import main
from channelkit.errors import InvalidParameterError
from channelkit.reports.deliver.news import period_news
from channelkit.reports.generate import build_report
from channelkit.reports.parameters import ReportPeriod
from channelkit.widgets.explorer import Explorer
from fixtures.steady import POST_HOURS, build_steady

BERLIN = ZoneInfo("Europe/Berlin")
# 1 January 2027, 00:30 in Berlin, and the sync of that morning (last complete day: 31 Dec).
NEW_YEAR_NIGHT = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)
NEW_YEAR_SYNC = datetime(2027, 1, 1, 9, tzinfo=UTC)
# Syncs on weekdays of 2027-W01 (Monday 4 January): 1, 2, 4 and 6 days of the week synced.
WEEKDAY_SYNCS = [datetime(2027, 1, day, 9, tzinfo=UTC) for day in (5, 6, 8, 10)]
POSTS_PER_DAY = len(POST_HOURS) * 3  # three channels


def _steady(folder: Path, synced_at: datetime) -> Path:
    return build_steady(folder / "steady.duckdb", synced_at, days=120)


@pytest.fixture(scope="module")
def new_year(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _steady(tmp_path_factory.mktemp("new_year"), NEW_YEAR_SYNC)


def _label(wh: ck.Warehouse, period: str) -> str:
    return str(wh.kpis(period=period, tz=BERLIN).attrs["period"])


@pytest.mark.parametrize("clock", [NEW_YEAR_NIGHT, NEW_YEAR_SYNC + timedelta(days=400)])
def test_on_new_years_day_this_and_last_differ(new_year: Path, clock: datetime) -> None:
    with time_machine.travel(clock, tick=False):
        wh = ck.Warehouse(new_year)
        assert _label(wh, "last year") == "2026"
        assert _label(wh, "last month") == "December 2026"
        assert _label(wh, "yesterday") == "31 December 2026"
        for phrase, named in (
            ("this year", "2027"),
            ("year to date", "2027"),
            ("this month", "January 2027"),
            ("this quarter", "Q1 2027"),
        ):
            with pytest.raises(InvalidParameterError, match=f"is {named}, which has no complete"):
                wh.kpis(period=phrase, tz=BERLIN)
        # Week 53 holds 1 January: "this week" is it, to date, and so is W53 named.
        for phrase in ("this week", "W53", "2026-W53", "w53 2026"):
            assert _label(wh, phrase) == "Week 53, 2026 to date"
        assert _label(wh, "last week") == "Week 52, 2026"
        assert _label(wh, "7d") == "7 days to 31 December 2026"


@pytest.mark.calendar
def test_the_cli_report_deliver_and_explorer_use_the_same_reference(
    new_year: Path, tmp_path: Path
) -> None:
    with time_machine.travel(NEW_YEAR_NIGHT + timedelta(days=90), tick=False):
        wh = ck.Warehouse(new_year)
        report = build_report(new_year, period="this week", tz=BERLIN).page
        assert "Week 53, 2026 to date" in report.period.label
        last = build_report(new_year, period="last year", tz=BERLIN).page
        assert last.period.name == "2026"
        explorer = Explorer(wh, period="W53")
        assert explorer.frame is not None
        assert explorer.frame.attrs["period"] == "Week 53, 2026 to date"
        assert "Week 53, 2026 to date" in explorer.table.value  # the caption
        offered = [code for _, code in explorer.period.options]
        assert "December 2026" in offered and "January 2027" not in offered  # no day yet
        with pytest.raises(InvalidParameterError, match="January 2027, which has no complete"):
            Explorer(wh, period="this month").set(period="this month")
    out = tmp_path / "report.html"
    refused = _report(new_year, out, "this year")
    assert refused.exit_code == 2 and "2027, which has no complete synced day" in refused.output
    assert "Traceback" not in refused.output and not out.exists()
    assert _report(new_year, out, "W53").exit_code == 0
    assert "Week 53, 2026 to date" in out.read_text()


def _report(path: Path, out: Path, period: str) -> Result:
    args = ["report", "--db", str(path), "--period", period, "--tz", BERLIN.key, "--out", str(out)]
    return CliRunner().invoke(main, args)


def test_w53_and_w01_resolve() -> None:
    w53 = parse_period("2026-W53", tz=BERLIN, last_day=date(2027, 1, 10))
    assert (w53.start_day, w53.end_day, w53.to_date) == (
        date(2026, 12, 28),
        date(2027, 1, 4),
        False,
    )
    w01 = parse_period("W01", tz=BERLIN, last_day=date(2027, 1, 10))
    assert (w01.start_day, w01.end_day, w01.label) == (
        date(2027, 1, 4),
        date(2027, 1, 11),
        "Week 1, 2027",
    )
    assert w01.compared("previous") == w53
    # On Monday 4 January (the sync's day) week 1 has no synced day: "W01" is 2026's.
    assert parse_period("W01", tz=BERLIN, last_day=date(2027, 1, 3)).start_day == date(2025, 12, 29)
    assert parse_period("last week", tz=BERLIN, last_day=date(2027, 1, 3)) == w53
    with pytest.raises(InvalidParameterError, match="2027 has ISO weeks 1..52"):
        parse_period("2027-W53", tz=BERLIN, last_day=date(2027, 1, 10))


def test_earlier_weeks_of_a_running_week_are_cut_at_the_same_day() -> None:
    week = parse_period("this week", tz=BERLIN, last_day=date(2026, 12, 31))
    assert (week.start_day, week.end_day, week.to_date) == (
        date(2026, 12, 28),
        date(2027, 1, 1),
        True,
    )
    earlier = earlier_periods(week, 8)
    assert [p.start_day for p in earlier] == [
        date(2026, 12, 28) - timedelta(weeks=k) for k in range(1, 9)
    ]
    assert all(p.end_day - p.start_day == timedelta(days=4) for p in earlier)  # type: ignore[operator]
    # A running month: every earlier month cut at its 30th day, or whole when shorter
    # (never the 28 days of February carried on to January).
    march = parse_period("this month", tz=ZoneInfo("UTC"), last_day=date(2027, 3, 30))
    stops = [p.end_day for p in earlier_periods(march, 3)]
    assert stops == [date(2027, 3, 1), date(2027, 1, 31), date(2026, 12, 31)]


@pytest.mark.parametrize("synced_at", [NEW_YEAR_SYNC, *WEEKDAY_SYNCS], ids=lambda d: f"{d:%a-%d}")
def test_a_running_week_is_inside_its_to_date_usual_range(
    tmp_path: Path, synced_at: datetime
) -> None:
    path = _steady(tmp_path, synced_at)
    with time_machine.travel(synced_at + timedelta(hours=1), tick=False):
        wh = ck.Warehouse(path)
        frame = wh.kpis(period="this week").set_index("metric")
        last_week = wh.kpis(period="last week").set_index("metric")
    days = (synced_at.date() - (synced_at.date() - timedelta(days=synced_at.weekday()))).days
    assert frame.attrs["period"].endswith("to date")
    assert frame.attrs["usual_periods"] == 8
    # The truth is known for posts: POSTS_PER_DAY each day, in this week and every earlier
    # week cut at the same day, so the usual range is exactly that.
    posts = frame.loc["posts_published"]
    assert posts["value"] == posts["usual_low"] == posts["usual_high"] == POSTS_PER_DAY * days
    for metric in ("posts_published", "readers", "read_rate", "opens"):
        row = frame.loc[metric]
        assert row["usual_low"] <= row["value"] <= row["usual_high"], metric
    # Against whole weeks the running week's counts would be below: its missing days.
    for metric in ("posts_published", "readers"):
        assert frame.loc[metric, "value"] < last_week.loc[metric, "value"] * (days + 0.5) / 7


def test_news_only_finds_no_news_in_a_running_week(new_year: Path) -> None:
    with time_machine.travel(NEW_YEAR_SYNC, tick=False):
        wh = ck.Warehouse(new_year)
        named = parse_period("this week", tz=ZoneInfo("UTC"), last_day=date(2026, 12, 31))
        news = period_news(wh, ReportPeriod.of(named, "this week"), (), "previous")
    assert not news.found, news.text


def test_the_running_week_frame_matches_its_named_week(new_year: Path) -> None:
    wh = ck.Warehouse(new_year)
    pd.testing.assert_frame_equal(wh.kpis(period="this week"), wh.kpis(period="2026-W53"))
