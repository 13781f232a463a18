"""The DuckDB warehouse: schema and connections (sync side), `Warehouse` (read side).

`Warehouse` loads on first use: it brings pandas, which the sync's write path never needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from channelkit._lazy import lazy_attributes

if TYPE_CHECKING:
    from channelkit.warehouse.warehouse import Warehouse

__all__ = ["Warehouse"]


__getattr__, __dir__ = lazy_attributes(
    __name__, {"Warehouse": "channelkit.warehouse.warehouse:Warehouse"}
)
