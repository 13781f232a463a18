"""Everything the writer keeps beside the daily rows, derived from them, for a file whose
rows were written some other way (the warehouses tests and benches build with SQL).

- each post's reach (`storage.reach`);
- the daily rows summed per channel and day (`storage.totals`).
"""

from __future__ import annotations

import duckdb

from channelkit.storage.reach import refresh_reach
from channelkit.storage.totals import refresh_totals


def refresh_derived(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute all of it from the file's daily rows, as the writer would have kept it."""
    refresh_reach(con)
    refresh_totals(con)
