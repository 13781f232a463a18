"""What a warehouse covers: synced at all, which days, with or without daily analytics.

Metrics check a `Coverage` before they answer, so that a warehouse that was never synced,
or synced by a key without `analytics:read`, raises an error that says what to do instead
of answering zeros; and every result can say whether its period (and its comparison) is
fully covered by synced daily rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import duckdb

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit.analysis.freshness import instant
from channelkit.analysis.period import Period
from channelkit.analysis.sql import first_row
from channelkit.errors import InvalidParameterError, NotSyncedError

DAILY_TABLES = ("post_daily", "channel_daily")


@dataclass(frozen=True)
class Coverage:
    """The days a warehouse holds daily rows for, and how its last syncs went.

    `last_complete_day` is the last UTC date whose daily rows are final: the day before
    the last completed sync, or the last day with rows if earlier. `horizon_start` is when
    the `SYNC_CONVERGENCE_RUNS`-th latest completed sync started (None with fewer runs):
    a post last synced before it has lifetime readers older than the sync's horizon.
    """

    synced: bool
    analytics_skipped: str | None
    first_day: date | None
    last_day: date | None
    last_complete_day: date | None
    horizon_start: datetime | None

    @property
    def has_daily(self) -> bool:
        return self.first_day is not None

    def require_synced(self) -> None:
        if not self.synced:
            raise NotSyncedError(
                "this warehouse has no completed sync yet; run `channelkit sync` first"
            )

    def require_daily(self) -> None:
        """Refuse metrics that need daily rows when the sync could not fetch them."""
        self.require_synced()
        if self.has_daily:
            return
        if self.analytics_skipped is not None:
            raise NotSyncedError(
                "this warehouse has no daily analytics: the API key used by `channelkit "
                "sync` lacks the analytics:read scope. Sync again with a key that has it "
                "(post listings such as wh.posts() work without it)"
            )
        raise NotSyncedError(
            "this warehouse has no daily analytics rows yet; run `channelkit sync` "
            "after the channels have published posts"
        )

    @property
    def range_label(self) -> str:
        if self.first_day is None or self.last_day is None:
            return "no days"
        return f"{self.first_day.isoformat()} to {self.last_day.isoformat()}"

    def covers(self, period: Period) -> bool:
        """Whether every day of `period` has final daily rows."""
        if not self.has_daily or period.start_day is None or period.end_day is None:
            return self.has_daily and period.start_day is None and period.end_day is None
        assert self.first_day is not None and self.last_complete_day is not None
        return (
            self.first_day <= period.start_day
            and period.end_day - timedelta(days=1) <= self.last_complete_day
        )

    def overlaps(self, period: Period) -> bool:
        """Whether any synced daily row falls in `period`."""
        if self.first_day is None or self.last_day is None:
            return False
        start, end = period.start_day, period.end_day
        return not (end is not None and end <= self.first_day) and not (
            start is not None and start > self.last_day
        )

    def require_overlap(self, period: Period, label: str) -> None:
        """Refuse a period outside the synced days, naming the days the warehouse covers."""
        if self.has_daily and not self.overlaps(period):
            raise InvalidParameterError(
                "period",
                f"no synced data in {label}: the warehouse covers {self.range_label} "
                "(UTC days); pick a period inside it or run `channelkit sync`",
            )


def read_coverage(con: duckdb.DuckDBPyConnection) -> Coverage:
    """Read the coverage facts from an open warehouse connection (a few small queries)."""
    runs = con.execute(
        "SELECT epoch_us(started_at), epoch_us(finished_at), counts FROM sync_runs "
        "WHERE status = 'completed' ORDER BY finished_at DESC NULLS LAST"
    ).fetchall()
    days = first_row(
        con,
        "SELECT least((SELECT min(date) FROM post_daily), (SELECT min(date) FROM channel_daily)), "
        "greatest((SELECT max(date) FROM post_daily), (SELECT max(date) FROM channel_daily))",
    )
    assert days is not None  # a SELECT without FROM returns one row
    first_day, last_day = days
    last_complete = last_day
    if runs and last_day is not None and runs[0][1] is not None:
        synced_day = instant(runs[0][1]).date()
        last_complete = min(last_day, synced_day - timedelta(days=1))
    skipped = None
    for _, _, counts in runs[:1]:
        reasons = (json.loads(counts) if isinstance(counts, str) else counts or {}).get(
            "skipped", {}
        )
        skipped = next((str(reasons[t]) for t in DAILY_TABLES if t in reasons), None)
    horizon = (
        instant(runs[SYNC_CONVERGENCE_RUNS - 1][0]) if len(runs) >= SYNC_CONVERGENCE_RUNS else None
    )
    return Coverage(
        synced=bool(runs),
        analytics_skipped=skipped,
        first_day=first_day,
        last_day=last_day,
        last_complete_day=last_complete,
        horizon_start=horizon,
    )
