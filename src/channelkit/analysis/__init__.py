"""The metric definitions and queries behind `channelkit.Warehouse` (see docs/metrics.md).

Pure pieces (periods, filters, dtype rules) are separate from the queries, which run on a
DuckDB connection the caller owns; `Warehouse` owns the connections.
"""

from __future__ import annotations

from channelkit.analysis.freshness import Freshness
from channelkit.analysis.period import Period, parse_period
from channelkit.errors import InvalidParameterError

__all__ = ["InvalidParameterError", "Freshness", "Period", "parse_period"]
