"""What a warehouse covers: synced at all, which days, with or without daily analytics.

Metrics check a `Coverage` before they answer, so that a warehouse that was never synced,
or synced by a key without `analytics:read`, raises an error that says what to do instead
of answering zeros; and every result can say whether its period (and its comparison) is
fully covered by synced daily rows.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal, NamedTuple

import duckdb

from channelkit._constants import SYNC_CONVERGENCE_RUNS
from channelkit.analysis.freshness import instant
from channelkit.analysis.period import Period
from channelkit.analysis.rows import has_daily_totals
from channelkit.analysis.sql import first_row
from channelkit.errors import InvalidParameterError, NotSyncedError

DAILY_TABLES = ("post_daily", "channel_daily")
# The kinds of synced data a number rests on: posts (their daily rows and readers) or
# channel analytics (subscribers). Each has its own first day, per channel.
DataKind = Literal["posts", "channels"]
DATA_KINDS: tuple[DataKind, ...] = ("posts", "channels")


@dataclass(frozen=True)
class Coverage:
    """The days a warehouse holds daily rows for, and how its last syncs went.

    `last_complete_day` is the last UTC date whose daily rows are final: the day before
    the last completed sync, or the last day with rows if earlier. `horizon_start` is when
    the `SYNC_CONVERGENCE_RUNS`-th latest completed sync started (None with fewer runs):
    a post last synced before it has lifetime readers older than the sync's horizon.

    `synced_days` are the UTC dates with any daily row (a date missing between the first and
    the last is a gap the sync never filled); `firsts[kind][channel_id]` is the first day
    of each kind of data per channel, so a period is whole for posts only from the day the
    posts' daily rows begin, however early channel analytics begin:

        cov.whole(period, "posts")            # every day synced, from posts' first day
        cov.days_in(first, stop, "channels")  # days of [first, stop) with synced data
    """

    synced: bool
    analytics_skipped: str | None
    first_day: date | None
    last_day: date | None
    last_complete_day: date | None
    horizon_start: datetime | None
    synced_days: tuple[date, ...] = ()
    firsts: Mapping[str, Mapping[str, date]] = field(default_factory=dict)

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

    def covers(
        self,
        period: Period,
        kind: DataKind | None = None,
        channel_ids: Sequence[str] | None = None,
    ) -> bool:
        """Whether every day of `period` has final daily rows (of `kind`, or of both kinds
        without it; of the channels `channel_ids`, or of any channel)."""
        if not self.has_daily or period.start_day is None or period.end_day is None:
            return self.has_daily and period.start_day is None and period.end_day is None
        kinds = DATA_KINDS if kind is None else (kind,)
        return all(self.whole(period.start_day, period.end_day, k, channel_ids) for k in kinds)

    def first_of(self, kind: DataKind, channel_ids: Sequence[str] | None = None) -> date | None:
        """The first synced day of `kind` (of the channels `channel_ids`, when given)."""
        firsts = self.firsts.get(kind)
        if not firsts:  # facts read without per-channel days: the warehouse's first day
            return self.first_day
        days = [firsts[c] for c in (firsts if channel_ids is None else channel_ids) if c in firsts]
        return min(days) if days else None

    def days_in(
        self, first: date, stop: date, kind: DataKind, channel_ids: Sequence[str] | None = None
    ) -> int:
        """How many days of `[first, stop)` have final synced rows of `kind`: on or after
        its first day, through the last complete day, and not in a gap."""
        begin = self.first_of(kind, channel_ids)
        if begin is None or self.last_complete_day is None:
            return 0
        lo, hi = max(first, begin), min(stop, self.last_complete_day + timedelta(days=1))
        if hi <= lo:
            return 0
        if not self.synced_days:  # no list of days read: every day in range counts
            return (hi - lo).days
        return bisect_left(self.synced_days, hi) - bisect_left(self.synced_days, lo)

    def gaps(self) -> list[tuple[date, date]]:
        """The first and last day of each run of days without any daily row between the
        first and the last synced day."""
        out: list[tuple[date, date]] = []
        for before, after in zip(self.synced_days, self.synced_days[1:], strict=False):
            if (after - before).days > 1:
                out.append((before + timedelta(days=1), after - timedelta(days=1)))
        return out

    def whole(
        self, first: date, stop: date, kind: DataKind, channel_ids: Sequence[str] | None = None
    ) -> bool:
        """Whether every day of `[first, stop)` has final synced rows of `kind`."""
        return self.days_in(first, stop, kind, channel_ids) == (stop - first).days

    def overlaps(self, period: Period) -> bool:
        """Whether any synced daily row falls in `period` (a period inside a gap has none)."""
        if self.first_day is None or self.last_day is None:
            return False
        start, end = period.start_day, period.end_day
        if self.synced_days:
            lo = 0 if start is None else bisect_left(self.synced_days, start)
            hi = len(self.synced_days) if end is None else bisect_left(self.synced_days, end)
            return hi > lo
        return not (end is not None and end <= self.first_day) and not (
            start is not None and start > self.last_day
        )

    def require_overlap(self, period: Period, label: str) -> None:
        """Refuse a period outside the synced days, naming the days the warehouse covers."""
        if self.has_daily and not self.overlaps(period):
            raise InvalidParameterError(
                "period",
                f"no synced data in {label}: the warehouse covers {self.range_label} "
                f"(UTC days{self._gaps_said()}); pick a period inside it or run "
                "`channelkit sync`",
            )

    def _gaps_said(self) -> str:
        gaps = [f"{a.isoformat()} to {b.isoformat()}" for a, b in self.gaps()]
        return f", without {', '.join(gaps)}" if gaps else ""


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
        # The server's day at the sync was at least the last day it gave rows for: a
        # machine whose clock is behind the server's must not cut its own data short.
        synced_day = max(instant(runs[0][1]).date(), last_day)
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
    synced_days, firsts = _days_and_firsts(con)
    return Coverage(
        synced=bool(runs),
        analytics_skipped=skipped,
        first_day=first_day,
        last_day=last_day,
        last_complete_day=last_complete,
        horizon_start=horizon,
        synced_days=synced_days,
        firsts=firsts,
    )


def _days_and_firsts(
    con: duckdb.DuckDBPyConnection,
) -> tuple[tuple[date, ...], dict[str, dict[str, date]]]:
    """Every UTC date with daily rows, and each kind's first day per channel: from the
    per-channel daily sums the writer keeps (a few rows a day), else from the rows."""
    posts = "daily_totals" if has_daily_totals(con) else "post_daily"
    rows = con.execute(
        f"SELECT 'posts', channel_id, min(date) FROM {posts} GROUP BY ALL UNION ALL "
        "SELECT 'channels', channel_id, min(date) FROM channel_daily GROUP BY ALL"
    ).fetchall()
    firsts: dict[str, dict[str, date]] = {kind: {} for kind in DATA_KINDS}
    for kind, channel_id, first in rows:
        firsts[str(kind)][str(channel_id)] = first
    days = con.execute(
        f"SELECT DISTINCT date FROM {posts} UNION SELECT DISTINCT date FROM channel_daily "
        "ORDER BY 1"
    ).fetchall()
    return tuple(day for (day,) in days), firsts


class RowCoverage(NamedTuple):
    """Per row of a frame grouped by period: `days` with final synced rows of the kind,
    `complete` (every day of the row), `seen` (days with any daily row, the sync's own
    day too: 0 means the row's daily numbers are unknown, not zero)."""

    days: list[int]
    complete: list[bool]
    seen: list[int]


def period_coverage(
    coverage: Coverage,
    buckets: Sequence[date],
    ends: Sequence[date],
    period: Period,
    kind: DataKind,
    channel_ids: Sequence[str] | None = None,
) -> RowCoverage:
    """Per row `[bucket, end)` of a frame grouped by period, its coverage inside `period`
    by synced rows of `kind` (a week cut by the period's start, or reaching past the last
    synced day, is not complete)."""
    out = RowCoverage([], [], [])
    for first, stop in zip(buckets, ends, strict=True):
        lo = max(first, period.start_day) if period.start_day is not None else first
        hi = min(stop, period.end_day) if period.end_day is not None else stop
        count = coverage.days_in(lo, hi, kind, channel_ids) if lo < hi else 0
        out.days.append(count)
        out.complete.append(count == (stop - first).days)
        days = coverage.synced_days
        out.seen.append(bisect_left(days, hi) - bisect_left(days, lo) if lo < hi else 0)
    return out
