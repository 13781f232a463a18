"""What the warehouse already holds, as the sync plans its walks from it.

The sync asks these questions of the storage instead of writing SQL itself; the answers
are plain values.

    held = Holdings(con)
    held.pending_posts()              # drafts and scheduled posts not known to be gone
    held.published_from(position)     # posts published at or after `position`
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime
from typing import Any

import duckdb

from channelkit.storage.writer import from_epoch_us


class Holdings:
    """Read-only questions about an open warehouse connection (the sync's writing one).

    held = Holdings(open_warehouse("warehouse.duckdb"))
    earliest, newest = held.data_range()
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def pending_posts(self) -> list[str]:
        """Ids of the drafts and scheduled posts not marked deleted, in id order."""
        rows = self._con.execute(
            "SELECT id FROM posts WHERE deleted_at IS NULL "
            "AND status IN ('draft', 'scheduled') ORDER BY id"
        ).fetchall()
        return [r[0] for r in rows]

    def last_view(self) -> dict[str, Any] | None:
        """The view (`sync.view`) the last completed run recorded, None before any did."""
        rows = self._con.execute(
            "SELECT CAST(counts AS VARCHAR) FROM sync_runs WHERE status = 'completed' "
            "ORDER BY finished_at DESC LIMIT 1"
        ).fetchall()
        view = json.loads(rows[0][0] or "{}").get("view") if rows else None
        return view if isinstance(view, dict) else None

    def channels_with_posts(self, channel_ids: Collection[str] | None) -> set[str]:
        """Those of `channel_ids` (None: of all channels) holding a post not marked deleted."""
        sql = "SELECT DISTINCT channel_id FROM posts WHERE deleted_at IS NULL"
        if channel_ids is None:
            rows = self._con.execute(sql).fetchall()
        else:
            sql += " AND list_contains(?, channel_id)"
            rows = self._con.execute(sql, [sorted(channel_ids)]).fetchall()
        return {row[0] for row in rows}

    def count(self, table: str) -> int:
        return int(self._con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])

    def published_from(self, position: datetime | None) -> int:
        """Posts with a publication time at or after `position` (None: all of them)."""
        sql = "SELECT count(*) FROM posts WHERE published_at IS NOT NULL"
        args: list[Any] = []
        if position is not None:
            sql += " AND published_at >= CAST(? AS TIMESTAMPTZ)"
            args.append(position.isoformat())
        return int(self._con.execute(sql, args).fetchall()[0][0])

    def slice_end(self, position: datetime | None, quota: int) -> datetime | None:
        """Where a slice of `quota` posts from `position` ends (None: it takes the rest).

        Posts published at the same instant stay in one slice."""
        since = "" if position is None else " AND published_at >= CAST(? AS TIMESTAMPTZ)"
        args: list[Any] = [] if position is None else [position.isoformat()]
        row = self._con.execute(
            "SELECT epoch_us(published_at) FROM posts WHERE published_at IS NOT NULL"
            f"{since} ORDER BY published_at LIMIT 1 OFFSET ?",
            [*args, quota],
        ).fetchall()
        end = from_epoch_us(row[0][0]) if row else None
        if end is not None and position is not None and end <= position:
            row = self._con.execute(
                "SELECT epoch_us(min(published_at)) FROM posts "
                "WHERE published_at > CAST(? AS TIMESTAMPTZ)",
                [position.isoformat()],
            ).fetchall()
            end = from_epoch_us(row[0][0])
        return end

    def data_range(self) -> tuple[datetime | None, datetime | None]:
        """The earliest and the latest instant the posts and channels mention."""
        row = self._con.execute(
            "SELECT epoch_us(least(p.first, c.first)), epoch_us(greatest(p.last, c.last)) "
            "FROM (SELECT min(published_at) AS first, "
            "greatest(max(published_at), max(updated_at)) AS last FROM posts) p, "
            "(SELECT min(created_at) AS first, max(updated_at) AS last FROM channels) c"
        ).fetchall()[0]
        return from_epoch_us(row[0]), from_epoch_us(row[1])
