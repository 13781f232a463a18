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
- A post's channel is its current `channel_id`; deleted posts and channels never count.

Every user value reaches DuckDB as a query parameter; the only text spliced into SQL is
chosen from fixed fragments in this module.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import duckdb
import pandas as pd

from channelkit._constants import PRIORITIES
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


def _posts_cte(flt: PostFilter) -> Sql:
    where, params = flt.where("p")
    return Sql(f"fposts AS (SELECT p.* FROM posts p WHERE {where})", tuple(params))


def _cohort_cte(flt: PostFilter, period: Period) -> Sql:
    """`fposts`, plus `cohort`: posts published in the period with their period totals."""
    return (
        Sql("WITH ")
        + _posts_cte(flt)
        + Sql(", published AS (SELECT p.id, p.priority, p.published_at FROM fposts p WHERE ")
        + _instant_range(period, "p.published_at")
        + Sql(
            "), cohort AS (SELECT c.id, c.priority, c.published_at, "
            "coalesce(sum(d.views)::BIGINT, 0) AS views, "
            f"coalesce(sum({ENGAGEMENTS})::BIGINT, 0) AS engagements "
            "FROM published c LEFT JOIN post_daily d ON d.post_id = c.id AND "
        )
        + _day_range(period, "d.date")
        + Sql(" GROUP BY ALL) ")
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
    sql = (
        Sql("WITH ")
        + _posts_cte(flt)
        + Sql(
            f", daily AS (SELECT date_trunc('{unit}', d.date)::DATE AS period, "
            "sum(d.views)::BIGINT AS views, sum(d.reactions)::BIGINT AS reactions, "
            "sum(d.comments)::BIGINT AS comments, sum(d.shares)::BIGINT AS shares, "
            "sum(d.clicks)::BIGINT AS clicks "
            "FROM post_daily d JOIN fposts p ON p.id = d.post_id WHERE "
        )
        + _day_range(period, "d.date")
        + Sql(
            f" GROUP BY 1), pub AS (SELECT date_trunc('{unit}', "
            "timezone(?, p.published_at))::DATE AS period, count(*) AS posts_published "
            "FROM fposts p WHERE ",
            (period.tz,),
        )
        + _instant_range(period, "p.published_at")
        + Sql(
            " GROUP BY 1), bounds AS (SELECT "
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
    totals = {True: _kpi_totals(con, flt, period), False: _kpi_totals(con, flt, previous)}
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
                "delta_pct": None if delta is None or not before else delta / before + 0.0,
            }
        )
    frame = pd.DataFrame(rows)
    for column in ("value", "previous", "delta", "delta_pct"):
        frame[column] = frame[column].astype("Float64")
    return frame


def _kpi_totals(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> dict[str, float | None]:
    sql = (
        Sql("WITH ")
        + _posts_cte(flt)
        + Sql(" SELECT (SELECT count(*) FROM fposts p WHERE ")
        + _instant_range(period, "p.published_at")
        + Sql(
            "), sum(d.views), sum(d.reactions), sum(d.comments), sum(d.shares), sum(d.clicks) "
            "FROM post_daily d JOIN fposts p ON p.id = d.post_id WHERE "
        )
        + _day_range(period, "d.date")
    )
    row = first_row(con, sql.text, sql.params)
    assert row is not None  # an aggregate without GROUP BY always returns one row
    posts_published, *sums = (0 if v is None else int(v) for v in row)
    views, reactions, comments, shares, clicks = sums
    engagements = reactions + comments + shares + clicks
    return {
        "posts_published": float(posts_published),
        "views": float(views),
        "engagements": float(engagements),
        "engagement_rate": engagements / views if views else None,
        "reactions": float(reactions),
        "comments": float(comments),
        "shares": float(shares),
        "clicks": float(clicks),
        "net_subscribers": None if flt.selects_posts else _net_subscribers(con, flt, period),
    }


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
    order = "pp.views DESC" if by == "views" else "engagement_rate DESC NULLS LAST"
    sql = (
        Sql("WITH ")
        + _posts_cte(flt)
        + Sql(
            ", per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS views, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements "
            "FROM post_daily d JOIN fposts p ON p.id = d.post_id WHERE "
        )
        + _day_range(period, "d.date")
        + Sql(
            " GROUP BY 1) SELECT p.id AS post_id, p.title, p.channel_id, c.name AS channel_name, "
            "p.priority, coalesce(p.tags, []::VARCHAR[]) AS tags, p.author_name, "
            "p.published_at, pp.views, pp.engagements, "
            "pp.engagements::DOUBLE / nullif(pp.views, 0) AS engagement_rate "
            "FROM per_post pp JOIN fposts p ON p.id = pp.post_id "
            "LEFT JOIN channels c ON c.id = p.channel_id "
            f"WHERE pp.views >= ? ORDER BY {order}, p.id LIMIT ?",
            (min_views, n),
        )
    )
    frame = _run(con, sql, period.tz)
    frame.insert(0, "rank", pd.Series(range(1, len(frame) + 1), index=frame.index, dtype="Int64"))
    return frame


def channel_comparison(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """Per channel: posts, views, engagements and reach (views per current subscriber)."""
    sql = (
        Sql("WITH ")
        + _posts_cte(flt)
        + Sql(
            ", daily AS (SELECT p.channel_id, sum(d.views)::BIGINT AS views, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements "
            "FROM post_daily d JOIN fposts p ON p.id = d.post_id WHERE "
        )
        + _day_range(period, "d.date")
        + Sql(
            " GROUP BY 1), pub AS (SELECT p.channel_id, count(*) AS posts_published "
            "FROM fposts p WHERE "
        )
        + _instant_range(period, "p.published_at")
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
    sql = _cohort_cte(flt, period) + Sql(
        f"SELECT t.tag, {_GROUP_STATS} FROM cohort c JOIN post_tags t ON t.post_id = c.id",
        (small_sample_n,),
    )
    if flt.tags is not None:
        sql = sql + Sql(" WHERE t.tag = ANY(?::VARCHAR[])", (list(flt.tags),))
    sql = sql + Sql(" GROUP BY t.tag ORDER BY posts DESC, median_views DESC, t.tag")
    return _run(con, sql, period.tz)


def priority_impact(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, small_sample_n: int
) -> pd.DataFrame:
    """One row per priority (all of them, even without posts) for the period's posts."""
    wanted = list(flt.priorities or PRIORITIES)
    sql = _cohort_cte(flt, period) + Sql(
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
    sql = _cohort_cte(flt, period) + Sql(
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
    """The last UTC date with a daily row of a post that still exists."""
    row = first_row(
        con,
        "SELECT max(d.date) FROM post_daily d JOIN posts p ON p.id = d.post_id "
        "WHERE p.deleted_at IS NULL",
    )
    return None if row is None else row[0]
