"""No date moved by one row: the day/month order of a column is settled only on evidence.

The rule is docs/metrics.md "Day/month order". The layouts whose order the user picks at
upload are taken from the declarations (`dates == "either"`), so a new one is covered; the
truth of every row is the `date` the test wrote, never what the reader says.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from channelkit.publish.layouts.library import LAYOUTS
from channelkit.publish.layouts.read import Choices
from channelkit.publish.layouts.stamps import enough
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from fixtures.layout_corpus import SAMPLES, TZ, Post, Sample, as_csv, choices_for, rows_of

PICKED = sorted(key for key, layout in LAYOUTS.items() if layout.dates == "either")
# Their samples written with A/B/YYYY dates (Publer's 2025 sample writes them year first).
EITHER = [sample for sample in SAMPLES if set(sample.orders) == {"dmy", "mdy"}]
NATIVE = ["channel", "title", "body", "scheduled_at"]
YEAR = [date(2031, 1, 1) + timedelta(days=n) for n in range(365)]
OTHER = {"dmy": "mdy", "mdy": "dmy"}
_SLASHED = {"dmy": "%d/%m/%Y", "mdy": "%m/%d/%Y"}


def _post(day: date, n: int) -> Post:
    wall = datetime(day.year, day.month, day.day, 10, 0)
    return Post("news", "Facebook", f"Post {n}", f"Post {n}", wall)


def _contradicting(day: date) -> date:
    """A date of `day`'s month whose day is above 12: written in the other order than the
    file's, it is a date in that other order only, the typo that points the wrong way."""
    return date(day.year, day.month, 13 + day.day % 16)


def _plan_of(sample: Sample | None, written: Sequence[tuple[date, str]], **choices: object) -> Plan:
    """A file of `sample` (None: a channelkit posts file) with one row per (date, order it
    is written in), read with the choices a user gives for it."""
    if sample is None:
        body = [
            ["news", f"Post {n}", "Body", f"{day:{_SLASHED[order]}} 10:00"]
            for n, (day, order) in enumerate(written)
        ]
        data = as_csv([NATIVE, *body])
        return load_spreadsheet(data, filename="posts.csv", tz=TZ, choices=Choices(**choices))  # type: ignore[arg-type]
    rows = [
        row
        for n, (day, order) in enumerate(written)
        for row in rows_of(sample, [_post(day, n)], order)[0 if sample.header is None else 1 :]
    ]
    if sample.header is not None:
        rows.insert(0, list(sample.header))
    given = {**choices_for(sample), **choices}
    return load_spreadsheet(as_csv(rows), filename="f.csv", tz=TZ, choices=Choices(**given))  # type: ignore[arg-type]


def _misread(plan: Plan, truth: Sequence[date | None]) -> int:
    """Rows read without an error as another date than the one written (None: a typo row,
    which has no truth)."""
    wrong = 0
    for row, day in zip(plan.rows, truth, strict=True):
        if day is None or row.status != "ok":
            continue
        assert row.request is not None and row.request.scheduled_at is not None
        wall = row.request.scheduled_at.astimezone(ZoneInfo(TZ)).date()
        wrong += wall != day
    return wrong


def _first_row(sample: Sample | None) -> int:
    return 1 if sample is not None and sample.header is None else 2


KINDS = [*EITHER, None]
IDS = [*(sample.name for sample in EITHER), "native"]


def test_every_layout_whose_order_the_user_picks_is_covered() -> None:
    assert PICKED, "no layout lets the user pick the order?"
    assert {sample.layout for sample in EITHER} == set(PICKED)  # a sample for each


@pytest.mark.parametrize("order", ["dmy", "mdy"])
@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_one_typo_among_ambiguous_rows_settles_nothing(sample: Sample | None, order: str) -> None:
    """`13/02/2031` in a month-first file: the ambiguous rows are refused naming both
    readings and the typo's row, not moved a month; said which order, they are read and
    the typo is refused alone."""
    ambiguous = [date(2031, 2, 1), date(2031, 3, 2), date(2031, 11, 10)]
    typo = date(2031, 2, 13)
    written = [(ambiguous[0], order), (typo, OTHER[order]), *((d, order) for d in ambiguous[1:])]
    typo_row = _first_row(sample) + 1
    plan = _plan_of(sample, written)
    statuses = [row.status for row in plan.rows]
    assert statuses == ["error", "ok", "error", "error"], [row.message for row in plan.rows]
    for row, (day, _) in zip(plan.rows, written, strict=True):
        if row.status == "ok":
            continue
        other = date(day.year, day.day, day.month)
        message = row.message
        assert "is ambiguous" in message
        assert f"{day.day} {day:%B %Y}" in message and f"{other.day} {other:%B %Y}" in message
        assert f"row {typo_row} writes" in message and "--date-order" in message
    told = _plan_of(sample, written, date_order=order)
    assert [row.status for row in told.rows] == ["ok", "error", "ok", "ok"]
    assert (
        f"is not a date read {'day' if order == 'dmy' else 'month'} first" in told.rows[1].message
    )
    assert _misread(told, [ambiguous[0], None, *ambiguous[1:]]) == 0


