"""How current a warehouse is: its last completed sync and the newest data it holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import duckdb

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit._resources import RESOURCES
from channelkit.analysis.sql import first_row
from channelkit.storage.connection import held_tables


def _row_counts(held: set[str]) -> str:
    """Every synced table's rows, those marked deleted left out (_resources.py); a table the
    file does not have yet (a resource added since its last sync) counts 0."""
    return ", ".join(
        f"(SELECT count(*) FROM {r.table}{' WHERE deleted_at IS NULL' if r.deletable else ''})"
        if r.table in held
        else "0"
        for r in RESOURCES
    )


@dataclass(frozen=True)
class Freshness:
    """The state of the data in a warehouse.

        >>> f = wh.freshness()  # doctest: +SKIP
        >>> f.last_sync_at, f.age(), f.row_counts["posts"]  # doctest: +SKIP

    `last_sync_at` is when the last *completed* sync finished (None if none completed);
    row counts leave out rows the sync marked deleted. `oldest_post_synced_at` is the
    oldest `synced_at` of a published post (when its lifetime readers were last read) and
    `revisited_share` the share of published posts re-read within the last
    `horizon_runs` completed syncs (1.0 while there have been fewer runs than that).
    `warnings` says when what it read is not the warehouse's latest state (a `with
    wh.session():` block opened before a sync switched a newer file in).
    """

    last_sync_at: datetime | None
    last_sync_mode: str | None
    base_url: str | None
    row_counts: dict[str, int] = field(default_factory=dict)
    last_published_at: datetime | None = None
    last_post_day: date | None = None
    last_channel_day: date | None = None
    oldest_post_synced_at: datetime | None = None
    revisited_share: float | None = None
    horizon_runs: int = SYNC_CONVERGENCE_RUNS
    warnings: tuple[str, ...] = ()

    def age(self, now: datetime | None = None) -> timedelta | None:
        """Time since the last completed sync (None if there was none)."""
        if self.last_sync_at is None:
            return None
        return (now or datetime.now(UTC)) - self.last_sync_at


def instant(micros: int) -> datetime:
    """An aware UTC datetime from epoch microseconds."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)


def _instant(micros: int | None) -> datetime | None:
    # Instants travel as epoch microseconds: DuckDB's own TIMESTAMPTZ→Python conversion
    # needs pytz, which channelkit does not depend on.
    if micros is None:
        return None
    return instant(micros)


def read_freshness(con: duckdb.DuckDBPyConnection) -> Freshness:
    """Read the freshness facts from an open warehouse connection."""
    run = first_row(
        con,
        "SELECT epoch_us(finished_at), mode, base_url FROM sync_runs "
        "WHERE status = 'completed' ORDER BY finished_at DESC NULLS LAST LIMIT 1",
    )
    counts = first_row(
        con,
        f"SELECT {_row_counts(held_tables(con))}, "
        "(SELECT epoch_us(max(published_at)) FROM posts WHERE deleted_at IS NULL), "
        "(SELECT max(date) FROM post_daily), (SELECT max(date) FROM channel_daily)",
    )
    assert counts is not None  # a SELECT without FROM returns one row
    readers = first_row(
        con,
        "WITH horizon AS (SELECT started_at FROM sync_runs WHERE status = 'completed' "
        "ORDER BY finished_at DESC NULLS LAST LIMIT 1 OFFSET ?) "
        "SELECT epoch_us(min(p.synced_at)), CASE WHEN (SELECT count(*) FROM horizon) = 0 "
        "THEN 1.0 ELSE avg((p.synced_at >= (SELECT started_at FROM horizon))::INT) END "
        "FROM posts p WHERE p.deleted_at IS NULL AND p.status = 'published'",
        [SYNC_CONVERGENCE_RUNS - 1],
    )
    assert readers is not None
    *numbers, last_published, last_post_day, last_channel_day = counts
    return Freshness(
        last_sync_at=None if run is None else _instant(run[0]),
        last_sync_mode=None if run is None else run[1],
        base_url=None if run is None else run[2],
        row_counts={r.table: int(n) for r, n in zip(RESOURCES, numbers, strict=True)},
        last_published_at=_instant(last_published),
        last_post_day=last_post_day,
        last_channel_day=last_channel_day,
        oldest_post_synced_at=_instant(readers[0]),
        revisited_share=None if readers[0] is None else float(readers[1]),
    )
