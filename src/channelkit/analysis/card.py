"""The facts a warehouse's card shows, read from an open connection (see `display.card`)."""

from __future__ import annotations

import duckdb

from channelkit._urls import redact_url
from channelkit.analysis.coverage import Coverage
from channelkit.analysis.freshness import read_freshness
from channelkit.display.card import WarehouseFacts


def read_facts(con: duckdb.DuckDBPyConnection, coverage: Coverage, source: str) -> WarehouseFacts:
    """Posts, channels, days covered, last sync and what a reader should know about them."""
    fresh = read_freshness(con)
    warnings = []
    if coverage.analytics_skipped is not None:
        warnings.append(
            f"no daily analytics ({coverage.analytics_skipped}): sync with a key that has "
            "analytics:read"
        )
    return WarehouseFacts(
        source=source,
        first_day=coverage.first_day,
        last_day=coverage.last_day,
        last_sync_at=fresh.last_sync_at,
        posts=fresh.row_counts.get("posts", 0),
        channels=fresh.row_counts.get("channels", 0),
        base_url=None if fresh.base_url is None else redact_url(fresh.base_url),
        warnings=tuple(warnings),
    )
