"""The DuckDB warehouse: schema and connections (sync side), `Warehouse` (read side).

`Warehouse` loads on first use: it brings pandas, which the sync's write path never needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from channelkit.warehouse.warehouse import Warehouse

__all__ = ["Warehouse"]


def __getattr__(name: str) -> Any:
    if name == "Warehouse":
        from channelkit.warehouse.warehouse import Warehouse

        return Warehouse
    raise AttributeError(f"module 'channelkit.warehouse' has no attribute {name!r}")
