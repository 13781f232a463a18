"""The read API of a warehouse: tidy DataFrames of posts, channels and engagement metrics.

Each call opens its own short-lived read-only connection and closes it before returning,
so a notebook that keeps a `Warehouse` around never blocks the next `channelkit sync`;
`with wh.session():` reuses one connection for a batch of calls (a report, a dashboard).
The metric definitions live in `channelkit.analysis.metrics` and `docs/metrics.md`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import duckdb
import pandas as pd
from duckdb import DuckDBPyConnection
from typing_extensions import Unpack

from channelkit import display
from channelkit._constants import (
    BEST_TIMES_AGE_DAYS,
    KPI_USUAL_PERIODS,
    LOW_REACH_SHARE,
    REACH_CURVE_DAYS,
    REACH_CURVE_MAX_DAYS,
    SMALL_SAMPLE_POSTS,
    TOP_POSTS_MIN_VIEWS,
    TOP_POSTS_N,
)
from channelkit._spec import POST_STATUSES
from channelkit._tz import resolve_zone
from channelkit._urls import redact_url
from channelkit.analysis import groups, metrics, outlook, reach, timing
from channelkit.analysis.card import read_facts
from channelkit.analysis.coverage import DATA_KINDS, Coverage, read_coverage
from channelkit.analysis.dtypes import MetricFrame, to_frame
from channelkit.analysis.filters import (
    CHANNEL_KEYS,
    FILTER_KEYS,
    POST_ONLY_KEYS,
    UPCOMING_KEYS,
    ChannelFilters,
    Filters,
    OneOrMany,
    PostOnlyFilters,
    UpcomingFilters,
    as_values,
    check_keywords,
    resolve_filter,
)
from channelkit.analysis.freshness import Freshness, read_freshness
from channelkit.analysis.grid import grid_size
from channelkit.analysis.period import (
    Moment,
    earlier_periods,
    same_age_cutoff,
    to_local,
)
from channelkit.analysis.query import (
    Metric,
    Query,
    check_by,
    check_count,
    check_grid,
    choose_period,
    filters_as_given,
    subscribers_frame,
    uses_default,
    whole_default,
    whole_period,
    with_channel_names,
)
from channelkit.analysis.reach import ReachTimes
from channelkit.analysis.runs import read_sync_runs
from channelkit.display.card import WarehouseFacts, card_html, card_text
from channelkit.display.columns import KINDS_ATTR
from channelkit.display.notes import LIFETIME, SAME_AGE
from channelkit.errors import ChannelkitError, InvalidParameterError, WarehouseError
from channelkit.storage.connection import is_storage_fault, open_warehouse, storage_problem
from channelkit.storage.parquet import export_parquet

if TYPE_CHECKING:
    from channelkit.sync.report import SyncReport


SUBSCRIBERS_LISTED = "channel listing (/channels), as of the last sync"
SUBSCRIBERS_DAILY = "channel analytics (/analytics/channels), the last synced day of the period"


class Warehouse:
    """A synced warehouse file, read through DuckDB into pandas.

        import channelkit as ck

        wh = ck.Warehouse("warehouse.duckdb")
        weekly = wh.engagement_over_time("week", period="2026-Q3", tz="Europe/Berlin")
        ck.plots.engagement_over_time(weekly).show()
        wh.kpis(period="2026-10", channel="All Hands")      # October vs September
        wh.kpis(period="month", compare="year", by="channel")

    Every metric method takes the same keyword-only arguments: `period` ("2026-10",
    "2026-Q3", "2026", "2026-W44", "W44", "2026-10-05", "25/11/2026", "11/2026", "7d",
    "12w", "week", "month", "quarter", "previous month", "today"; docs/metrics.md)
    or `start` (inclusive) and `end` (exclusive) as dates, datetimes or ISO strings (dates
    are local to `tz`); `tz`, the IANA timezone of every calendar grouping (default:
    `CHANNELKIT_TZ`, else UTC); `channel` (id, slug or name), `tag`, `priority` and
    `author` (id, name or email), each a value or a list of values. Without `period`,
    `start` or `end`, every metric covers METRIC_DEFAULT_PERIOD ("last 28 days": the 28
    days ending with the last complete synced day; `attrs["default_period"]` says so;
    `posts` and `upcoming_scheduled` list everything instead; `period="all time"` asks
    for every synced day). A wrong argument raises `InvalidParameterError` (a
    `ValueError`) naming the parameter. Results carry `df.attrs`: `period`,
    `previous_period` (labels), `default_period`, `filters`, `complete`, `warnings`,
    `tz`, `start`, `end` (see docs/metrics.md).
    """

    def __init__(self, path: str | Path, *, sync_report: SyncReport | None = None) -> None:
        self.path = Path(path)
        self.sync_report = sync_report
        self._session: DuckDBPyConnection | None = None
        self._held: tuple[int, int] | None = None  # the file a session holds: (device, inode)
        self._covered: tuple[tuple[int, int], Coverage] | None = None
        self._settled: dict[tuple[object, ...], int] = {}
        self._aims: dict[tuple[object, ...], dict[str, outlook.Settles]] = {}
        self._lake: str | None = None
        with self._connect() as con:  # fail now, not at the first query
            read_coverage(con).require_synced()
        display.register()  # in a notebook, metric frames display formatted

    @classmethod
    def from_lake(cls, root: str | Path) -> Warehouse:
        """The Delta Lake copy written by `channelkit sync --lake ROOT`, read through DuckDB.

            wh = ck.Warehouse.from_lake("lake/")       # or "s3://bucket/channelkit"
            wh.kpis(period="2026-10", by="channel")

        Every method works as on the DuckDB file; each call reads the tables' latest
        versions (`with wh.session():` pins one version for a batch of calls).
        """
        wh = cls.__new__(cls)
        wh.path, wh.sync_report, wh._session, wh._held = Path(str(root)), None, None, None
        wh._covered, wh._lake, wh._settled, wh._aims = None, str(root), {}, {}
        with wh._connect() as con:
            read_coverage(con).require_synced()
        display.register()
        return wh

    def __repr__(self) -> str:
        facts = self._facts()
        return self._code() if facts is None else f"{self._code()}: {card_text(facts)}"

    def _repr_html_(self) -> str:
        """The notebook's card: file, days covered, last sync and its age, posts, channels."""
        facts = self._facts()
        if facts is None:
            return f"<code>{html.escape(self._code())}</code> (cannot be read right now)"
        return card_html(facts, self._code())

    def _code(self) -> str:
        if self._lake is not None:
            return f"Warehouse.from_lake({redact_url(self._lake)!r})"
        return f"Warehouse({str(self.path)!r})"

    def _facts(self) -> WarehouseFacts | None:
        # A repr must not raise: a file locked by a running sync shows the short form.
        try:
            with self._connect() as con:
                source = self._lake if self._lake is not None else str(self.path)
                facts = read_facts(con, self._coverage(con), redact_url(source))
        except (ChannelkitError, duckdb.Error, OSError):
            return None
        note = self._replaced_note()
        return facts if note is None else replace(facts, warnings=(*facts.warnings, note))

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
        self._session, self._held = self._open_held()
        try:
            yield self
        finally:
            con, self._session, self._held = self._session, None, None
            con.close()

    def _open_held(self) -> tuple[DuckDBPyConnection, tuple[int, int] | None]:
        """A connection and the file it holds (a sync may switch a new one in meanwhile)."""
        while True:
            before = _identity(self.path) if self._lake is None else None
            con = self._open()
            if before is None or _identity(self.path) == before:
                return con, before
            con.close()

    def _replaced_note(self) -> str | None:
        """Said when a session reads a file that a sync has since replaced."""
        if self._held is None or _identity(self.path) == self._held:
            return None
        return (
            "a newer sync has replaced this warehouse since this `with wh.session():` block "
            "opened it: what it shows is the state when the block began; leave the block "
            "to read the new one"
        )

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
            from channelkit.storage.lake import open_lake

            return open_lake(self._lake)
        return open_warehouse(self.path, read_only=True)

    def sql(
        self,
        query: str,
        params: Sequence[object] | dict[str, object] | None = None,
        *,
        tz: str | ZoneInfo | None = None,
    ) -> pd.DataFrame:
        """Run a read-only SQL query (with `?` or `$name` parameters) and return a DataFrame.

        Dtypes follow the metric methods; TIMESTAMPTZ columns are converted to `tz`.
        """
        zone = resolve_zone(tz)
        with self._connect() as con:
            try:
                table = con.sql(query, params=params).to_arrow_table()
            except duckdb.Error as exc:
                if is_storage_fault(exc):
                    raise
                raise InvalidParameterError("query", str(exc).strip()) from None
        return to_frame(table, zone)

    def runs(self, last: int | None = None) -> pd.DataFrame:
        """The record of every sync into this warehouse, one row per run, oldest first
        (`last`: the most recent ones only): outcome, duration, requests, pages, 429s,
        retries, seconds waited, rows new/updated/unchanged/deleted per table, and the
        fields the items carried that the contract does not name (docs/warehouse.md)."""
        with self._connect() as con:
            return read_sync_runs(con, last)

    def freshness(self) -> Freshness:
        """Last completed sync (time, mode, base URL), row counts, the newest data and how
        recently posts' lifetime readers were re-read (`oldest_post_synced_at`,
        `revisited_share` within the last SYNC_CONVERGENCE_RUNS syncs)."""
        with self._connect() as con:
            fresh = read_freshness(con)
        note = self._replaced_note()
        return fresh if note is None else replace(fresh, warnings=(*fresh.warnings, note))

    def posts(self, *, status: OneOrMany | None = None, **filters: Unpack[Filters]) -> pd.DataFrame:
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
        return self._run(
            Metric("posts", daily=False, default=None),
            filters,
            lambda q: metrics.posts(q.con, q.flt, q.period, statuses),
        )

    def channels(self, *, tz: str | ZoneInfo | None = None) -> pd.DataFrame:
        """One row per channel (deleted ones left out), by name.

        `subscriber_count` is the channel listing's count when it was last synced; the
        daily counts of channel analytics are in `channel_comparison` and `subscribers`
        (`attrs["sources"]` names each)."""
        zone = resolve_zone(tz)
        with self._connect() as con:
            frame = metrics.channels(con, zone)
        frame.attrs["sources"] = {"subscriber_count": SUBSCRIBERS_LISTED}
        frame.attrs[KINDS_ATTR] = metrics.CHANNELS.names(frame.columns)
        return frame

    def engagement_over_time(
        self, freq: str = "day", *, by: str | None = None, **filters: Unpack[Filters]
    ) -> pd.DataFrame:
        """Posts published, readers, read rate, opens and engagements per day, week or month.

        One row per period (`period` = its first local midnight; with `by="channel"` one per
        period and channel) through the last synced day, none after it; `days` and
        `complete` say how much of each row synced data covers. A synced day without
        activity is 0; a row without any synced day (a gap) has its daily numbers missing.
        Weeks start on Monday. Daily rows (UTC days) go to the local day with the same
        date; posts published, and their readers, go to the local day of `published_at`
        in `tz`. Without a period: the last 28 days (METRIC_DEFAULT_PERIOD); by month, the
        whole months they begin in. `audience` is the subscribers the period's posts went
        to (read_rate = their readers ÷ it). `provisional` is True where the row's posts are
        still gathering readers (its readers and read rate will grow): its youngest posts
        are younger than the workspace's settled age (`attrs["settled_days"]`) on the last
        complete synced day (`attrs["readers_through"]`), the rule of `kpis`.
        """
        if freq not in metrics.FREQS:
            raise InvalidParameterError(
                "freq", f"{freq!r} is not one of {', '.join(metrics.FREQS)}"
            )
        by_channel = check_by(by)

        def compute(q: Query) -> MetricFrame:
            cov = q.coverage
            whole_default(q, freq)
            size = grid_size(q.period, freq, cov.first_day, cov.last_day)
            if by_channel:
                size *= max(1, len(metrics.channel_names(q.con, q.flt.channel_ids)))
            check_grid(size, freq)
            readers_day = cov.last_complete_day
            settled = None if readers_day is None else self._settled_days(q, readers_day)
            q.attrs.update(freq=freq, by=by, readers_through=readers_day, settled_days=settled)
            return metrics.engagement_over_time(
                q.con,
                q.flt,
                q.period,
                freq,
                by_channel=by_channel,
                coverage=cov,
                readers_day=readers_day,
                settled_days=settled,
            )

        return self._run(Metric("engagement_over_time"), filters, compute)

    def kpis(
        self, *, compare: str = "previous", by: str | None = None, **filters: Unpack[Filters]
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
        excepted); a comparison period without any synced data has NA previous values and
        `attrs["missing"]` ("no synced data for October 2025"). Without a period: the
        default, the last 28 days (METRIC_DEFAULT_PERIOD) against the 28 days before.

        Compared at the same age: the comparison period's readers (and read rate) are
        counted as they stood as long after its end as the current period's are now
        (`attrs["comparison"]`, `attrs["same_age_day"]`; docs/metrics.md). `usual_low` and
        `usual_high` are the mean -/+ 2 sd over the KPI_USUAL_PERIODS previous periods of
        the same kind, each at the same age and whole for the metric's kind of data (posts or
        channel analytics); `usual_periods` counts them; NA with fewer than
        KPI_USUAL_MIN_PERIODS. The current period's readers are counted through the last
        complete synced day by the same rule (`attrs["readers_through"]`). `provisional`
        is True where the value will still change: readers and read rate while the
        period's youngest posts are younger than the workspace's 95% reach age
        (`attrs["settled_days"]`), every value while the period runs past the synced days.
        """
        by_channel = check_by(by)

        def compute(q: Query) -> MetricFrame:
            period_ = q.period = whole_period(q.period)
            previous = q.previous = period_.compared(compare)
            cov, ids = q.coverage, q.flt.channel_ids
            missing = not cov.overlaps(previous)
            covered = cov.covers(period_, channel_ids=ids)
            q.complete = covered and (missing or cov.covers(previous, channel_ids=ids))
            if missing:
                q.attrs["missing"] = f"no synced data for {previous.label}"
                q.warnings.append(
                    f"There is no synced data for {previous.label} (the warehouse covers "
                    f"{cov.range_label}): previous values and changes are left out."
                )
            elif not q.complete:
                q.warnings.append(
                    f"{period_.label} or {previous.label} is not fully covered by synced "
                    f"daily rows (the warehouse covers {cov.range_label}); deltas are "
                    "left out except for read rate."
                )
            # Only periods whole for a metric's kind of data enter its usual range.
            earlier = earlier_periods(period_, KPI_USUAL_PERIODS)
            history = {k: [p for p in earlier if cov.covers(p, k, ids)] for k in DATA_KINDS}
            readers_day = cov.last_complete_day
            assert readers_day is not None  # require_daily() checked there are daily rows
            cutoff = same_age_cutoff(previous, period_, readers_day)
            settled = self._settled_days(q, readers_day)
            q.attrs.update(
                by=by,
                compare=compare,
                comparison=SAME_AGE if cutoff is not None else LIFETIME,
                same_age_day=cutoff,
                readers_through=readers_day,
                usual_periods=len(history["posts"]),
                settled_days=settled,
            )
            return metrics.kpis(
                q.con,
                q.flt,
                period_,
                previous,
                by_channel=by_channel,
                complete=q.complete,
                history=history,
                readers_day=readers_day,
                previous_missing=missing,
                settled_days=settled,
                covered=covered,
                gaps=cov.gaps(),
            )

        return self._run(Metric("kpis"), filters, compute)

    def top_posts(
        self,
        by: str = "readers",
        n: int = TOP_POSTS_N,
        *,
        min_opens: int | None = None,
        **filters: Unpack[Filters],
    ) -> pd.DataFrame:
        """The `n` best posts by readers, read rate, opens or engagement rate.

        by="readers"/"read_rate": posts published in the period, by their lifetime readers
        (read_rate only for posts that have had their channel's reach time: younger posts
        are still collecting readers, counted in `attrs["still_collecting_readers"]` and
        listed by `still_collecting_readers()`).
        by="opens"/"engagement_rate": every post's daily rows in the period, whenever it was
        published; posts with fewer than `min_opens` opens are left out (default: none for
        opens, TOP_POSTS_MIN_VIEWS for engagement_rate). Ties are broken by post id.
        Rates are ranked fairly (docs/metrics.md, "Fair rankings"): by `adjusted_read_rate`
        / `adjusted_engagement_rate`, shrunk toward the post's channel, with each rate's
        95% interval (`*_low`, `*_high`); a base under FAIR_MIN_BASE is too few to rank
        (`attrs["too_few_to_rank"]` counts those posts).
        Without a period: the last 28 days (METRIC_DEFAULT_PERIOD).
        """
        if by not in metrics.TOP_BY:
            raise InvalidParameterError("by", f"{by!r} is not one of {', '.join(metrics.TOP_BY)}")
        count = check_count("n", n, minimum=1)
        if min_opens is None:
            min_opens = TOP_POSTS_MIN_VIEWS if by == "engagement_rate" else 0
        least = check_count("min_opens", min_opens, minimum=0)

        def compute(q: Query) -> pd.DataFrame:
            q.attrs.update(by=by, min_opens=least)
            settled = None
            if by == "read_rate":
                settled = self._young_apart(q)
            through = q.coverage.last_complete_day  # the cutoff of same-age comparisons
            return metrics.top_posts(
                q.con,
                q.flt,
                q.period,
                by=by,
                n=count,
                min_opens=least,
                settled=settled,
                through=through,
                gaps=q.coverage.gaps(),
            )

        return self._run(Metric("top_posts"), filters, compute)

    def channel_comparison(self, **filters: Unpack[Filters]) -> pd.DataFrame:
        """Per channel: posts, readers, audience, read rate, opens, engagements, subscribers.

        Ranked by read rate adjusted for audience size (`adjusted_read_rate`, shrunk toward
        the workspace's; `rank`; `read_rate_low`/`_high` its 95% interval; channels with an
        audience under FAIR_MIN_BASE are too few to rank and come last: docs/metrics.md,
        "Fair rankings"). `subscribers` is the channel's count on the last synced
        day of the period (from channel analytics), not today's. Without a period: the last
        28 days (METRIC_DEFAULT_PERIOD).
        """

        def compute(q: Query) -> MetricFrame:
            q.attrs["sources"] = {"subscribers": SUBSCRIBERS_DAILY}
            return metrics.channel_comparison(q.con, q.flt, q.period)

        return self._run(Metric("channel_comparison"), filters, compute)

    def tag_performance(
        self,
        *,
        by: str | None = None,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        **filters: Unpack[Filters],
    ) -> pd.DataFrame:
        """One row per tag of the posts published in the period, most-used first.

        `posts` carry the tag; `readers` and `read_rate` (Σ readers ÷ Σ audience) are
        theirs; `lift` is the median over those posts of (the post's read rate ÷ its
        channel's median read rate in the period), so big channels do not decide the
        answer; opens/engagements are their daily rows in the period; `small_sample`
        flags tags on fewer than `small_sample_n` posts.
        """
        return self._grouped(groups.tag_performance, "tag_performance", filters, by, small_sample_n)

    def priority_impact(
        self,
        *,
        by: str | None = None,
        small_sample_n: int = SMALL_SAMPLE_POSTS,
        **filters: Unpack[Filters],
    ) -> pd.DataFrame:
        """One row per priority (normal, high, urgent) for the posts published in the period.

        Same columns as `tag_performance`; every priority appears, with 0 posts if none.
        """
        return self._grouped(groups.priority_impact, "priority_impact", filters, by, small_sample_n)

    def _grouped(
        self,
        compute: Callable[..., MetricFrame],
        name: str,
        filters: Mapping[str, object],
        by: str | None,
        small_sample_n: int,
    ) -> pd.DataFrame:
        """`tag_performance` and `priority_impact`: the same checks, warnings and attrs."""
        by_channel = check_by(by)
        least = check_count("small_sample_n", small_sample_n, minimum=1)

        def grouped(q: Query) -> MetricFrame:
            result = compute(q.con, q.flt, q.period, by_channel=by_channel, small_sample_n=least)
            result.frame = with_channel_names(q.con, result.frame, by_channel)
            q.attrs.update(by=by, small_sample_n=least)
            return result

        return self._run(Metric(name), filters, grouped)

    def author_comparison(
        self, *, small_sample_n: int = SMALL_SAMPLE_POSTS, **filters: Unpack[Filters]
    ) -> pd.DataFrame:
        """One row per author of the posts published in the period, ranked fairly.

        Columns as `tag_performance` (posts, readers, read_rate with its 95% interval, lift,
        vs_expected with its interval, adjusted_vs_expected, opens, engagements...) with
        `rank` first and author_id, author. Ranked by `adjusted_vs_expected`: the author's
        readers against what the read rates of the channels they posted in expect, shrunk
        toward it by the prior the authors' spread gives (docs/metrics.md, "Fair rankings"),
        so an author posting in a big channel is not ranked down for its size, nor one lucky
        small post ranked first. Fewer than `small_sample_n` posts or an audience under
        FAIR_MIN_BASE: too few to rank, listed last. Without a period: the last 28 days.

            wh.author_comparison(period="last month").head(5)
        """
        least = check_count("small_sample_n", small_sample_n, minimum=1)

        def compute(q: Query) -> MetricFrame:
            q.attrs.update(small_sample_n=least)
            return groups.author_comparison(q.con, q.flt, q.period, small_sample_n=least)

        return self._run(Metric("author_comparison"), filters, compute)

    def low_reach(
        self, *, share: float = LOW_REACH_SHARE, **filters: Unpack[Filters]
    ) -> pd.DataFrame:
        """Posts whose read rate is below `share` (default half) of their channel's median
        read rate in the period, worst first, with the channel median beside them.

        Posts younger than their channel's typical reach time (the day by which its posts
        have REACH_TIME_SHARE of their readers, from its reach curve; `attrs["reach_days"]`)
        are still collecting readers: neither judged nor part of the medians.
        `attrs["still_collecting_readers"]` counts them; `still_collecting_readers()` lists
        them. Without a period: the last 28 days (METRIC_DEFAULT_PERIOD)."""
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
            raise InvalidParameterError("share", f"{share!r} is not a number in (0, 1]")

        def compute(q: Query) -> MetricFrame:
            settled = self._young_apart(q)
            q.attrs.update(share=float(share))
            frame = groups.low_reach(
                q.con, q.flt, q.period, share=float(share), settled=settled, gaps=q.coverage.gaps()
            )
            return MetricFrame(frame, groups.posts_without_audience(q.con, q.flt, q.period))

        return self._run(Metric("low_reach"), filters, compute)

    def still_collecting_readers(self, **filters: Unpack[Filters]) -> pd.DataFrame:
        """The posts published in the period that are younger than their channel's typical
        reach time, newest first: they are still collecting readers, so `low_reach` and
        `top_posts(by="read_rate")` leave them out. Columns: post_id, title, channel_id,
        channel, published_at, readers and read_rate so far, audience, age_days (UTC days
        since publication, through the last complete synced day) and reach_days (their
        channel's reach time). Without a period: the last 28 days (METRIC_DEFAULT_PERIOD).

            young = wh.still_collecting_readers(period="last week")
        """

        def compute(q: Query) -> pd.DataFrame:
            settled = self._reach_times(q)
            q.attrs["reach_days"] = dict(settled.days)
            return groups.still_collecting(q.con, q.flt, q.period, settled)

        return self._run(Metric("still_collecting_readers"), filters, compute)

    def _settled_days(self, q: Query, last_day: date) -> int:
        """`reach.settled_days` of the workspace's posts (whatever the call's filters: the
        age by which posts here settle), kept while the file is unchanged, like the
        coverage: it reads a month of daily rows."""
        if self._lake is not None or self._covered is None:  # the lake is read afresh
            return reach.settled_days(q.con, None, last_day=last_day)
        key = (self._covered[0], last_day)
        if key not in self._settled:
            self._settled = {key: reach.settled_days(q.con, None, last_day=last_day)}
        return self._settled[key]

    def _channel_settles(
        self, q: Query, last_day: date, settled: int
    ) -> dict[str, outlook.Settles]:
        """`outlook.channel_settles` of the call's channels, kept while the file is
        unchanged, like `_settled_days`: it reads 28 days of each channel's latest settled
        posts, as much as the rest of the outlook."""
        if self._lake is not None or self._covered is None:  # the lake is read afresh
            return outlook.channel_settles(q.con, q.flt, last=last_day, fallback=settled)
        key = (self._covered[0], last_day, settled, q.flt.channel_ids)
        if key not in self._aims:
            if self._aims and next(iter(self._aims))[0] != key[0]:
                self._aims = {}  # the file moved on: the others are stale
            self._aims[key] = outlook.channel_settles(q.con, q.flt, last=last_day, fallback=settled)
        return self._aims[key]

    def _reach_times(self, q: Query) -> ReachTimes:
        last = q.coverage.last_complete_day
        assert last is not None  # require_daily() checked there are daily rows
        return reach.reach_times(q.con, q.flt.channel_ids, last_day=last)

    def _young_apart(self, q: Query) -> ReachTimes:
        """Each channel's reach time, with the posts younger than it counted in attrs and
        a warning: a read-rate ranking leaves them out."""
        settled = self._reach_times(q)
        young = len(groups.still_collecting(q.con, q.flt, q.period, settled))
        if young:
            q.warnings.append(
                f"{young:,} {'post is' if young == 1 else 'posts are'} still collecting "
                "readers (younger than their channel's typical reach time): not judged yet; "
                "still_collecting_readers() lists them."
            )
        q.attrs.update(still_collecting_readers=young, reach_days=dict(settled.days))
        return settled

    def reach_curve(self, days: int = REACH_CURVE_DAYS, **filters: Unpack[Filters]) -> pd.DataFrame:
        """How fast posts reach their readers: `day` 0..days and `share` of readers reached.

        share(day) = Σ over posts of min(readers, cumulative daily unique viewers from the
        UTC date of publication through that day) ÷ Σ readers, over the posts published in
        the period at least `days` days before the last synced day (one cohort for every
        day, so `share` never decreases). `attrs["posts"]` is the cohort's size.
        Without a period: the last 28 days (METRIC_DEFAULT_PERIOD).
        """
        length = check_count("days", days, minimum=1)
        if length > REACH_CURVE_MAX_DAYS:
            raise InvalidParameterError(
                "days", f"{length} is more than {REACH_CURVE_MAX_DAYS} days"
            )

        def compute(q: Query) -> pd.DataFrame:
            last = q.coverage.last_complete_day
            assert last is not None  # require_daily() checked there are daily rows
            frame, count = reach.reach_curve(q.con, q.flt, q.period, days=length, last_day=last)
            if count == 0:
                q.warnings.append(
                    f"No post in {q.period.label} was published at least {length} days before "
                    f"the last synced day ({last.isoformat()}); the curve is empty."
                )
            q.attrs.update(days=length, posts=count)
            return frame

        return self._run(Metric("reach_curve"), filters, compute)

    def outlook(self, **filters: Unpack[PostOnlyFilters]) -> pd.DataFrame:
        """Will the young posts land? Each post younger than its channel's settled age
        (`settles_by_day`: the age by which that channel's posts stop gaining readers) on
        the last complete synced day (`attrs["as_of"]`), newest first: its readers and
        read rate so far, age_days, the forecast of the readers it will end with
        (`forecast_readers`, `forecast_read_rate`) with an 80% interval (`forecast_low`,
        `forecast_high`), its channel's usual settled readers at its audience
        (`usual_low`, `usual_readers`, `usual_high`) and a verdict: "on track", "ahead",
        "behind", "too early to say" or "too few settled posts to forecast" (`reason`
        says why). `based_on` counts the channel's settled posts of the same weekday the
        interval comes from; `news` marks a post heading for under a quarter of its
        usual readers. Readers are whole numbers. Every row is provisional
        (docs/metrics.md, "Outlook"); `attrs["settled_days"]` is the workspace's settled
        age, the one a channel without the evidence of its own aims at.

            young = wh.outlook(channel="All Hands")
            young[young["verdict"] == "behind"]
        """

        def compute(q: Query) -> pd.DataFrame:
            last, settled = self._now_and_settled(q)
            q.attrs.update(as_of=last, settled_days=settled, provisional=True)
            aims = self._channel_settles(q, last, settled)
            return outlook.outlook(q.con, q.flt, last=last, settles=aims, tz=q.period.tz)

        return self._of_now("outlook", filters, compute)

    def outlook_backtest(
        self, *, detail: bool = False, **filters: Unpack[PostOnlyFilters]
    ) -> pd.DataFrame:
        """How well `outlook` would have done: every post past its channel's settled age
        replayed at ages 1, 2 and 3 days, each forecast made from the posts settled by
        then and judged against the readers the post had reached by the last synced day
        (never against the forecast's own target). Rows per age: pooled (`scope` "all"),
        per channel ("channel", with its `settles_by_day` and `still_gaining`: its posts
        had not stopped gaining readers by then) and per weekday of the forecast
        ("weekday"): posts forecast and `abstained`, `coverage` (the share inside the 80%
        interval), `below` and `above` it, `median_abs_error` beside
        `naive_median_abs_error` (the channel's usual settled readers at the post's
        audience) and `error_vs_naive`. `detail=True` gives one row per post and age.

            wh.outlook_backtest()            # channelkit outlook --backtest
        """

        def compute(q: Query) -> pd.DataFrame:
            last, settled = self._now_and_settled(q)
            q.attrs.update(as_of=last, settled_days=settled)
            rows = outlook.backtest(q.con, q.flt, last=last, settle=settled, tz=q.period.tz)
            return rows if detail else outlook.backtest_table(rows)

        return self._of_now("outlook_backtest", filters, compute)

    def decay_profiles(self, **filters: Unpack[PostOnlyFilters]) -> pd.DataFrame:
        """How each channel's posts decay, from its posts settled on the last complete
        synced day (the same posts `outlook` forecasts from): per channel and day 0, 1, ...
        its settled age (`settles_by_day`, and `settled_from`: its own posts or the
        workspace's), `share_on_day` and `share_by_day` of the readers its posts end
        with, and the days to 50% and to 90% of each post's final readers (median, with
        the spread across posts, their 10th to 90th percentiles: `days_to_50_low`,
        `days_to_50_high`, ...; `attrs["spread"]`). Days are whole UTC days: daily rows
        cannot see hours (`attrs["resolution"]`).

            ck.plots.decay_profiles(wh.decay_profiles())
        """

        def compute(q: Query) -> pd.DataFrame:
            last, settled = self._now_and_settled(q)
            q.attrs.update(as_of=last, settled_days=settled, resolution=outlook.RESOLUTION)
            aims = self._channel_settles(q, last, settled)
            frame = outlook.recent_readers(q.con, q.flt, last=last, settles=aims)
            q.attrs["spread"] = outlook.SPREAD
            return outlook.decay_profiles(frame, settles=aims, last=last)

        return self._of_now("decay_profiles", filters, compute)

    def _of_now(
        self, name: str, filters: Mapping[str, object], compute: Callable[[Query], pd.DataFrame]
    ) -> pd.DataFrame:
        """A metric of the posts of now: no period; labelled by the day it stands on."""
        frame = self._run(Metric(name, default=None), filters, compute, allowed=POST_ONLY_KEYS)
        label = f"as of {frame.attrs['as_of']:%d %b %Y} (UTC day)"
        frame.attrs.update(period=label, period_label=label, period_short=label)
        return frame

    def _now_and_settled(self, q: Query) -> tuple[date, int]:
        """The one reference of the posts of now: the last complete synced day, and the
        workspace's settled age on it."""
        last = q.coverage.last_complete_day
        assert last is not None  # require_daily() checked there are daily rows
        return last, self._settled_days(q, last)

    def subscribers(
        self, freq: str = "week", *, by: str | None = None, **filters: Unpack[ChannelFilters]
    ) -> pd.DataFrame:
        """Subscribers at the end of each week or month, and those gained, lost and net.

        From channel analytics (UTC days, grouped by their date); `by="channel"` gives one
        row per period and channel. `subscribers` is the last daily count in the period;
        `days` and `complete` say how much of each row synced data covers. Without a
        period: the last 28 days (METRIC_DEFAULT_PERIOD); by month, the whole months they
        begin in.
        """
        if freq not in ("week", "month"):
            raise InvalidParameterError("freq", f"{freq!r} is not one of week, month")
        by_channel = check_by(by)

        def compute(q: Query) -> pd.DataFrame:
            cov = q.coverage
            whole_default(q, freq)
            check_grid(grid_size(q.period, freq, cov.first_day, cov.last_day), freq)
            q.attrs.update(freq=freq, by=by, sources={"subscribers": SUBSCRIBERS_DAILY})
            return subscribers_frame(q.con, q.flt, q.period, freq, by_channel, cov)

        return self._run(
            Metric("subscribers", readers=False), filters, compute, allowed=CHANNEL_KEYS
        )

    def publishing_heatmap(self, **filters: Unpack[Filters]) -> pd.DataFrame:
        """Weekday × hour of publication (local to `tz`): posts published and their readers.

        168 rows (weekday 0 = Monday). Opens are those the posts published in that slot
        received in the period: the data has no hour of reading, only of publishing.
        """
        return self._run(
            Metric("publishing_heatmap"),
            filters,
            lambda q: metrics.publishing_heatmap(q.con, q.flt, q.period),
        )

    def best_times(self, **filters: Unpack[Filters]) -> pd.DataFrame:
        """Weekday-hours (local to `tz`) judged fairly: 168 rows, ranked slots first.

        Each post counts with its readers in its first BEST_TIMES_AGE_DAYS UTC days (posts
        younger than that are left out) against its channel's rate at that age; `vs_expected`
        is a slot's readers ÷ expected readers, `adjusted_vs_expected` the same shrunk toward the
        typical slot (slots rank by it), `vs_rest` its ratio to all other posts with an
        interval adjusted for the number of slots tested (`vs_rest_low`/`vs_rest_high`;
        `distinct` when it excludes 1). Slots with fewer than BEST_TIMES_MIN_POSTS posts'
        worth of evidence are `too_few_to_rank`. `attrs["verdict"]` is "some hours reliably
        better", "no hour reliably better (some reliably worse)" or "no reliable difference"
        (docs/metrics.md, "Best times"); a notebook shows it in the table's caption.
        Without a period: every synced day (the more posts, the surer the verdict).

            best = wh.best_times(channel="All Hands", tz="Europe/Berlin")
            best.attrs["verdict"], best.head(3)
        """

        def compute(q: Query) -> pd.DataFrame:
            last = q.coverage.last_complete_day
            assert last is not None  # require_daily() checked there are daily rows
            posts = timing.slot_posts(q.con, q.flt, q.period, last_day=last)
            frame = timing.judge_slots(posts)
            q.attrs.update(
                {str(k): v for k, v in frame.attrs.items()}, age_days=BEST_TIMES_AGE_DAYS
            )
            return frame

        return self._run(Metric("best_times", default=None), filters, compute)

    def upcoming_scheduled(
        self, *, as_of: Moment | None = None, **filters: Unpack[UpcomingFilters]
    ) -> pd.DataFrame:
        """Posts still scheduled to publish after `as_of` (default: now), soonest first.

        The warehouse is a snapshot: pass the last sync time as `as_of` for a report that
        does not change with the wall clock. `start`/`end` bound `scheduled_at`.
        """
        check_keywords("upcoming_scheduled", filters, UPCOMING_KEYS)
        zone = resolve_zone(filters.get("tz"))
        moment = datetime.now(UTC) if as_of is None else to_local(as_of, zone, param="as_of")

        def compute(q: Query) -> pd.DataFrame:
            q.attrs.update(as_of=moment)
            return metrics.upcoming_scheduled(q.con, q.flt, q.period, as_of=moment)

        metric = Metric("upcoming_scheduled", daily=False, readers=False, default=None)
        frame = self._run(metric, {**filters, "tz": zone}, compute, allowed=UPCOMING_KEYS)
        if frame.attrs["start"] is None and frame.attrs["end"] is None:
            local = moment.astimezone(zone)
            frame.attrs["period"] = f"due after {local:%Y-%m-%d %H:%M} ({frame.attrs['tz']})"
            frame.attrs["period_label"] = frame.attrs["period"]
        return frame

    def _run(
        self,
        metric: Metric,
        filters: Mapping[str, object],
        compute: Callable[[Query], pd.DataFrame | MetricFrame],
        *,
        allowed: Iterable[str] = FILTER_KEYS,
    ) -> pd.DataFrame:
        """Every metric: check the keywords, choose the period, query, write the attrs."""
        check_keywords(metric.name, filters, allowed)
        with self._query(filters, daily=metric.daily, default=metric.default) as q:
            if uses_default(filters, metric.default):
                q.default_period = metric.default
            return q.finish(compute(q), metric)

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
        self, filters: Mapping[str, object], *, daily: bool, default: str | None
    ) -> Iterator[Query]:
        zone = resolve_zone(filters.get("tz"))
        with self._connect() as con:
            coverage = self._coverage(con)
            coverage.require_synced()
            if daily:
                coverage.require_daily()
            period = choose_period(filters, zone, coverage, default)
            if daily and (period.start is not None or period.end is not None):
                coverage.require_overlap(period, period.label)
            flt = resolve_filter(
                con,
                **{key: filters.get(key) for key in ("channel", "tag", "priority", "author")},  # type: ignore[arg-type]
            )
            previous = None
            if period.start is not None and period.end is not None:
                previous = period.compared("previous")
            yield Query(con, flt, period, previous, coverage, filters_as_given(con, flt, filters))


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file is at `path` (device, inode): a sync's switch puts another there."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino
