"""The DuckDB warehouse: schema and connections (sync side), `Warehouse` (read side)."""

from __future__ import annotations

from channelkit.warehouse.warehouse import Warehouse

__all__ = ["Warehouse"]
