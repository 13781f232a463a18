"""The DuckDB warehouse storage: schema, connections and writes (the sync's side).

The read API, `Warehouse`, lives in `channelkit.analysis.warehouse` above the metrics.
`channelkit.warehouse.Warehouse` still finds it, on first use and without this package
importing the read API (a name looked up at run time, not an import).
"""

from __future__ import annotations

from channelkit._lazy import lazy_attributes

__all__ = ["Warehouse"]


__getattr__, __dir__ = lazy_attributes(
    __name__, {"Warehouse": "channelkit.analysis.warehouse:Warehouse"}
)