@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_rows_written_both_ways_refuse_the_column_naming_both(sample: Sample | None) -> None:
    written = [
        (date(2031, 2, 1), "dmy"),
        (date(2031, 2, 14), "dmy"),  # 14/02: day first only
        (date(2031, 3, 20), "mdy"),  # 03/20: month first only
        (date(2031, 5, 5), "dmy"),
    ]
    first = _first_row(sample)
    plan = _plan_of(sample, written)
    assert [row.status for row in plan.rows] == ["error"] * 4
    for row in plan.rows:
        assert f"day first (row {first + 1}: 14/02/2031" in row.message
        assert f"month first (row {first + 2}: 03/20/2031" in row.message


@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_enough_rows_one_way_settle_the_column(sample: Sample | None) -> None:
    """Three rows above 12 day first against six ambiguous ones: 3 >= 3 and 3 >= 9/5."""
    days = [date(2031, 1, n) for n in (2, 3, 4, 5, 6, 7)] + [date(2031, 1, n) for n in (13, 20, 28)]
    plan = _plan_of(sample, [(day, "dmy") for day in days])
    assert [row.status for row in plan.rows] == ["ok"] * len(days), plan.rows[0].message
    assert _misread(plan, days) == 0
    if sample is not None:  # the reading line names the rows that settled it
        first = _first_row(sample) + 6
        assert f"dates read day first (rows {first}, {first + 1} and {first + 2} write" in (
            plan.sheet.reading or ""
        )


@pytest.mark.parametrize(
    ("settling", "ambiguous", "settled"),
    [(0, 0, False), (1, 0, False), (1, 1, False), (2, 0, False), (3, 0, True), (3, 12, True)]
    + [(3, 13, False), (4, 16, True), (4, 17, False), (10, 40, True), (100, 401, False)],
)
def test_the_evidence_threshold(settling: int, ambiguous: int, settled: bool) -> None:
    """Recomputed by hand: at least 3 rows, and at least a fifth of settling + ambiguous."""
    assert enough(settling, ambiguous) is settled


@pytest.mark.parametrize("order", ["dmy", "mdy"])
@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_every_day_of_a_year_with_one_contradicting_row_is_never_misread(
    sample: Sample | None, order: str
) -> None:
    """Each day of 2031 written in `order`, in a file with one row that is a date only in the
    other order: 0 rows read as another date. The outcome, recomputed from the day alone:
    read when day == month (one date either way), else refused (ambiguous against a single
    row, or written both ways)."""
    misread = accepted = 0
    for n, day in enumerate(YEAR):
        typo = (_contradicting(day), OTHER[order])
        written = [(day, order), typo] if n % 2 else [typo, (day, order)]
        plan = _plan_of(sample, written)
        truth: list[date | None] = [day, None] if n % 2 else [None, day]
        misread += _misread(plan, truth)
        genuine = plan.rows[0 if n % 2 else 1]
        accepted += genuine.status == "ok"
        assert (genuine.status == "ok") == (day.day == day.month), (day, genuine.message)
    assert misread == 0
    assert accepted == 12


@pytest.mark.parametrize("order", ["dmy", "mdy"])
@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_a_whole_year_in_one_file_is_read_and_one_typo_refuses_it(
    sample: Sample | None, order: str
) -> None:
    """A year of days settles its order (221 rows above 12 against 132 ambiguous); one
    contradicting row injected makes both sides: every row refused, none misread. The days
    up to the 12th alone (132 ambiguous, 12 the same both ways) with the typo: the typo is
    one row, so the ambiguous rows are refused and the rest read right."""
    plan = _plan_of(sample, [(day, order) for day in YEAR])
    assert all(row.status == "ok" for row in plan.rows)
    assert _misread(plan, YEAR) == 0
    typo = (date(2031, 6, 20), OTHER[order])
    both = _plan_of(
        sample, [(day, order) for day in YEAR[:100]] + [typo] + [(d, order) for d in YEAR[100:]]
    )
    assert all(row.status == "error" for row in both.rows)
    low = [day for day in YEAR if day.day <= 12]
    short = _plan_of(sample, [typo, *((day, order) for day in low)])
    assert _misread(short, [None, *low]) == 0
    refused = sum(row.status == "error" for row in short.rows)
    assert refused == sum(1 for day in low if day.day != day.month)


@pytest.mark.parametrize("sample", KINDS, ids=IDS)
@pytest.mark.calendar
def test_a_date_order_the_column_settles_the_other_way_is_refused(sample: Sample | None) -> None:
    """Five rows above 12 day first against two ambiguous ones settle day first: a
    `--date-order mdy` is then the mistake, and every row is refused, not read month first."""
    days = [date(2031, 1, n) for n in (2, 3, 13, 14, 15, 16, 17)]
    plan = _plan_of(sample, [(day, "dmy") for day in days], date_order="mdy")
    assert [row.status for row in plan.rows] == ["error"] * len(days)
    assert f"--date-order mdy (month first) but rows {_first_row(sample) + 2}, " in (
        plan.rows[0].message
    )
    assert _misread(_plan_of(sample, [(day, "dmy") for day in days]), days) == 0
