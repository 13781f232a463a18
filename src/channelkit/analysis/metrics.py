"""The metric queries: one DuckDB query per metric, run on a connection the caller owns.

Definitions (also in `docs/metrics.md`):

- engagements = reactions + comments + shares + clicks, summed over `post_daily` rows;
  views likewise; engagement_rate = engagements / views (missing when views are 0).
- Daily rows are whole UTC days. A row counts in a period when its date is in
  `[Period.start_day, Period.end_day)`, and it is grouped into days, weeks (ISO, starting
  Monday) and months by its date as a calendar date: day D is the local day D in every
  timezone (the local day that overlaps most of it, for offsets within ±12 h).
- posts_published counts posts whose `published_at` lies in `[start, end)`; grouped by
  the local calendar day/week/month of `published_at` in `tz`.
- Per-post comparisons (tag performance, priority impact, heatmap) look at the cohort of
  posts published in the period, each measured by its daily rows in the period.
- A daily row belongs to the channel recorded on it (`post_daily.channel_id`), a post to
  its `channel_id`; deleted posts (and their daily rows) and deleted channels never count.

Every user value reaches DuckDB as a query parameter; the only text spliced into SQL is
chosen from fixed fragments in this module.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import duckdb
import pandas as pd

from channelkit._spec import PRIORITIES
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.frames import to_frame
from channelkit.analysis.period import Period
from channelkit.analysis.sql import Sql, first_row

FREQS = {"day": "1 DAY", "week": "1 WEEK", "month": "1 MONTH"}
TOP_BY = ("views", "engagement_rate")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
ENGAGEMENTS = "(d.reactions + d.comments + d.shares + d.clicks)"


def _and(*parts: Sql) -> Sql:
    kept = [p for p in parts if p.text]
    if not kept:
        return Sql("TRUE")
    out = kept[0]
    for part in kept[1:]:
        out = out + Sql(" AND ") + part
    return out


def _day_range(period: Period, column: str) -> Sql:
    parts = []
    if period.start_day is not None:
        parts.append(Sql(f"{column} >= ?", (period.start_day,)))
    if period.end_day is not None:
        parts.append(Sql(f"{column} < ?", (period.end_day,)))
    return _and(*parts)


def _instant_range(period: Period, column: str) -> Sql:
    parts = [Sql(f"{column} IS NOT NULL")]
    if period.start is not None:
        parts.append(Sql(f"{column} >= ?", (period.start,)))
    if period.end is not None:
        parts.append(Sql(f"{column} < ?", (period.end,)))
    return _and(*parts)


def _base(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> Sql:
    """`WITH fdaily AS (...)`: the daily rows of the period that pass the filters.

    Daily rows are filtered on their own columns first. Deleted posts are removed with an
    anti-join only when there are any (reading 10M post ids costs more than the sums),
    and posts are joined only when a post-level filter (tag, priority, author) asks.
    """
    sql = Sql(
        "WITH fdaily AS (SELECT d.post_id, d.channel_id, d.date, d.views, d.reactions, "
        "d.comments, d.shares, d.clicks FROM post_daily d "
    )
    if _has_deleted_posts(con):
        sql = sql + Sql(
            "ANTI JOIN (SELECT id FROM posts WHERE deleted_at IS NOT NULL) gone "
            "ON gone.id = d.post_id "
        )
    if flt.selects_posts:
        sql = sql + Sql("SEMI JOIN (SELECT p.id FROM posts p WHERE ") + _posts_where(flt)
        sql = sql + Sql(") sp ON sp.id = d.post_id ")
    sql = sql + Sql("WHERE ") + _day_range(period, "d.date")
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND d.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    return sql + Sql(")")


def _has_deleted_posts(con: duckdb.DuckDBPyConnection) -> bool:
    row = first_row(con, "SELECT EXISTS (SELECT 1 FROM posts WHERE deleted_at IS NOT NULL)")
    return bool(row and row[0])


def _posts_where(flt: PostFilter, period: Period | None = None) -> Sql:
    """Condition on `posts p`: the filters and, with `period`, `published_at` inside it."""
    where, params = flt.where("p")
    sql = Sql(where, tuple(params))
    if period is not None:
        sql = sql + Sql(" AND ") + _instant_range(period, "p.published_at")
    return sql


def _cohort(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> Sql:
    """`_base` plus `cohort`: posts published in the period with their period totals."""
    return (
        _base(con, flt, period)
        + Sql(", published AS (SELECT p.id, p.priority, p.published_at, p.tags FROM posts p WHERE ")
        + _posts_where(flt, period)
        + Sql(
            "), per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS views, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1), "
            "cohort AS (SELECT c.id, c.priority, c.published_at, c.tags, "
            "coalesce(pp.views, 0) AS views, coalesce(pp.engagements, 0) AS engagements "
            "FROM published c LEFT JOIN per_post pp ON pp.post_id = c.id) "
        )
    )


def _run(con: duckdb.DuckDBPyConnection, sql: Sql, tz: str) -> pd.DataFrame:
    return to_frame(con.sql(sql.text, params=list(sql.params)).to_arrow_table(), tz)


def posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    statuses: tuple[str, ...] | None,
) -> pd.DataFrame:
    """One row per post, oldest publication first (unpublished posts last)."""
    where, params = flt.where("p")
    sql = Sql(
        "SELECT p.id, p.channel_id, c.name AS channel_name, p.title, p.body, p.priority, "
        "coalesce(p.tags, []::VARCHAR[]) AS tags, p.author_id, p.author_name, p.author_email, "
        "p.status, p.published_at, p.scheduled_at, p.cover_image_url, p.views, "
        "p.created_at, p.updated_at "
        f"FROM posts p LEFT JOIN channels c ON c.id = p.channel_id WHERE {where}",
        tuple(params),
    )
    if period.start is not None or period.end is not None:
        sql = sql + Sql(" AND ") + _instant_range(period, "p.published_at")
    if statuses is not None:
        sql = sql + Sql(" AND p.status = ANY(?::VARCHAR[])", (list(statuses),))
    sql = sql + Sql(" ORDER BY p.published_at NULLS LAST, p.id")
    return _run(con, sql, period.tz)


def channels(con: duckdb.DuckDBPyConnection, tz: str) -> pd.DataFrame:
    """One row per channel that still exists, by name."""
    sql = Sql(
        "SELECT id, name, slug, description, visibility, subscriber_count, post_count, "
        "is_default, is_archived, created_at, updated_at "
        "FROM channels WHERE deleted_at IS NULL ORDER BY name, id"
    )
    return _run(con, sql, tz)


def engagement_over_time(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, freq: str
) -> pd.DataFrame:
    """One row per day/week/month of the period (gaps filled with zeros)."""
    unit = freq  # validated against FREQS by the caller
    step = FREQS[freq]
    bounds = (
        period.start_day,
        None if period.end_day is None else period.end_day - timedelta(days=1),
    )
    # Sum per day first, then per period: date_trunc runs on hundreds of days, not on
    # millions of rows.
    sql = (
        _base(con, flt, period)
        + Sql(
            ", days AS (SELECT d.date, sum(d.views)::BIGINT AS views, "
            "sum(d.reactions)::BIGINT AS reactions, sum(d.comments)::BIGINT AS comments, "
            "sum(d.shares)::BIGINT AS shares, sum(d.clicks)::BIGINT AS clicks "
            "FROM fdaily d GROUP BY 1), "
            f"daily AS (SELECT date_trunc('{unit}', date)::DATE AS period, "
            "sum(views)::BIGINT AS views, sum(reactions)::BIGINT AS reactions, "
            "sum(comments)::BIGINT AS comments, sum(shares)::BIGINT AS shares, "
            "sum(clicks)::BIGINT AS clicks FROM days GROUP BY 1), "
            "pub_days AS (SELECT timezone(?, p.published_at)::DATE AS day, count(*) AS n "
            "FROM posts p WHERE ",
            (period.tz,),
        )
        + _posts_where(flt, period)
        + Sql(
            f" GROUP BY 1), pub AS (SELECT date_trunc('{unit}', day)::DATE AS period, "
            "sum(n)::BIGINT AS posts_published FROM pub_days GROUP BY 1), "
            "bounds AS (SELECT "
            f"coalesce(date_trunc('{unit}', ?::DATE)::DATE, least("
            "(SELECT min(period) FROM daily), (SELECT min(period) FROM pub))) AS lo, "
            f"coalesce(date_trunc('{unit}', ?::DATE)::DATE, greatest("
            "(SELECT max(period) FROM daily), (SELECT max(period) FROM pub))) AS hi), "
            f"grid AS (SELECT unnest(generate_series(lo, hi, INTERVAL {step}))::DATE AS period "
            "FROM bounds) "
            "SELECT g.period, coalesce(pub.posts_published, 0) AS posts_published, "
            "coalesce(daily.views, 0) AS views, coalesce(daily.reactions, 0) AS reactions, "
            "coalesce(daily.comments, 0) AS comments, coalesce(daily.shares, 0) AS shares, "
            "coalesce(daily.clicks, 0) AS clicks, "
            "coalesce(daily.reactions + daily.comments + daily.shares + daily.clicks, 0) "
            "AS engagements, "
            "(daily.reactions + daily.comments + daily.shares + daily.clicks)::DOUBLE "
            "/ nullif(daily.views, 0) AS engagement_rate "
            "FROM grid g LEFT JOIN daily USING (period) LEFT JOIN pub USING (period) "
            "ORDER BY g.period",
            bounds,
        )
    )
    return _run(con, sql, period.tz)


# metric, label, kind ("count" or "rate")
KPI_METRICS: tuple[tuple[str, str, str], ...] = (
    ("posts_published", "Posts published", "count"),
    ("views", "Views", "count"),
    ("engagements", "Engagements", "count"),
    ("engagement_rate", "Engagement rate", "rate"),
    ("reactions", "Reactions", "count"),
    ("comments", "Comments", "count"),
    ("shares", "Shares", "count"),
    ("clicks", "Clicks", "count"),
    ("net_subscribers", "Net new subscribers", "count"),
)


def kpis(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> pd.DataFrame:
    """Totals of the period next to those of the same-length period just before it."""
    previous = period.previous()
    totals = _kpi_totals(con, flt, period, previous)
    rows = []
    for metric, label, kind in KPI_METRICS:
        value, before = totals[True][metric], totals[False][metric]
        delta = None if value is None or before is None else value - before
        rows.append(
            {
                "metric": metric,
                "label": label,
                "kind": kind,
                "value": value,
                "previous": before,
                "delta": delta,
                # A relative change from zero or from a negative base (net subscribers
                # can shrink) has no meaning.
                "delta_pct": None if delta is None or not before or before < 0 else delta / before,
            }
        )
    frame = pd.DataFrame(rows)
    for column in ("value", "previous", "delta", "delta_pct"):
        frame[column] = frame[column].astype("Float64")
    return frame


def _kpi_totals(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, current: Period, previous: Period
) -> dict[bool, dict[str, float | None]]:
    """Totals keyed by "is the current period" (True) or the previous one (False)."""
    both = Period(tz=current.tz, start=previous.start, end=current.end)
    sql = (
        _base(con, flt, both)
        + Sql(
            ", d AS (SELECT d.date >= ? AS cur, sum(d.views)::BIGINT AS views, "
            "sum(d.reactions)::BIGINT AS reactions, sum(d.comments)::BIGINT AS comments, "
            "sum(d.shares)::BIGINT AS shares, sum(d.clicks)::BIGINT AS clicks "
            "FROM fdaily d GROUP BY 1), "
            "pub AS (SELECT p.published_at >= ? AS cur, count(*) AS posts_published "
            "FROM posts p WHERE ",
            (current.start_day, current.start),
        )
        + _posts_where(flt, both)
        + Sql(
            " GROUP BY 1) SELECT k.cur, pub.posts_published, d.views, d.reactions, "
            "d.comments, d.shares, d.clicks FROM (VALUES (true), (false)) k(cur) "
            "LEFT JOIN d ON d.cur = k.cur LEFT JOIN pub ON pub.cur = k.cur"
        )
    )
    totals: dict[bool, dict[str, float | None]] = {}
    for cur, *numbers in con.execute(sql.text, list(sql.params)).fetchall():
        posts_published, views, reactions, comments, shares, clicks = (
            0 if v is None else int(v) for v in numbers
        )
        engagements = reactions + comments + shares + clicks
        totals[bool(cur)] = {
            "posts_published": float(posts_published),
            "views": float(views),
            "engagements": float(engagements),
            "engagement_rate": engagements / views if views else None,
            "reactions": float(reactions),
            "comments": float(comments),
            "shares": float(shares),
            "clicks": float(clicks),
            "net_subscribers": None
            if flt.selects_posts
            else _net_subscribers(con, flt, current if cur else previous),
        }
    return totals


def _net_subscribers(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> float:
    sql = Sql(
        "SELECT coalesce(sum(c.subscribers_gained - c.subscribers_lost)::BIGINT, 0) "
        "FROM channel_daily c WHERE c.channel_id IN "
        "(SELECT id FROM channels WHERE deleted_at IS NULL) AND "
    ) + _day_range(period, "c.date")
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND c.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    row = first_row(con, sql.text, sql.params)
    assert row is not None  # an aggregate without GROUP BY always returns one row
    return float(row[0])


def top_posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by: str,
    n: int,
    min_views: int,
) -> pd.DataFrame:
    """The `n` posts with the most views (or the highest rate) from daily rows in the period."""
    # Unqualified: both ORDER BYs sort on output columns of the same names.
    order = "views DESC" if by == "views" else "engagement_rate DESC NULLS LAST"
    sql = _base(con, flt, period) + Sql(
        ", per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS views, "
        f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1 "
        "HAVING sum(d.views) >= ?), "
        "top AS (SELECT t.*, t.engagements::DOUBLE / nullif(t.views, 0) AS engagement_rate "
        f"FROM per_post t ORDER BY {order}, post_id LIMIT ?) "
        "SELECT t.post_id, p.title, p.channel_id, c.name AS channel_name, p.priority, "
        "coalesce(p.tags, []::VARCHAR[]) AS tags, p.author_name, p.published_at, t.views, "
        "t.engagements, t.engagement_rate FROM top t JOIN posts p ON p.id = t.post_id "
        f"LEFT JOIN channels c ON c.id = p.channel_id ORDER BY {order}, post_id",
        (min_views, n),
    )
    frame = _run(con, sql, period.tz)
    frame.insert(0, "rank", pd.Series(range(1, len(frame) + 1), index=frame.index, dtype="Int64"))
    return frame


def channel_comparison(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """Per channel: posts, views, engagements and reach (views per current subscriber)."""
    sql = (
        _base(con, flt, period)
        + Sql(
            ", daily AS (SELECT d.channel_id, sum(d.views)::BIGINT AS views, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1), "
            "pub AS (SELECT p.channel_id, count(*) AS posts_published FROM posts p WHERE "
        )
        + _posts_where(flt, period)
        + Sql(
            " GROUP BY 1) SELECT c.id AS channel_id, c.name AS channel_name, c.slug, "
            "c.visibility, c.is_archived, "
            "coalesce(pub.posts_published, 0) AS posts_published, "
            "coalesce(daily.views, 0) AS views, coalesce(daily.engagements, 0) AS engagements, "
            "daily.engagements::DOUBLE / nullif(daily.views, 0) AS engagement_rate, "
            "c.subscriber_count, "
            "coalesce(daily.views, 0)::DOUBLE / nullif(c.subscriber_count, 0) "
            "AS views_per_subscriber, TRUE AS uses_current_subscribers "
            "FROM channels c LEFT JOIN daily ON daily.channel_id = c.id "
            "LEFT JOIN pub ON pub.channel_id = c.id WHERE c.deleted_at IS NULL"
        )
    )
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND c.id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    sql = sql + Sql(" ORDER BY views_per_subscriber DESC NULLS LAST, c.id")
    return _run(con, sql, period.tz)


# Per-group statistics over `cohort c`; count(c.id) keeps groups without posts at zero.
_GROUP_STATS = (
    "count(c.id) AS posts, coalesce(sum(c.views)::BIGINT, 0) AS views, "
    "coalesce(sum(c.engagements)::BIGINT, 0) AS engagements, "
    "sum(c.engagements)::DOUBLE / nullif(sum(c.views)::BIGINT, 0) AS engagement_rate, "
    "median(c.views)::DOUBLE AS median_views, "
    "median(c.engagements::DOUBLE / nullif(c.views, 0)) AS median_engagement_rate, "
    "count(c.id) < ? AS small_sample"
)


def tag_performance(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, small_sample_n: int
) -> pd.DataFrame:
    """One row per tag of the posts published in the period; most-used tags first."""
    # The cohort's own tag lists: unnesting them beats joining the whole post_tags table.
    sql = _cohort(con, flt, period) + Sql(
        ", tagged AS (SELECT c.id, c.views, c.engagements, "
        "unnest(list_distinct(c.tags)) AS tag FROM cohort c) "
        f"SELECT c.tag, {_GROUP_STATS} FROM tagged c",
        (small_sample_n,),
    )
    if flt.tags is not None:
        sql = sql + Sql(" WHERE c.tag = ANY(?::VARCHAR[])", (list(flt.tags),))
    sql = sql + Sql(" GROUP BY c.tag ORDER BY posts DESC, median_views DESC, c.tag")
    return _run(con, sql, period.tz)


def priority_impact(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, small_sample_n: int
) -> pd.DataFrame:
    """One row per priority (all of them, even without posts) for the period's posts."""
    wanted = list(flt.priorities or PRIORITIES)
    sql = _cohort(con, flt, period) + Sql(
        f"SELECT w.priority, {_GROUP_STATS} FROM (SELECT unnest(?::VARCHAR[]) AS priority) w "
        "LEFT JOIN cohort c ON c.priority = w.priority GROUP BY w.priority",
        (small_sample_n, wanted),
    )
    frame = _run(con, sql, period.tz)
    return frame.sort_values("priority", ignore_index=True)


