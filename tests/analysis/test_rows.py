"""The SQL building blocks: touching periods are tested as one range."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

import duckdb

from channelkit.analysis.period import Period, earlier_periods
from channelkit.analysis.rows import any_of


def test_touching_periods_are_one_range_with_the_same_rows() -> None:
    week = Period.of_days(date(2026, 11, 16), date(2026, 11, 23), ZoneInfo("Europe/Berlin"), "week")
    periods = [week, *earlier_periods(week, 8)]
    days = any_of(periods, "d", instant=False)
    assert days.text.count(" OR ") == 0 and days.params == (date(2026, 9, 21), date(2026, 11, 23))
    apart = Period.of_days(date(2026, 1, 5), date(2026, 1, 12), ZoneInfo("Europe/Berlin"), "week")
    two = any_of([week, apart], "d", instant=False)
    assert two.text.count(" OR ") == 1
    con = duckdb.connect()
    rows = "SELECT count(*) FROM range(DATE '2025-12-01', DATE '2026-12-31', INTERVAL 1 DAY) t(d)"
    first = date(2025, 12, 1).toordinal()
    every_day = [date.fromordinal(n) for n in range(first, date(2026, 12, 31).toordinal())]
    for sql, chosen in ((days, periods), (two, [week, apart])):
        got = con.execute(f"{rows} WHERE {sql.text}", list(sql.params)).fetchone()
        bounds = [(p.start_day, p.end_day) for p in chosen]
        expected = sum(1 for day in every_day if any(lo <= day < hi for lo, hi in bounds))  # type: ignore[operator]
        assert got == (expected,)
