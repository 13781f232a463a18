"""How current a warehouse is: its last completed sync and the newest data it holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import duckdb

from channelkit.analysis.sql import first_row

COUNTED_TABLES = ("channels", "posts", "post_daily", "channel_daily")


@dataclass(frozen=True)
class Freshness:
    """The state of the data in a warehouse.

        >>> f = wh.freshness()  # doctest: +SKIP
        >>> f.last_sync_at, f.age(), f.row_counts["posts"]  # doctest: +SKIP

    `last_sync_at` is when the last *completed* sync finished (None if none completed);
    row counts leave out rows the sync marked deleted.
    """

    last_sync_at: datetime | None
    last_sync_mode: str | None
    base_url: str | None
    row_counts: dict[str, int] = field(default_factory=dict)
    last_published_at: datetime | None = None
    last_post_day: date | None = None
    last_channel_day: date | None = None

    def age(self, now: datetime | None = None) -> timedelta | None:
        """Time since the last completed sync (None if there was none)."""
        if self.last_sync_at is None:
            return None
        return (now or datetime.now(UTC)) - self.last_sync_at


def _instant(micros: int | None) -> datetime | None:
    # Instants travel as epoch microseconds: DuckDB's own TIMESTAMPTZ→Python conversion
    # needs pytz, which channelkit does not depend on.
    if micros is None:
        return None
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)


def read_freshness(con: duckdb.DuckDBPyConnection) -> Freshness:
    """Read the freshness facts from an open warehouse connection."""
    run = first_row(
        con,
        "SELECT epoch_us(finished_at), mode, base_url FROM sync_runs "
        "WHERE status = 'completed' ORDER BY finished_at DESC NULLS LAST LIMIT 1",
    )
    counts = first_row(
        con,
        "SELECT (SELECT count(*) FROM channels WHERE deleted_at IS NULL), "
        "(SELECT count(*) FROM posts WHERE deleted_at IS NULL), "
        "(SELECT count(*) FROM post_daily), (SELECT count(*) FROM channel_daily), "
        "(SELECT epoch_us(max(published_at)) FROM posts WHERE deleted_at IS NULL), "
        "(SELECT max(date) FROM post_daily), (SELECT max(date) FROM channel_daily)",
    )
    assert counts is not None  # a SELECT without FROM returns one row
    *numbers, last_published, last_post_day, last_channel_day = counts
    return Freshness(
        last_sync_at=None if run is None else _instant(run[0]),
        last_sync_mode=None if run is None else run[1],
        base_url=None if run is None else run[2],
        row_counts=dict(zip(COUNTED_TABLES, (int(n) for n in numbers), strict=True)),
        last_published_at=_instant(last_published),
        last_post_day=last_post_day,
        last_channel_day=last_channel_day,
    )
