"""The read API of a warehouse: tidy DataFrames of posts, channels and engagement metrics.

Each call opens its own short-lived read-only connection and closes it before returning,
so a notebook that keeps a `Warehouse` around never blocks the next `channelkit sync`;
`with wh.session():` reuses one connection for a batch of calls (a report, a dashboard).
The metric definitions live in `channelkit.analysis.metrics` and `docs/metrics.md`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pandas as pd
from duckdb import DuckDBPyConnection

from channelkit._constants import (
    KPI_DEFAULT_DAYS,
    LOW_REACH_SHARE,
    REACH_CURVE_DAYS,
    REACH_CURVE_MAX_DAYS,
    SMALL_SAMPLE_POSTS,
    TOP_POSTS_MIN_VIEWS,
    TOP_POSTS_N,
)
from channelkit._spec import POST_STATUSES
from channelkit._urls import redact_url
from channelkit.analysis import groups, metrics, reach
from channelkit.analysis.coverage import Coverage, read_coverage
from channelkit.analysis.filters import OneOrMany, as_values, resolve_filter
from channelkit.analysis.frames import to_frame
from channelkit.analysis.freshness import Freshness, read_freshness
from channelkit.analysis.grid import grid_size
from channelkit.analysis.period import Moment, check_tz, to_local
from channelkit.analysis.query import (
    Args,
    Query,
    check_by,
    check_count,
    check_grid,
    choose_period,
    filters_as_given,
    subscribers_frame,
    whole_period,
    with_channel_names,
    zone_name,
)
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
        tz = zone_name(tz)
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
        args = Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args, daily=False) as q:
            frame = metrics.posts(q.con, q.flt, q.period, statuses)
            q.readers_age()
        return q.finish(frame, "posts")

    def channels(self, *, tz: str | None = None) -> pd.DataFrame:
        """One row per channel (deleted ones left out), by name."""
        zone = zone_name(tz)
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
        by_channel = check_by(by)
        args = Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            cov = q.coverage
            size = grid_size(q.period, freq, cov.first_day, cov.last_day)
            if by_channel:
                size *= max(1, len(metrics.channel_names(q.con, q.flt.channel_ids)))
            check_grid(size, freq)
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
        by_channel = check_by(by)
        args = Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args, default=f"{KPI_DEFAULT_DAYS}d", compare=compare) as q:
            period_ = q.period = whole_period(q.period)
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
        count = check_count("n", n, minimum=1)
        if min_opens is None:
            min_opens = TOP_POSTS_MIN_VIEWS if by == "engagement_rate" else 0
        least = check_count("min_opens", min_opens, minimum=0)
        args = Args(period, start, end, tz, channel, tag, priority, author)
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
        args = Args(period, start, end, tz, channel, tag, priority, author)
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
        args = Args(period, start, end, tz, channel, tag, priority, author)
        return self._grouped(groups.tag_performance, "tag_performance", args, by, small_sample_n)

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
        args = Args(period, start, end, tz, channel, tag, priority, author)
        return self._grouped(groups.priority_impact, "priority_impact", args, by, small_sample_n)

    def _grouped(
        self,
        compute: Callable[..., pd.DataFrame],
        name: str,
        args: Args,
        by: str | None,
        small_sample_n: int,
    ) -> pd.DataFrame:
        """`tag_performance` and `priority_impact`: the same checks, warnings and attrs."""
        by_channel = check_by(by)
        least = check_count("small_sample_n", small_sample_n, minimum=1)
        with self._query(args) as q:
            frame = compute(q.con, q.flt, q.period, by_channel=by_channel, small_sample_n=least)
            missing = frame.attrs.pop("posts_without_audience")
            frame = with_channel_names(q.con, frame, by_channel)
            q.readers_age()
            q.no_audience(missing)
        return q.finish(frame, name, by=by, small_sample_n=least)

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
        args = Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            frame = groups.low_reach(q.con, q.flt, q.period, share=float(share))
            q.readers_age()
            q.no_audience(groups.posts_without_audience(q.con, q.flt, q.period))
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
        length = check_count("days", days, minimum=1)
        if length > REACH_CURVE_MAX_DAYS:
            raise InvalidParameterError(
                "days", f"{length} is more than {REACH_CURVE_MAX_DAYS} days"
            )
        args = Args(period, start, end, tz, channel, tag, priority, author)
        with self._query(args) as q:
            last = q.coverage.last_complete_day
            assert last is not None  # require_daily() checked there are daily rows
            frame, count = reach.reach_curve(q.con, q.flt, q.period, days=length, last_day=last)
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
        by_channel = check_by(by)
        args = Args(period, start, end, tz, channel, None, None, None)
        with self._query(args) as q:
            cov = q.coverage
            size = grid_size(q.period, freq, cov.first_day, cov.last_day)
            check_grid(size, freq)
            frame = subscribers_frame(q.con, q.flt, q.period, freq, by_channel)
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
        args = Args(period, start, end, tz, channel, tag, priority, author)
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
        zone = zone_name(tz)
        moment = (
            datetime.now(UTC) if as_of is None else to_local(as_of, check_tz(zone), param="as_of")
        )
        args = Args(None, start, end, zone, channel, tag, priority, author)
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
        args: Args,
        *,
        daily: bool = True,
        default: str | None = None,
        compare: str = "previous",
    ) -> Iterator[Query]:
        tz = zone_name(args.tz)
        check_tz(tz)
        with self._connect() as con:
            coverage = self._coverage(con)
            coverage.require_synced()
            if daily:
                coverage.require_daily()
            period = choose_period(args, tz, coverage, default)
            if daily and (period.start is not None or period.end is not None):
                coverage.require_overlap(period, period.label)
            flt = resolve_filter(
                con, channel=args.channel, tag=args.tag, priority=args.priority, author=args.author
            )
            previous = None
            if period.start is not None and period.end is not None:
                previous = period.compared(compare)
            query = Query(con, flt, period, previous, coverage, filters_as_given(con, flt, args))
            yield query
