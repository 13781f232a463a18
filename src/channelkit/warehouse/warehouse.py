"""The read side of a warehouse: tidy DataFrames of posts, channels and engagement metrics.

Each call opens its own short-lived read-only connection and closes it before returning,
so a notebook that keeps a `Warehouse` around never blocks the next `channelkit sync`;
`with wh.session():` reuses one connection for a batch of calls (a report, a dashboard).
The metric definitions live in `channelkit.analysis.metrics` and `docs/metrics.md`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pandas as pd
from duckdb import DuckDBPyConnection

from channelkit._constants import (
    ANALYSIS_TZ,
    KPI_DEFAULT_DAYS,
    SMALL_SAMPLE_POSTS,
    TOP_POSTS_MIN_VIEWS,
    TOP_POSTS_N,
)
from channelkit._spec import POST_STATUSES
from channelkit.analysis import metrics
from channelkit.analysis.filters import OneOrMany, PostFilter, as_values, resolve_filter
from channelkit.analysis.frames import to_frame
from channelkit.analysis.freshness import Freshness, read_freshness
from channelkit.analysis.period import Moment, Period, check_tz, to_local
from channelkit.errors import InvalidParameterError
from channelkit.warehouse.connection import (
    WarehouseError,
    is_storage_fault,
    open_warehouse,
    storage_problem,
)
from channelkit.warehouse.parquet import export_parquet
from channelkit.warehouse.urls import redact_url

if TYPE_CHECKING:
    from channelkit.sync.report import SyncReport


class Warehouse:
    """A synced warehouse file, read through DuckDB into pandas.

        import channelkit as ck

        wh = ck.Warehouse("warehouse.duckdb")
        weekly = wh.engagement_over_time("week", start="2026-03-01", tz="Europe/Berlin")
        ck.plots.engagement_over_time(weekly).show()
        wh.kpis(start="2026-03-23", end="2026-03-30", channel="engineering")

    Every metric method takes the same keyword-only filters: `start` (inclusive) and `end`
    (exclusive) as dates, datetimes or ISO strings (dates are local to `tz`); `tz`, the
    IANA timezone of every calendar grouping; `channel` (id, slug or name), `tag`,
    `priority` and `author` (id, name or email), each a value or a list of values. A wrong
    filter raises `InvalidParameterError` (a `ValueError`) naming the parameter. Results
    carry `df.attrs["period_label"]`, `["tz"]`, `["start"]`, `["end"]` for titles.
    """

    def __init__(self, path: str | Path, *, sync_report: SyncReport | None = None) -> None:
        self.path = Path(path)
        self.sync_report = sync_report
        self._session: DuckDBPyConnection | None = None
        self._lake: str | None = None
        with self._connect():  # fail now, not at the first query, on a missing/foreign file
            pass

    @classmethod
    def from_lake(cls, root: str | Path) -> Warehouse:
        """The Delta Lake copy written by `channelkit sync --lake ROOT`, read through DuckDB.

            wh = ck.Warehouse.from_lake("lake/")       # or "s3://bucket/channelkit"
            wh.kpis(start="2026-03-01", end="2026-04-01")

        Every method works as on the DuckDB file; each call reads the tables' latest
        versions (`with wh.session():` pins one version for a batch of calls).
        """
        wh = cls.__new__(cls)
        wh.path, wh.sync_report, wh._session, wh._lake = Path(str(root)), None, None, str(root)
        with wh._connect():
            pass
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
        tz: str = ANALYSIS_TZ,
    ) -> pd.DataFrame:
        """Run a read-only SQL query (with `?` or `$name` parameters) and return a DataFrame.

        Dtypes follow the metric methods; TIMESTAMPTZ columns are converted to `tz`.
        """
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
        """Last completed sync (time, mode, base URL), row counts and the newest data."""
        with self._connect() as con:
            return read_freshness(con)

    def posts(
        self,
        *,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
        status: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per post (`tags` as a list), oldest publication first.

        `start`/`end` select posts by `published_at` (which leaves out drafts and scheduled
        posts); `status` is one of draft, scheduled, published, archived, or a list.
        """
        statuses = as_values(status, param="status")
        for value in statuses or ():
            if value not in POST_STATUSES:
                raise InvalidParameterError(
                    "status", f"{value!r} is not one of {', '.join(POST_STATUSES)}"
                )
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.posts(con, flt, period, statuses)
        return _titled(frame, "posts", period)

    def channels(self, *, tz: str = ANALYSIS_TZ) -> pd.DataFrame:
        """One row per channel (deleted ones left out), by name."""
        check_tz(tz)
        with self._connect() as con:
            return metrics.channels(con, tz)

    def engagement_over_time(
        self,
        freq: str = "day",
        *,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Views, engagements, engagement rate and posts published per day, week or month.

        One row per period (`period` = its first local midnight), gaps filled with zeros,
        from `start` to `end` (or the first to the last period with data). Weeks start on
        Monday. Daily rows (UTC days) go to the local day with the same date; posts
        published go to the local day of `published_at` in `tz`.
        """
        if freq not in metrics.FREQS:
            raise InvalidParameterError(
                "freq", f"{freq!r} is not one of {', '.join(metrics.FREQS)}"
            )
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.engagement_over_time(con, flt, period, freq)
        return _titled(frame, "engagement_over_time", period, freq=freq)

    def kpis(
        self,
        *,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Headline numbers of the period against the same-length period just before it.

        Columns: metric, label, kind ("count"/"rate"), value, previous, delta (value -
        previous) and delta_pct (delta / previous; missing unless previous > 0). An open
        period lasts KPI_DEFAULT_DAYS days: from `start`, else up to `end`, else up to the
        end of the last day with daily rows. net_subscribers comes from channel_daily and
        is missing when tag, priority or author filters are set (subscribers follow
        channels).
        """
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            period = _kpi_period(con, period)
            frame = metrics.kpis(con, flt, period)
        previous = period.previous()
        return _titled(
            frame,
            "kpis",
            period,
            previous_start=previous.start,
            previous_end=previous.end,
            previous_label=previous.label,
        )

    def top_posts(
        self,
        by: str = "views",
        n: int = TOP_POSTS_N,
        *,
        min_views: int | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """The `n` posts with the most views or the highest engagement rate in the period.

        Views and engagements are the post's daily rows in the period (whenever it was
        published). Posts with fewer than `min_views` views are left out (default: none
        for by="views", TOP_POSTS_MIN_VIEWS for by="engagement_rate", where a handful of
        views would otherwise win). Ties are broken by post id.
        """
        if by not in metrics.TOP_BY:
            raise InvalidParameterError("by", f"{by!r} is not one of {', '.join(metrics.TOP_BY)}")
        _check_count("n", n, minimum=1)
        if min_views is None:
            min_views = 0 if by == "views" else TOP_POSTS_MIN_VIEWS
        _check_count("min_views", min_views, minimum=0)
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.top_posts(con, flt, period, by=by, n=n, min_views=min_views)
        return _titled(frame, "top_posts", period, by=by, min_views=min_views)

    def channel_comparison(
        self,
        *,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Per channel: posts published, views, engagements and reach in the period.

        Reach is `views_per_subscriber` = views / subscriber_count, where subscriber_count
        is the channel's count at the last sync, not during the period: the column
        `uses_current_subscribers` (always True) says so.
        """
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.channel_comparison(con, flt, period)
        return _titled(frame, "channel_comparison", period, uses_current_subscribers=True)

    def tag_performance(
        self,
        *,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per tag of the posts published in the period, most-used first.

        `posts` is how many such posts carry the tag; views/engagements are their daily
        rows in the period; medians are per post; `small_sample` flags tags on fewer than
        `small_sample_n` posts.
        """
        _check_count("small_sample_n", small_sample_n, minimum=1)
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.tag_performance(con, flt, period, small_sample_n=small_sample_n)
        return _titled(frame, "tag_performance", period, small_sample_n=small_sample_n)

    def priority_impact(
        self,
        *,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """One row per priority (normal, high, urgent) for the posts published in the period.

        Same columns as `tag_performance`; every priority appears, with 0 posts if none.
        """
        _check_count("small_sample_n", small_sample_n, minimum=1)
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.priority_impact(con, flt, period, small_sample_n=small_sample_n)
        return _titled(frame, "priority_impact", period, small_sample_n=small_sample_n)

    def publishing_heatmap(
        self,
        *,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Weekday × hour of publication (local to `tz`): posts published and their views.

        168 rows (weekday 0 = Monday). Views are those the posts published in that slot
        received in the period: the data has no hour of reading, only of publishing.
        """
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.publishing_heatmap(con, flt, period)
        return _titled(frame, "publishing_heatmap", period)

    def upcoming_scheduled(
        self,
        *,
        as_of: Moment | None = None,
        start: Moment | None = None,
        end: Moment | None = None,
        tz: str = ANALYSIS_TZ,
        channel: OneOrMany | None = None,
        tag: OneOrMany | None = None,
        priority: OneOrMany | None = None,
        author: OneOrMany | None = None,
    ) -> pd.DataFrame:
        """Posts still scheduled to publish after `as_of` (default: now), soonest first.

        The warehouse is a snapshot: pass the last sync time as `as_of` for a report that
        does not change with the wall clock. `start`/`end` bound `scheduled_at`.
        """
        moment = (
            datetime.now(UTC) if as_of is None else to_local(as_of, check_tz(tz), param="as_of")
        )
        with self._query(start, end, tz, channel, tag, priority, author) as (con, flt, period):
            frame = metrics.upcoming_scheduled(con, flt, period, as_of=moment)
        frame = _titled(frame, "upcoming_scheduled", period, as_of=moment)
        if period.start is None and period.end is None:
            local = moment.astimezone(period.zone)
            frame.attrs["period_label"] = f"due after {local:%Y-%m-%d %H:%M} ({period.tz})"
        return frame

    def export_parquet(self, directory: str | Path) -> dict[str, Path]:
        """Write every table as Parquet under `directory`; see `warehouse.parquet`."""
        with self._connect() as con:
            return export_parquet(con, directory)

    @contextmanager
    def _query(
        self,
        start: Moment | None,
        end: Moment | None,
        tz: str,
        channel: OneOrMany | None,
        tag: OneOrMany | None,
        priority: OneOrMany | None,
        author: OneOrMany | None,
    ) -> Iterator[tuple[DuckDBPyConnection, PostFilter, Period]]:
        period = Period.resolve(start, end, tz)
        with self._connect() as con:
            flt = resolve_filter(con, channel=channel, tag=tag, priority=priority, author=author)
            yield con, flt, period


def _kpi_period(con: DuckDBPyConnection, period: Period) -> Period:
    if period.start is not None and period.end is not None:
        return period
    zone, length = period.zone, timedelta(days=KPI_DEFAULT_DAYS)
    if period.start is not None:
        stop = to_local(period.start.date() + length, zone, param="end")
        return Period.resolve(period.start, stop, period.tz)
    end: datetime | None = period.end
    if end is None:
        last = metrics.latest_day(con) or datetime.now(zone).date()
        end = to_local(last + timedelta(days=1), zone, param="end")
    return Period.resolve(end.date() - length, end, period.tz)


def _check_count(param: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidParameterError(param, f"{value!r} is not an integer >= {minimum}")


def _titled(frame: pd.DataFrame, metric: str, period: Period, **extra: object) -> pd.DataFrame:
    frame.attrs.update(
        metric=metric,
        tz=period.tz,
        start=period.start,
        end=period.end,
        period_label=period.label,
        **extra,
    )
    return frame