def publishing_heatmap(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """168 rows (weekday × hour of `published_at` in tz): posts published and their views."""
    sql = _cohort(con, flt, period) + Sql(
        ", slots AS (SELECT isodow(timezone(?, c.published_at)) - 1 AS weekday, "
        "hour(timezone(?, c.published_at)) AS hour, count(*) AS posts_published, "
        "sum(c.views)::BIGINT AS views, sum(c.engagements)::BIGINT AS engagements "
        "FROM cohort c GROUP BY 1, 2) "
        "SELECT w.weekday, h.hour, coalesce(s.posts_published, 0) AS posts_published, "
        "coalesce(s.views, 0) AS views, coalesce(s.engagements, 0) AS engagements, "
        "s.views::DOUBLE / s.posts_published AS views_per_post "
        "FROM range(7) w(weekday) CROSS JOIN range(24) h(hour) "
        "LEFT JOIN slots s ON s.weekday = w.weekday AND s.hour = h.hour "
        "ORDER BY w.weekday, h.hour",
        (period.tz, period.tz),
    )
    frame = _run(con, sql, period.tz)
    names = frame["weekday"].map(dict(enumerate(WEEKDAYS)))
    frame.insert(1, "weekday_name", names.astype(pd.CategoricalDtype(list(WEEKDAYS), True)))
    return frame


def upcoming_scheduled(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, as_of: datetime
) -> pd.DataFrame:
    """Scheduled posts due after `as_of` (and inside the period, if given), soonest first."""
    where, params = flt.where("p")
    sql = (
        Sql(
            "SELECT p.scheduled_at, p.id AS post_id, p.title, p.channel_id, "
            "c.name AS channel_name, p.priority, coalesce(p.tags, []::VARCHAR[]) AS tags, "
            "p.author_name FROM posts p LEFT JOIN channels c ON c.id = p.channel_id "
            f"WHERE {where} AND p.status = 'scheduled' AND p.scheduled_at > ? AND ",
            (*params, as_of),
        )
        + _instant_range(period, "p.scheduled_at")
        + Sql(" ORDER BY p.scheduled_at, p.id")
    )
    return _run(con, sql, period.tz)


def latest_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The last UTC date with a daily row (`Freshness.last_post_day`)."""
    row = first_row(con, "SELECT max(date) FROM post_daily")
    return None if row is None else row[0]
