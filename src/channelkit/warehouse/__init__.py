"""The DuckDB warehouse storage: schema, connections and writes (the sync's side).

The read API, `Warehouse`, lives in `channelkit.analysis.warehouse` above the metrics;
it is re-exported here (loaded on first use) so `channelkit.warehouse.Warehouse` keeps
working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from channelkit._lazy import lazy_attributes

if TYPE_CHECKING:
    from channelkit.analysis.warehouse import Warehouse

__all__ = ["Warehouse"]


__getattr__, __dir__ = lazy_attributes(
    __name__, {"Warehouse": "channelkit.analysis.warehouse:Warehouse"}
)
