"""The read API of a warehouse: tidy DataFrames of posts, channels and engagement metrics.

Each call opens its own short-lived read-only connection and closes it before returning,
so a notebook that keeps a `Warehouse` around never blocks the next `channelkit sync`;
`with wh.session():` reuses one connection for a batch of calls (a report, a dashboard).
The metric definitions live in `channelkit.analysis.metrics` and `docs/metrics.md`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pandas as pd
from duckdb import DuckDBPyConnection

from channelkit._constants import (
    GRID_MAX_CELLS,
    KPI_DEFAULT_DAYS,
    LOW_REACH_SHARE,
    REACH_CURVE_DAYS,
    REACH_CURVE_MAX_DAYS,
    SMALL_SAMPLE_POSTS,
    SYNC_CONVERGENCE_RUNS,
    TOP_POSTS_MIN_VIEWS,
    TOP_POSTS_N,
)
from channelkit._spec import POST_STATUSES
from channelkit._tz import resolve_tz
from channelkit._urls import redact_url
from channelkit.analysis import metrics
from channelkit.analysis.coverage import Coverage, read_coverage
from channelkit.analysis.filters import OneOrMany, PostFilter, as_values, resolve_filter
from channelkit.analysis.frames import local_midnight, to_frame
from channelkit.analysis.freshness import Freshness, read_freshness
from channelkit.analysis.metrics import day_range, instant_range
from channelkit.analysis.period import Moment, Period, check_tz, parse_period, to_local
from channelkit.analysis.sql import Sql, first_row, plain_frame
from channelkit.errors import InvalidParameterError
from channelkit.warehouse.connection import (
    WarehouseError,
    is_storage_fault,
    open_warehouse,
    storage_problem,
)
from channelkit.warehouse.parquet import export_parquet

if TYPE_CHECKING:
    from channelkit.sync.report import SyncReport


class Warehouse:
    """A synced warehouse file, read through DuckDB into pandas.

        import channelkit as ck

        wh = ck.Warehouse("warehouse.duckdb")
        weekly = wh.engagement_over_time("week", period="2026-Q3", tz="Europe/Berlin")
        ck.plots.engagement_over_time(weekly).show()
        wh.kpis(period="2026-10", channel="All Hands")      # October vs September
        wh.kpis(period="month", compare="year", by="channel")

    Every metric method takes the same keyword-only arguments: `period` ("2026-10",
    "2026-Q3", "2026", "2026-W44", "2026-10-05", "7d", "12w", "week", "month", "quarter")
    or `start` (inclusive) and `end` (exclusive) as dates, datetimes or ISO strings (dates
    are local to `tz`); `tz`, the IANA timezone of every calendar grouping (default:
    `CHANNELKIT_TZ`, else UTC); `channel` (id, slug or name), `tag`, `priority` and
    `author` (id, name or email), each a value or a list of values. A wrong argument
    raises `InvalidParameterError` (a `ValueError`) naming the parameter. Results carry
    `df.attrs`: `period`, `previous_period` (labels), `filters`, `complete`, `warnings`,
    `tz`, `start`, `end` (see docs/metrics.md).
    """

    def __init__(self, path: str | Path, *, sync_report: SyncReport | None = None) -> None:
        self.path = Path(path)
        self.sync_report = sync_report
        self._session: DuckDBPyConnection | None = None
        self._covered: tuple[tuple[int, int], Coverage] | None = None
        self._lake: str | None = None
        with self._connect() as con:  # fail now, not at the first query
            read_coverage(con).require_synced()

    @classmethod
    def from_lake(cls, root: str | Path) -> Warehouse:
        """The Delta Lake copy written by `channelkit sync --lake ROOT`, read through DuckDB.

            wh = ck.Warehouse.from_lake("lake/")       # or "s3://bucket/channelkit"
            wh.kpis(period="2026-10", by="channel")

        Every method works as on the DuckDB file; each call reads the tables' latest
        versions (`with wh.session():` pins one version for a batch of calls).
        """
        wh = cls.__new__(cls)
        wh.path, wh.sync_report, wh._session = Path(str(root)), None, None
        wh._covered, wh._lake = None, str(root)
        with wh._connect() as con:
            read_coverage(con).require_synced()
        return wh

    def __repr__(self) -> str:
        if self._lake is not None:
            return f"Warehouse.from_lake({redact_url(self._lake)!r})"
        return f"Warehouse({str(self.path)!r})"

    @contextmanager
    def session(self) -> Iterator[Warehouse]:
        """Keep one read-only connection open for every call inside the block.

            with wh.session():
                kpis, trend = wh.kpis(start=s, end=e), wh.engagement_over_time(start=s, end=e)

        Faster for many calls in a row (the file is opened once and its pages stay
        cached), but a sync cannot write until the block ends; not for use from several
        threads at once.
        """
        if self._session is not None:  # nested: the outer block owns the connection
            yield self
            return
        self._session = self._open()
        try:
            yield self
        finally:
            con, self._session = self._session, None
            con.close()

    def _open(self) -> DuckDBPyConnection:
        con = self._open_raw()
        # Instants are converted to the caller's tz in pandas; the session zone only decides
        # how DuckDB hands them over, so pin it instead of using the machine's zone.
        con.execute("SET TimeZone = 'UTC'")
        return con

    @contextmanager
    def _connect(self) -> Iterator[DuckDBPyConnection]:
        own = self._session is None
        con = self._open() if self._session is None else self._session
        try:
            yield con
        except duckdb.Error as exc:
            # A damaged or full disk is not the caller's query's fault: one line, a remedy.
            if not is_storage_fault(exc):
                raise
            raise WarehouseError(f"{self.path}: {storage_problem(exc)}") from None
        finally:
            if own:
                con.close()

    @property
    def duckdb(self) -> DuckDBPyConnection:
        """A new read-only DuckDB connection to the file; close it when done.

        with wh.duckdb as con:
            con.sql("SELECT count(*) FROM posts").fetchall()
        """
        return self._open_raw()

    def _open_raw(self) -> DuckDBPyConnection:
        if self._lake is not None:
            from channelkit.warehouse.lake import open_lake

            return open_lake(self._lake)
        return open_warehouse(self.path, read_only=True)

    def sql(
        self,
        query: str,
        params: Sequence[object] | dict[str, object] | None = None,
        *,
        tz: str | None = None,
    ) -> pd.DataFrame:
        """Run a read-only SQL query (with `?` or `$name` parameters) and return a DataFrame.

        Dtypes follow the metric methods; TIMESTAMPTZ columns are converted to `tz`.
        """
        tz = _zone(tz)
        check_tz(tz)
        with self._connect() as con:
            try:
                table = con.sql(query, params=params).to_arrow_table()
            except duckdb.Error as exc:
                if is_storage_fault(exc):
                    raise
                raise InvalidParameterError("query", str(exc).strip()) from None
        return to_frame(table, tz)

    def freshness(self) -> Freshness:
        """Last completed sync (time, mode, base URL), row counts, the newest data and how
        recently posts' lifetime readers were re-read (`oldest_post_synced_at`,
        `revisited_share` within the last SYNC_CONVERGENCE_RUNS syncs)."""
        with self._connect() as con:
            return read_freshness(con)

    def posts(
        self,
        *,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
        status: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per post (`tags` as a list, `readers` its lifetime unique readers).

        `period`/`start`/`end` select posts by `published_at` (which leaves out drafts and
        scheduled posts); `status` is one of draft, scheduled, published, archived, or a
        list. Works without daily analytics (a key without analytics:read).
        """
        statuses = as_values(status, param="status")
        if statuses is not None:
            statuses = tuple(value.lower() for value in statuses)
        for value in statuses or ():
            if value not in POST_STATUSES:
                raise InvalidParameterError(
                    "status", f"{value!r} is not one of {', '.join(POST_STATUSES)}"
                )
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args, daily=False) as q:
            frame = metrics.posts(q.con, q.flt, q.period, statuses)
            q.readers_age()
        return q.finish(frame, "posts")

    def channels(self, *, tz: str | None = None) -> pd.DataFrame:
        """One row per channel (deleted ones left out), by name."""
        zone = _zone(tz)
        check_tz(zone)
        with self._connect() as con:
            return metrics.channels(con, zone)

    def engagement_over_time(
        self,
        freq: str = "day",
        *,
        by: str | None = None,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Posts published, readers, read rate, opens and engagements per day, week or month.

        One row per period (`period` = its first local midnight; with `by="channel"` one per
        period and channel), gaps filled with zeros. Weeks start on Monday. Daily rows (UTC
        days) go to the local day with the same date; posts published, and their readers,
        go to the local day of `published_at` in `tz`.
        """
        if freq not in metrics.FREQS:
            raise InvalidParameterError(
                "freq", f"{freq!r} is not one of {', '.join(metrics.FREQS)}"
            )
        by_channel = _check_by(by)
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            cov = q.coverage
            size = metrics.grid_size(q.period, freq, cov.first_day, cov.last_day)
            if by_channel:
                size *= max(1, len(metrics.channel_names(q.con, q.flt.channel_ids)))
            _check_grid(size, freq)
            frame = metrics.engagement_over_time(
                q.con,
                q.flt,
                q.period,
                freq,
                by_channel=by_channel,
                first=cov.first_day,
                last=cov.last_day,
            )
            q.readers_age()
            q.no_audience(frame.attrs.pop("posts_without_audience", 0))
        return q.finish(frame, "engagement_over_time", freq=freq, by=by)

    def kpis(
        self,
        *,
        compare: str = "previous",
        by: str | None = None,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Headline numbers of the period against its comparison period, one row per metric.

        Metrics: posts_published, readers, read_rate, opens, engagements, engagement_rate,
        net_subscribers. Columns: metric, label, kind ("count"/"rate"), value, previous,
        delta, delta_pct (NA unless previous > 0) and small_base (previous below
        KPI_SMALL_BASE_COUNT for counts, a previous denominator below
        KPI_SMALL_BASE_AUDIENCE for rates); `by="channel"` adds channel_id and channel.
        `compare="previous"` is the previous period of the same kind (October vs
        September), `"year"` the same period a year earlier. When either side runs past
        the synced data, `attrs["complete"]` is False and deltas are NA (read_rate's
        excepted). Without a period: the last KPI_DEFAULT_DAYS complete days.
        """
        by_channel = _check_by(by)
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args, default=f"{KPI_DEFAULT_DAYS}d", compare=compare) as q:
            period_ = q.period = _whole(q.period)
            previous = q.previous = period_.compared(compare)
            complete = q.coverage.covers(period_) and q.coverage.covers(previous)
            if not complete:
                q.warnings.append(
                    f"{period_.label} or {previous.label} is not fully covered by synced "
                    f"daily rows (the warehouse covers {q.coverage.range_label}); deltas are "
                    "left out except for read rate."
                )
            frame = metrics.kpis(
                q.con, q.flt, period_, previous, by_channel=by_channel, complete=complete
            )
            q.readers_age()
            q.no_audience(frame.attrs.pop("posts_without_audience", 0))
        return q.finish(frame, "kpis", by=by, compare=compare, complete=complete)

    def top_posts(
        self,
        by: str = "readers",
        n: int = TOP_POSTS_N,
        *,
        min_opens: int | None = None,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """The `n` best posts by readers, read rate, opens or engagement rate.

        by="readers"/"read_rate": posts published in the period, by their lifetime readers
        (read_rate only for posts whose audience is at least KPI_SMALL_BASE_AUDIENCE).
        by="opens"/"engagement_rate": every post's daily rows in the period, whenever it was
        published; posts with fewer than `min_opens` opens are left out (default: none for
        opens, TOP_POSTS_MIN_VIEWS for engagement_rate). Ties are broken by post id.
        """
        if by not in metrics.TOP_BY:
            raise InvalidParameterError("by", f"{by!r} is not one of {', '.join(metrics.TOP_BY)}")
        count = _check_count("n", n, minimum=1)
        if min_opens is None:
            min_opens = TOP_POSTS_MIN_VIEWS if by == "engagement_rate" else 0
        least = _check_count("min_opens", min_opens, minimum=0)
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.top_posts(q.con, q.flt, q.period, by=by, n=count, min_opens=least)
            q.readers_age()
        return q.finish(frame, "top_posts", by=by, min_opens=least)

    def channel_comparison(
        self,
        *,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Per channel: posts, readers, audience, read rate, opens, engagements, subscribers.

        Highest read rate first. `subscribers` is the channel's count on the last synced
        day of the period (from channel analytics), not today's.
        """
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.channel_comparison(q.con, q.flt, q.period)
            q.readers_age()
            q.no_audience(frame.attrs.pop("posts_without_audience", 0))
        return q.finish(frame, "channel_comparison")

    def tag_performance(
        self,
        *,
        by: str | None = None,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per tag of the posts published in the period, most-used first.

        `posts` carry the tag; `readers` and `read_rate` (Σ readers ÷ Σ audience) are
        theirs; `lift` is the median over those posts of (the post's read rate ÷ its
        channel's median read rate in the period), so big channels do not decide the
        answer; opens/engagements are their daily rows in the period; `small_sample`
        flags tags on fewer than `small_sample_n` posts.
        """
        by_channel = _check_by(by)
        least = _check_count("small_sample_n", small_sample_n, minimum=1)
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.tag_performance(
                q.con, q.flt, q.period, by_channel=by_channel, small_sample_n=least
            )
            frame = _named_channels(q.con, frame, by_channel)
            q.readers_age()
            q.no_audience(metrics.posts_without_audience(q.con, q.flt, q.period))
        return q.finish(frame, "tag_performance", by=by, small_sample_n=least)

    def priority_impact(
        self,
        *,
        by: str | None = None,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per priority (normal, high, urgent) for the posts published in the period.

        Same columns as `tag_performance`; every priority appears, with 0 posts if none.
        """
        by_channel = _check_by(by)
        least = _check_count("small_sample_n", small_sample_n, minimum=1)
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.priority_impact(
                q.con, q.flt, q.period, by_channel=by_channel, small_sample_n=least
            )
            frame = _named_channels(q.con, frame, by_channel)
            q.readers_age()
            q.no_audience(metrics.posts_without_audience(q.con, q.flt, q.period))
        return q.finish(frame, "priority_impact", by=by, small_sample_n=least)

    def low_reach(
        self,
        *,
        share: float = LOW_REACH_SHARE,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Posts whose read rate is below `share` (default half) of their channel's median
        read rate in the period, worst first, with the channel median beside them."""
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
            raise InvalidParameterError("share", f"{share!r} is not a number in (0, 1]")
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.low_reach(q.con, q.flt, q.period, share=float(share))
            q.readers_age()
            q.no_audience(metrics.posts_without_audience(q.con, q.flt, q.period))
        return q.finish(frame, "low_reach", share=float(share))

    def reach_curve(
        self,
        days: int = REACH_CURVE_DAYS,
        *,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """How fast posts reach their readers: `day` 0..days and `share` of readers reached.

        share(day) = Σ over posts of min(readers, cumulative daily unique viewers from the
        UTC date of publication through that day) ÷ Σ readers, over the posts published in
        the period at least `days` days before the last synced day (one cohort for every
        day, so `share` never decreases). `attrs["posts"]` is the cohort's size.
        """
        length = _check_count("days", days, minimum=1)
        if length > REACH_CURVE_MAX_DAYS:
            raise InvalidParameterError(
                "days", f"{length} is more than {REACH_CURVE_MAX_DAYS} days"
            )
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            last = q.coverage.last_complete_day
            assert last is not None  # require_daily() checked there are daily rows
            frame, count = metrics.reach_curve(q.con, q.flt, q.period, days=length, last_day=last)
            if count == 0:
                q.warnings.append(
                    f"No post in {q.period.label} was published at least {length} days before "
                    f"the last synced day ({last.isoformat()}); the curve is empty."
                )
            q.readers_age()
        return q.finish(frame, "reach_curve", days=length, posts=count)

    def subscribers(
        self,
        freq: str = "week",
        *,
        by: str | None = None,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Subscribers at the end of each week or month, and those gained, lost and net.

        From channel analytics (UTC days, grouped by their date); `by="channel"` gives one
        row per period and channel. `subscribers` is the last daily count in the period.
        """
        if freq not in ("week", "month"):
            raise InvalidParameterError("freq", f"{freq!r} is not one of week, month")
        by_channel = _check_by(by)
        args = _Args(period, start, end, tz, channel, None, None, None)
        with self._query(args) as q:
            cov = q.coverage
            size = metrics.grid_size(q.period, freq, cov.first_day, cov.last_day)
            _check_grid(size, freq)
            frame = _subscribers(q.con, q.flt, q.period, freq, by_channel)
        return q.finish(frame, "subscribers", freq=freq, by=by)

    def publishing_heatmap(
        self,
        *,
        period: str | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Weekday × hour of publication (local to `tz`): posts published and their readers.

        168 rows (weekday 0 = Monday). Opens are those the posts published in that slot
        received in the period: the data has no hour of reading, only of publishing.
        """
        args = _Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = metrics.publishing_heatmap(q.con, q.flt, q.period)
            q.readers_age()
        return q.finish(frame, "publishing_heatmap")

    def upcoming_scheduled(
        self,
        *,
        as_of: Moment | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str | None = None,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Posts still scheduled to publish after `as_of` (default: now), soonest first.

        The warehouse is a snapshot: pass the last sync time as `as_of` for a report that
        does not change with the wall clock. `start`/`end` bound `scheduled_at`.
        """
        zone = _zone(tz)
        moment = (
            datetime.now(UTC) if as_of is None else to_local(as_of, check_tz(zone), param="as_of")
        )
        args = _Args(None, start, end, zone, channel, tag, priority, author)
        with self._query(args, daily=False) as q:
            frame = metrics.upcoming_scheduled(q.con, q.flt, q.period, as_of=moment)
        frame = q.finish(frame, "upcoming_scheduled", as_of=moment)
        if q.period.start is None and q.period.end is None:
            local = moment.astimezone(q.period.zone)
            frame.attrs["period"] = f"due after {local:%Y-%m-%d %H:%M} ({q.period.tz})"
            frame.attrs["period_label"] = frame.attrs["period"]
        return frame

    def export_parquet(self, directory: str | Path) -> dict[str, Path]:
        """Write every table as Parquet under `directory`; see `warehouse.parquet`."""
        with self._connect() as con:
            return export_parquet(con, directory)

    def _coverage(self, con: DuckDBPyConnection) -> Coverage:
        # Reading the first and last synced days scans the daily tables; the answer only
        # changes when the file does, so it is kept until the file's size or time moves.
        if self._lake is not None:  # each table at its latest version: read it afresh
            return read_coverage(con)
        stat = self.path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        if self._covered is None or self._covered[0] != key:
            self._covered = (key, read_coverage(con))
        return self._covered[1]

    @contextmanager
    def _query(
        self,
        args: _Args,
        *,
        daily: bool = True,
        default: str | None = None,
        compare: str = "previous",
    ) -> Iterator[_Query]:
        tz = _zone(args.tz)
        check_tz(tz)
        with self._connect() as con:
            coverage = self._coverage(con)
            coverage.require_synced()
            if daily:
                coverage.require_daily()
            period = _choose_period(args, tz, coverage, default)
            if daily and (period.start is not None or period.end is not None):
                coverage.require_overlap(period, period.label)
            flt = resolve_filter(
                con, channel=args.channel, tag=args.tag, priority=args.priority, author=args.author
            )
            previous = None
            if period.start is not None and period.end is not None:
                previous = period.compared(compare)
            query = _Query(con, flt, period, previous, coverage, _filters(con, flt, args))
            yield query


@dataclass
class _Args:
    period: str | None
    start: Moment | None
    end: Moment | None
    tz: str | None
    channel: OneOrMany | None
    tag: OneOrMany | None
    priority: OneOrMany | None
    author: OneOrMany | None


@dataclass
class _Query:
    """One metric call: its connection, filter, period, comparison and warnings."""

    con: DuckDBPyConnection
    flt: PostFilter
    period: Period
    previous: Period | None
    coverage: Coverage
    filters: dict[str, object]
    warnings: list[str] = field(default_factory=list)

    def readers_age(self) -> None:
        """Warn when posts' lifetime readers were last read before the sync horizon."""
        horizon = self.coverage.horizon_start
        if horizon is None:
            return
        where, params = self.flt.where("p")
        sql = Sql(
            "SELECT count(*), epoch_us(min(p.synced_at)) FROM posts p "
            f"WHERE {where} AND p.status = 'published' AND p.synced_at < ? AND ",
            (*params, horizon),
        ) + instant_range(self.period, "p.published_at")
        row = first_row(self.con, sql.text, sql.params)
        if row is None or not row[0]:
            return
        self.warnings.append(
            f"Readers of {int(row[0]):,} posts were last synced before the last "
            f"{SYNC_CONVERGENCE_RUNS} syncs; they may have grown since "
            "(`channelkit sync --full` refreshes them)."
        )

    def no_audience(self, count: int) -> None:
        if count:
            self.warnings.append(
                f"{_posts(count)} no channel analytics row on or before the publication day, "
                "so no audience: left out of read rates."
            )

    def finish(self, frame: pd.DataFrame, metric: str, **extra: object) -> pd.DataFrame:
        period, previous = self.period, self.previous
        complete = extra.pop("complete", None)
        if complete is None:
            complete = self.coverage.covers(period)
            if (
                not complete
                and self.coverage.has_daily
                and metric not in ("posts", "upcoming_scheduled")
            ):
                self.warnings.append(
                    f"{period.label} is not fully covered by synced daily rows (the warehouse "
                    f"covers {self.coverage.range_label})."
                )
        frame.attrs.update(
            metric=metric,
            period=period.label,
            period_short=period.short_label,
            previous_period=None if previous is None else previous.label,
            filters=self.filters,
            complete=bool(complete),
            warnings=list(self.warnings),
            tz=period.tz,
            start=period.start,
            end=period.end,
            period_label=period.label,
            **extra,
        )
        if previous is not None:
            frame.attrs.update(previous_start=previous.start, previous_end=previous.end)
        return frame


def _zone(tz: object) -> str:
    """The timezone name to use: `tz`, else CHANNELKIT_TZ, else UTC (checked by the caller)."""
    if tz is not None and not isinstance(tz, str):
        raise InvalidParameterError("tz", f"{tz!r} is not an IANA timezone name")
    return resolve_tz(tz)


def _posts(count: int) -> str:
    return "1 post has" if count == 1 else f"{count:,} posts have"


def _choose_period(args: _Args, tz: str, coverage: Coverage, default: str | None) -> Period:
    if args.period is not None:
        if args.start is not None or args.end is not None:
            raise InvalidParameterError("period", "give either period=... or start=/end=, not both")
        return parse_period(args.period, tz=tz, last_day=_last_day(coverage))
    if args.start is not None or args.end is not None or default is None:
        return Period.resolve(args.start, args.end, tz)
    return parse_period(default, tz=tz, last_day=_last_day(coverage))


def _last_day(coverage: Coverage) -> date:
    return coverage.last_complete_day or datetime.now(UTC).date() - timedelta(days=1)


def _whole(period: Period) -> Period:
    """A KPI period with open ends made whole: KPI_DEFAULT_DAYS days from start / to end."""
    if period.start is not None and period.end is not None:
        return period
    length = timedelta(days=KPI_DEFAULT_DAYS)
    if period.start is not None:
        first = period.start.date()
        return Period.resolve(period.start, first + length, period.tz)
    assert period.end is not None
    return Period.resolve(period.end.date() - length, period.end, period.tz)


def _filters(con: DuckDBPyConnection, flt: PostFilter, args: _Args) -> dict[str, object]:
    """The filters as the user gave them, channels by name, for titles and headers."""
    out: dict[str, object] = {}
    if flt.channel_ids is not None:
        names = metrics.channel_names(con, flt.channel_ids)
        by_id = dict(zip(names["channel_id"], names["channel"], strict=True))
        out["channel"] = [by_id.get(cid, cid) for cid in flt.channel_ids]
    for key in ("tag", "priority", "author"):
        value = getattr(args, key)
        if value is not None:
            out[key] = [value] if isinstance(value, str) else list(value)
    return out


def _check_by(by: str | None) -> bool:
    if by is None:
        return False
    if by != "channel":
        raise InvalidParameterError("by", f"{by!r} is not None or 'channel'")
    return True


def _check_grid(cells: int, freq: str) -> None:
    if cells > GRID_MAX_CELLS:
        raise InvalidParameterError(
            "freq",
            f"{cells:,} rows of freq={freq!r} is more than {GRID_MAX_CELLS:,}; "
            "choose a shorter period or a coarser freq",
        )


def _check_count(param: str, value: object, *, minimum: int) -> int:
    """An integer (NumPy integers too, never bool) >= minimum."""
    if isinstance(value, bool):
        raise InvalidParameterError(param, f"{value!r} is not an integer >= {minimum}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidParameterError(param, f"{value!r} is not an integer >= {minimum}") from None
    if number < minimum:
        raise InvalidParameterError(param, f"{value!r} is not an integer >= {minimum}")
    return number


def _named_channels(con: DuckDBPyConnection, frame: pd.DataFrame, by_channel: bool) -> pd.DataFrame:
    if not by_channel:
        return frame
    names = metrics.channel_names(con, None)
    out = frame.merge(names, on="channel_id", how="left")
    columns = ["channel_id", "channel", *[c for c in frame.columns if c != "channel_id"]]
    return out[columns]


def _subscribers(
    con: DuckDBPyConnection, flt: PostFilter, period: Period, freq: str, by_channel: bool
) -> pd.DataFrame:
    sql = Sql(
        f"SELECT date_trunc('{freq}', s.date)::DATE AS bucket, s.channel_id, "
        "arg_max(s.subscribers, s.date) AS subscribers, "
        "sum(s.subscribers_gained)::BIGINT AS gained, sum(s.subscribers_lost)::BIGINT AS lost "
        "FROM channel_daily s WHERE s.channel_id IN "
        "(SELECT id FROM channels WHERE deleted_at IS NULL) AND "
    ) + day_range(period, "s.date")
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND s.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    sql = sql + Sql(" GROUP BY 1, 2")
    rows = plain_frame(con, sql.text, sql.params)
    keys = ["bucket", "channel_id"] if by_channel else ["bucket"]
    frame = rows.groupby(keys)[["subscribers", "gained", "lost"]].sum().reset_index()
    frame = frame.sort_values(keys, ignore_index=True)
    frame["net"] = frame["gained"] - frame["lost"]
    for column in ("subscribers", "gained", "lost", "net"):
        frame[column] = frame[column].astype("Int64")
    frame.insert(0, "period", local_midnight(pd.Series(frame.pop("bucket")), period.tz))
    if by_channel:
        frame = _named_channels(
            con, frame[["channel_id", *[c for c in frame.columns if c != "channel_id"]]], True
        )
        frame = frame[["period", "channel_id", "channel", "subscribers", "gained", "lost", "net"]]
    return frame
