"""`generate_report`: warehouse in, one self-contained HTML file out (or nothing at all)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa

from channelkit import __version__
from channelkit._constants import (
    REPORT_LOGGER_NAME,
    REPORT_PERIOD_DEFAULT,
)
from channelkit.errors import InvalidParameterError
from channelkit.reports.coverage import check_coverage, check_freshness, period_anchor
from channelkit.reports.files import write_atomic
from channelkit.reports.page import ReportPage
from channelkit.reports.period import (
    ReportParameterError,
    ReportPeriod,
    check_tz,
    parse_date,
    parse_duration,
    previous_period,
    resolve_period,
)
from channelkit.reports.render import plotlyjs, render_page

if TYPE_CHECKING:
    from channelkit.analysis.freshness import Freshness
    from channelkit.reports.sections import StepLogger
    from channelkit.warehouse import Warehouse

_log = logging.getLogger(REPORT_LOGGER_NAME)


def generate_report(
    warehouse_path: str | Path,
    out_path: str | Path,
    *,
    since: date | str | None = None,
    until: date | str | None = None,
    period: str | None = None,
    tz: str | None = None,
    channels: Sequence[str] = (),
    template: str | Path | None = None,
    csv_dir: str | Path | None = None,
    max_age: timedelta | str | None = None,
    now: datetime | None = None,
    on_step: StepLogger | None = None,
) -> Path:
    """Write the engagement report of `warehouse_path` to `out_path` and return that path.

        from channelkit.reports import generate_report
        generate_report("warehouse.duckdb", "reports/weekly.html", period="7d",
                        tz="Europe/Berlin", max_age="26h")

    The period is `since`..`until` (both days included), or `period` (e.g. "7d") ending at
    `until` or, by default, on the day of the last completed sync (that day excluded; or
    earlier, after the last day with analytics, when those end before it).
    `max_age` ("26h" or a timedelta) fails the report when the last completed sync is
    older, measured from `now` (default: the current time). `csv_dir` also receives each
    section's data as CSV. `on_step` gets one line per step (default: the
    `channelkit.reports` logger at INFO).

    Raises `ReportParameterError` for a bad parameter and `ReportError` (or the
    warehouse's `WarehouseError`) when the data is missing or stale or the template fails;
    in every such case nothing is written.
    """
    from channelkit.warehouse import Warehouse

    step = on_step or _log.info
    tz = check_tz(tz)
    since_date = _as_date(since, "since")
    until_date = _as_date(until, "until")
    channel_names = _channel_names(channels)
    max_age_delta = parse_duration(max_age) if isinstance(max_age, str) else max_age
    if max_age_delta is not None and max_age_delta <= timedelta(0):
        raise ReportParameterError(f"max_age={max_age!r}: must be more than zero")
    template_path = Path(template) if template is not None else None
    if template_path is not None and not template_path.is_file():
        raise ReportParameterError(f"--template {template_path}: no such file")
    out = Path(out_path)

    step(f"reading warehouse {warehouse_path}")
    wh = Warehouse(warehouse_path)
    # One connection for every query: one consistent state of the file, opened once.
    with wh.session():
        freshness = wh.freshness()
        check_freshness(freshness, max_age_delta, now)
        report_range = report_period(
            wh, since=since_date, until=until_date, period=period, tz=tz, freshness=freshness
        )
        check_coverage(freshness, report_range)
        step(f"period {report_range.label}")
        try:
            page, frames = _build(wh, report_range, channel_names, freshness, step)
        except InvalidParameterError as exc:
            # tz and dates are checked above: what is left is a --channel the data lacks
            raise ReportParameterError(f"--{exc}") from None
    step("rendering HTML" + (f" with template {template_path}" if template_path else ""))
    html = render_page(page, template_path)
    if csv_dir is not None:
        directory = Path(csv_dir)
        step(f"writing {len(frames)} CSV files to {directory}")
        for name, frame in frames.items():
            write_atomic(directory / f"{name}.csv", csv_text(frame))
    write_atomic(out, html)
    step(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return out


def _build(
    wh: Warehouse,
    report_range: ReportPeriod,
    channels: Sequence[str],
    freshness: Freshness,
    step: StepLogger,
) -> tuple[ReportPage, dict[str, pd.DataFrame]]:
    from channelkit.reports.sections import build_page

    return build_page(
        wh,
        report_range,
        previous=previous_period(report_range),
        channels=tuple(channels),
        freshness=freshness,
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
    tz: str | None = None,
    freshness: Freshness | None = None,
) -> ReportPeriod:
    """The days a report on `wh` with these parameters covers (see `generate_report`)."""
    fresh = freshness if freshness is not None else wh.freshness()
    tz = check_tz(tz)
    return resolve_period(
        since=_as_date(since, "since"),
        until=_as_date(until, "until"),
        period=period,
        tz=tz,
        anchor=period_anchor(fresh, tz),
        default_period=REPORT_PERIOD_DEFAULT,
    )


def csv_text(frame: pd.DataFrame) -> str:
    """`frame` as CSV, lists (tags) joined with "; " and instants in ISO 8601."""
    out = frame.copy()
    for column in out.columns:
        series = out[column]
        if isinstance(series.dtype, pd.ArrowDtype) and pa.types.is_list(series.dtype.pyarrow_dtype):
            out[column] = series.map(
                lambda tags: "" if tags is None or tags is pd.NA else "; ".join(map(str, tags)),
                na_action=None,
            )
        elif isinstance(series.dtype, pd.DatetimeTZDtype):
            out[column] = series.map(lambda t: "" if pd.isna(t) else t.isoformat())
    return str(out.to_csv(index=False, lineterminator="\n"))


def _as_date(value: date | str | None, param: str) -> date | None:
    if isinstance(value, datetime):
        raise ReportParameterError(
            f"{param}={value!r}: a report covers whole days; pass a date or 'YYYY-MM-DD'"
        )
    if value is None or isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise ReportParameterError(f"{param}={value!r}: expected a date or 'YYYY-MM-DD'")
    return parse_date(value, param=f"--{param}")


def _channel_names(channels: Sequence[str]) -> tuple[str, ...]:
    # a bare string is one channel, not a sequence of one-letter names
    names = (channels,) if isinstance(channels, str) else tuple(channels)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ReportParameterError(f"channels: {name!r} is not a channel id, slug or name")
    return names
