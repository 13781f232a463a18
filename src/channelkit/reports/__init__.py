"""Self-contained HTML engagement reports (`channelkit report`).

    from channelkit.reports import generate_report
    generate_report("warehouse.duckdb", "reports/weekly.html", period="7d", tz="Europe/Berlin")

See docs/reports.md for the command, scheduling and custom templates.
"""

from __future__ import annotations

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
