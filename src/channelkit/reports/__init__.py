"""Self-contained HTML engagement reports (`channelkit report`).

    from channelkit.reports import generate_report
    generate_report("warehouse.duckdb", "reports/weekly.html", period="7d", tz="Europe/Berlin")

See docs/reports.md for the command, scheduling and custom templates. Names load on first
use, so that `channelkit --help` does not pay for pandas and plotly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY: dict[str, str] = {
    "generate_report": "channelkit.reports.generate",
    "report_period": "channelkit.reports.generate",
    "ReportPage": "channelkit.reports.page",
    "ReportPeriod": "channelkit.reports.period",
    "ReportError": "channelkit.reports.period",
    "ReportParameterError": "channelkit.reports.period",
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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'channelkit.reports' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
