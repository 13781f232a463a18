"""Self-contained HTML engagement reports (`channelkit report`).

    from channelkit.reports import generate_report
    generate_report("warehouse.duckdb", "reports/weekly.html", period="7d", tz="Europe/Berlin")

See docs/reports.md for the command, scheduling and custom templates. Names load on first
use, so that `channelkit --help` does not pay for pandas and plotly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from channelkit._lazy import lazy_attributes

_LAZY: dict[str, str] = {
    "generate_report": "channelkit.reports.generate:generate_report",
    "report_period": "channelkit.reports.generate:report_period",
    "ReportPage": "channelkit.reports.page:ReportPage",
    "ReportPeriod": "channelkit.reports.period:ReportPeriod",
    "ReportError": "channelkit.reports.period:ReportError",
    "ReportParameterError": "channelkit.reports.period:ReportParameterError",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from channelkit.reports.generate import generate_report, report_period
    from channelkit.reports.page import ReportPage
    from channelkit.reports.period import ReportError, ReportParameterError, ReportPeriod

__all__ = [
    "generate_report",
    "report_period",
    "ReportPage",
    "ReportPeriod",
    "ReportError",
    "ReportParameterError",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
