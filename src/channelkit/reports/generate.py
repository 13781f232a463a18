"""`generate_report`: warehouse in, one self-contained HTML file out (or nothing at all)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pandas as pd

from channelkit._constants import (
    REPORT_COMPARE_DEFAULT,
    REPORT_FORMATS,
    REPORT_LOGGER_NAME,
    REPORT_PDF_PAPER_DEFAULT,
    REPORT_PDF_PAPERS,
    REPORT_PERIOD_DEFAULT,
)
from channelkit._tz import resolve_zone
from channelkit._version import __version__
from channelkit.errors import InvalidParameterError
from channelkit.reports.checks import check_coverage, check_freshness
from channelkit.reports.files import write_atomic
from channelkit.reports.page import ReportPage
from channelkit.reports.parameters import (
    ReportPeriod,
    check_compare,
    compare_period,
    parse_date,
    parse_duration,
    resolve_period,
)
from channelkit.reports.render import plotlyjs, render_page

if TYPE_CHECKING:
    from channelkit.analysis.coverage import Coverage
    from channelkit.analysis.freshness import Freshness
    from channelkit.reports.sections import StepLogger
    from channelkit.warehouse import Warehouse

_log = logging.getLogger(REPORT_LOGGER_NAME)


@dataclass(frozen=True)
class Report:
    """What `build_report` made, before anything is written: the page, its HTML and the
    frames of its CSV files.

        report = build_report("warehouse.duckdb", period="month")
        report.page.summary[0].text
    """

    page: ReportPage
    html: str
    frames: dict[str, pd.DataFrame]
    complete: bool


def generate_report(
    warehouse_path: str | Path,
    out_path: str | Path,
    *,
    since: date | str | None = None,
    until: date | str | None = None,
    period: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
    tz: str | ZoneInfo | None = None,
    channels: Sequence[str] = (),
    template: str | Path | None = None,
    csv_dir: str | Path | None = None,
    max_age: timedelta | str | None = None,
    format: str = "html",
    paper: str = REPORT_PDF_PAPER_DEFAULT,
    now: datetime | None = None,
    on_step: StepLogger | None = None,
) -> Path:
    """Write the engagement report of `warehouse_path` to `out_path` and return that path.

        from channelkit.reports import generate_report
        generate_report("warehouse.duckdb", "reports/october.html", period="month",
                        tz="Europe/Berlin", max_age="26h")

    `period` is a calendar period ("month", "2026-10", "2026-Q3", "2026-W44", ...) or a
    number of days ("7d"), compared with the previous one of the same kind or, with
    `compare="year"`, the same period a year earlier; or give `since`..`until` (both days
    included). A relative period ends with the last complete day before the last
    completed sync. `max_age` ("26h" or a timedelta) fails the report when the last
    completed sync is older, measured from `now` (default: the current time). `csv_dir`
    also receives each section's data as CSV (through `channelkit.export`), linked from
    the page. `format` is "html", "pdf" or "png" (both rendered by the system's Chromium);
    a PDF is on `paper` "a4" or "letter".
    `on_step` gets one line per step (default: the `channelkit.reports` logger at INFO).

    Raises `InvalidParameterError` for a bad parameter and `ReportError` (or the
    warehouse's `WarehouseError`) when the data is missing or stale, the template fails
    or no browser can render the PDF; in every such case nothing is written.
    """
    fmt = _check_format(format)
    if paper not in REPORT_PDF_PAPERS:
        raise InvalidParameterError(
            "paper", f"{paper!r}: expected one of {', '.join(REPORT_PDF_PAPERS)}"
        )
    if fmt != "html":
        from channelkit.reports.browser import check_browser

        check_browser()  # before the queries: a missing browser is known in a millisecond
    out = Path(out_path)
    csv_target = Path(csv_dir) if csv_dir is not None else None
    links = _csv_links(out, csv_target) if csv_target is not None else ()
    report = build_report(
        warehouse_path,
        since=since,
        until=until,
        period=period,
        compare=compare,
        tz=tz,
        channels=channels,
        template=template,
        max_age=max_age,
        now=now,
        on_step=on_step,
        links=links,
    )
    step = on_step or _log.info
    if csv_target is not None:
        from channelkit.export import to_csv

        step(f"writing {len(report.frames)} CSV files to {csv_target}")
        csv_target.mkdir(parents=True, exist_ok=True)
        for name, frame in report.frames.items():
            to_csv(frame, csv_target / f"{name}.csv")
    if fmt == "html":
        write_atomic(out, report.html)
    else:
        from channelkit.reports.browser import render_file

        step(f"rendering {fmt.upper()} with Chromium")
        render_file(report.html, out, fmt, paper)
    step(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return out


def build_report(
    warehouse_path: str | Path,
    *,
    since: date | str | None = None,
    until: date | str | None = None,
    period: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
    tz: str | ZoneInfo | None = None,
    channels: Sequence[str] = (),
    template: str | Path | None = None,
    max_age: timedelta | str | None = None,
    now: datetime | None = None,
    on_step: StepLogger | None = None,
    links: tuple[tuple[str, str], ...] = (),
) -> Report:
    """The report of `generate_report`, in memory (for `channelkit deliver` and notebooks)."""
    from channelkit.warehouse import Warehouse

    step = on_step or _log.info
    tz = resolve_zone(tz)
    compare = check_compare(compare)
    since_date = _as_date(since, "since")
    until_date = _as_date(until, "until")
    channel_names = _channel_names(channels)
    max_age_delta = parse_duration(max_age) if isinstance(max_age, str) else max_age
    if max_age_delta is not None and max_age_delta <= timedelta(0):
        raise InvalidParameterError("max_age", f"{max_age!r}: must be more than zero")
    template_path = Path(template) if template is not None else None
    if template_path is not None and not template_path.is_file():
        raise InvalidParameterError("template", f"{template_path}: no such file")

    step(f"reading warehouse {warehouse_path}")
    wh = Warehouse(warehouse_path)
    # One connection for every query: one consistent state of the file, opened once.
    with wh.session():
        freshness = wh.freshness()
        check_freshness(freshness, max_age_delta, now)
        report_range = report_period(wh, since=since_date, until=until_date, period=period, tz=tz)
        if until_date is not None:
            check_coverage(freshness, report_range)  # an explicit last day must have data
        complete = is_complete(wh, report_range)
        previous = compare_period(report_range, compare)
        step(f"period {report_range.label}, compared with {previous.label}")
        page, frames = _build(
            wh, report_range, previous, compare, channel_names, freshness, complete, step
        )
    page = replace(page, links=links)
    step("rendering HTML" + (f" with template {template_path}" if template_path else ""))
    return Report(page, render_page(page, template_path), frames, complete)


def is_complete(wh: Warehouse, report_range: ReportPeriod) -> bool:
    """Whether the warehouse has final analytics for every day of `report_range`."""
    return _coverage(wh).covers(report_range.period)


def _coverage(wh: Warehouse) -> Coverage:
    from channelkit.analysis.coverage import read_coverage

    con = wh.duckdb
    try:
        return read_coverage(con)
    finally:
        con.close()


def _check_format(fmt: str) -> str:
    value = fmt.strip().lower() if isinstance(fmt, str) else fmt
    if value not in REPORT_FORMATS:
        raise InvalidParameterError(
            "format", f"{fmt!r}: expected one of {', '.join(REPORT_FORMATS)}"
        )
    return str(value)


def _csv_links(out: Path, csv_dir: Path) -> tuple[tuple[str, str], ...]:
    """Relative links from the report to its CSV files, so the folder can move as a whole."""
    from channelkit.reports.sections import CSV_NAMES

    base = os.path.relpath(csv_dir.resolve(), out.resolve().parent)
    return tuple(
        (name.replace("_", " "), Path(base, f"{name}.csv").as_posix()) for name in CSV_NAMES
    )


def _build(
    wh: Warehouse,
    report_range: ReportPeriod,
    previous: ReportPeriod,
    compare: str,
    channels: Sequence[str],
    freshness: Freshness,
    complete: bool,
    step: StepLogger,
) -> tuple[ReportPage, dict[str, pd.DataFrame]]:
    from channelkit.reports.sections import build_page

    return build_page(
        wh,
        report_range,
        previous=previous,
        compare=compare,
        channels=tuple(channels),
        freshness=freshness,
        complete=complete,
        plotlyjs=plotlyjs(),
        generator=f"channelkit {__version__}",
        step=step,
    )


def report_period(
    wh: Warehouse,
    *,
    since: date | str | None = None,
    until: date | str | None = None,
    period: str | None = None,
    tz: str | ZoneInfo | None = None,
) -> ReportPeriod:
    """The days a report on `wh` with these parameters covers (see `generate_report`):
    a named period ends with the warehouse's last complete synced day, as in every
    `Warehouse` metric."""
    coverage = _coverage(wh)
    coverage.require_synced()
    coverage.require_daily()
    assert coverage.last_complete_day is not None  # require_daily: there are daily rows
    return resolve_period(
        since=_as_date(since, "since"),
        until=_as_date(until, "until"),
        period=period,
        tz=resolve_zone(tz),
        last_day=coverage.last_complete_day,
        default_period=REPORT_PERIOD_DEFAULT,
    )


def _as_date(value: date | str | None, param: str) -> date | None:
    if isinstance(value, datetime):
        raise InvalidParameterError(
            param, f"{value!r}: a report covers whole days; pass a date or 'YYYY-MM-DD'"
        )
    if value is None or isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise InvalidParameterError(param, f"{value!r}: expected a date or 'YYYY-MM-DD'")
    return parse_date(value, param=param)


def _channel_names(channels: Sequence[str]) -> tuple[str, ...]:
    # a bare string is one channel, not a sequence of one-letter names
    names = (channels,) if isinstance(channels, str) else tuple(channels)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InvalidParameterError("channel", f"{name!r} is not a channel id, slug or name")
    return names
