"""Engagement reports people read and receive (`channelkit report`, `channelkit deliver`).

    from channelkit.reports import generate_report
    generate_report("warehouse.duckdb", "reports/october.html", period="month", tz="Europe/Berlin")

See docs/reports.md for the commands, periods, formats, delivery and custom templates.
Names load on first use, so that `channelkit --help` does not pay for pandas and plotly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from channelkit._lazy import lazy_attributes

_LAZY: dict[str, str] = {
    "generate_report": "channelkit.reports.generate:generate_report",
    "build_report": "channelkit.reports.generate:build_report",
    "report_period": "channelkit.reports.generate:report_period",
    "Report": "channelkit.reports.generate:Report",
    "ReportPage": "channelkit.reports.page:ReportPage",
    "ReportPeriod": "channelkit.reports.parameters:ReportPeriod",
    "ReportError": "channelkit.errors:ReportError",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from channelkit.errors import ReportError
    from channelkit.reports.generate import Report, build_report, generate_report, report_period
    from channelkit.reports.page import ReportPage
    from channelkit.reports.parameters import ReportPeriod

__all__ = [
    "generate_report",
    "build_report",
    "report_period",
    "Report",
    "ReportPage",
    "ReportPeriod",
    "ReportError",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
