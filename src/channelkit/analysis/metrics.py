"""The metric queries, run on a DuckDB connection the caller owns (definitions: docs/metrics.md).

- readers(post) = the post's lifetime unique readers (`posts.views`, the API's `views`).
- audience(post) = `subscribers` of its channel in the `channel_daily` row of the UTC date
  of `published_at`, or the latest earlier row (an ASOF join); a post without one is left
  out of read-rate sums.
- read_rate = Σ readers ÷ Σ audience over the posts published in the period (with an
  audience).
- opens = Σ daily `views`; daily_unique_viewers = Σ daily `unique_viewers`;
  engagements = reactions + comments + shares + clicks; engagement_rate = engagements ÷
  opens.
- Daily rows are whole UTC days: a row counts in a period when its date is in
  `[Period.start_day, Period.end_day)` and is grouped by its date as a calendar date.
  Posts count by `published_at` in `[start, end)`, grouped by its local date in `tz`.
- Deleted posts (and their daily rows) and deleted channels never count.

Additive sums come from SQL per channel (and per period or side); pandas adds them up
and divides, so a total, a per-channel row and a rate always agree. Every user value
reaches DuckDB as a query parameter; the only text spliced into SQL is chosen from fixed
fragments in this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import KPI_SMALL_BASE_AUDIENCE, KPI_SMALL_BASE_COUNT
from channelkit._labels import KPI_LABELS, WEEKDAYS
from channelkit._spec import PRIORITIES
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.frames import local_midnight, to_frame
from channelkit.analysis.period import Period
from channelkit.analysis.sql import Sql, first_row, plain_frame

FREQS = {"day": "1 DAY", "week": "1 WEEK", "month": "1 MONTH"}
TOP_BY = ("readers", "read_rate", "opens", "engagement_rate")
ENGAGEMENTS = "(d.reactions + d.comments + d.shares + d.clicks)"
DAILY_SUMS = ("opens", "daily_unique_viewers", "reactions", "comments", "shares", "clicks")
POST_SUMS = ("posts_published", "readers", "rated_readers", "audience", "no_audience")
# metric, kind ("count"/"rate"), whether it needs daily rows
KPI_METRICS: tuple[tuple[str, str], ...] = (
    ("posts_published", "count"),
    ("readers", "count"),
    ("read_rate", "rate"),
    ("opens", "count"),
    ("engagements", "count"),
    ("engagement_rate", "rate"),
    ("net_subscribers", "count"),
)


def _and(*parts: Sql) -> Sql:
    kept = [p for p in parts if p.text]
    if not kept:
        return Sql("TRUE")
    out = kept[0]
    for part in kept[1:]:
        out = out + Sql(" AND ") + part
    return out


def day_range(period: Period, column: str) -> Sql:
    parts = []
    if period.start_day is not None:
        parts.append(Sql(f"{column} >= ?", (period.start_day,)))
    if period.end_day is not None:
        parts.append(Sql(f"{column} < ?", (period.end_day,)))
    return _and(*parts)


def instant_range(period: Period, column: str) -> Sql:
    parts = [Sql(f"{column} IS NOT NULL")]
    if period.start is not None:
        parts.append(Sql(f"{column} >= ?", (period.start,)))
    if period.end is not None:
        parts.append(Sql(f"{column} < ?", (period.end,)))
    return _and(*parts)


def _side(periods: Sequence[Period], column: str, *, instant: bool) -> Sql:
    """`CASE WHEN <column in periods[0]> THEN 0 WHEN ... THEN 1 END`: which period a row is in."""
    sql = Sql("CASE")
    for i, period in enumerate(periods):
        cond = instant_range(period, column) if instant else day_range(period, column)
        sql = sql + Sql(" WHEN ") + cond + Sql(f" THEN {i}")
    return sql + Sql(" END")


def _base(con: duckdb.DuckDBPyConnection, flt: PostFilter, periods: Sequence[Period]) -> Sql:
    """`WITH fdaily AS (...)`: the daily rows of the periods that pass the filters, with `side`.

    Daily rows are filtered on their own columns first. Deleted posts are removed with an
    anti-join only when there are any (reading 10M post ids costs more than the sums),
    and posts are joined only when a post-level filter (tag, priority, author) asks.
    """
    sql = (
        Sql("WITH fdaily AS (SELECT d.post_id, d.channel_id, d.date, d.views, d.unique_viewers, ")
        + Sql("d.reactions, d.comments, d.shares, d.clicks, ")
        + _side(periods, "d.date", instant=False)
        + Sql(" AS side FROM post_daily d ")
    )
    if _has_deleted_posts(con):
        sql = sql + Sql(
            "ANTI JOIN (SELECT id FROM posts WHERE deleted_at IS NOT NULL) gone "
            "ON gone.id = d.post_id "
        )
    if flt.selects_posts:
        where, params = flt.where("p")
        sql = sql + Sql(f"SEMI JOIN (SELECT p.id FROM posts p WHERE {where}) sp ", tuple(params))
        sql = sql + Sql("ON sp.id = d.post_id ")
    sql = sql + Sql("WHERE (") + _any(periods, "d.date", instant=False) + Sql(")")
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND d.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    return sql + Sql(")")


def _any(periods: Sequence[Period], column: str, *, instant: bool) -> Sql:
    out = Sql("")
    for i, period in enumerate(periods):
        cond = instant_range(period, column) if instant else day_range(period, column)
        out = out + Sql(" OR " if i else "") + Sql("(") + cond + Sql(")")
    return out


def _has_deleted_posts(con: duckdb.DuckDBPyConnection) -> bool:
    row = first_row(con, "SELECT EXISTS (SELECT 1 FROM posts WHERE deleted_at IS NOT NULL)")
    return bool(row and row[0])


def _cohort(flt: PostFilter, periods: Sequence[Period], *, baseline: bool = False) -> Sql:
    """`cohort` CTE body: posts published in the periods, with readers, audience and side.

    With `baseline`, the post-level filters (tag, priority, author) become a `selected`
    column instead of a condition, so channel medians can be taken over all the channel's
    posts in the period.
    """
    channel_only = PostFilter(channel_ids=flt.channel_ids)
    where, params = (channel_only if baseline else flt).where("p")
    selected, selected_params = flt.post_condition("p") if baseline else ("TRUE", [])
    # The posts are chosen first, then given their audience: the channel's row of the
    # publication day by a hash join, and only posts without one go through the (slower)
    # ASOF join that finds the latest earlier row.
    columns = (
        "p.id, p.channel_id, p.priority, p.tags, p.published_at, p.readers, p.selected, p.side"
    )
    return (
        Sql(
            "WITH chosen AS (SELECT p.id, p.channel_id, p.priority, p.tags, p.published_at, "
            "coalesce(p.views, 0) AS readers, timezone('UTC', p.published_at)::DATE AS pub_day, "
            f"({selected}) AS selected, ",
            tuple(selected_params),
        )
        + _side(periods, "p.published_at", instant=True)
        + Sql(f" AS side FROM posts p WHERE {where} AND (", tuple(params))
        + _any(periods, "p.published_at", instant=True)
        + Sql(
            ")), exact AS (SELECT p.*, a.subscribers AS audience FROM chosen p "
            "LEFT JOIN channel_daily a ON a.channel_id = p.channel_id AND a.date = p.pub_day) "
            f"SELECT {columns}, p.audience FROM exact p WHERE p.audience IS NOT NULL "
            f"UNION ALL SELECT {columns}, a.subscribers FROM "
            "(SELECT * FROM exact WHERE audience IS NULL) p "
            "ASOF LEFT JOIN channel_daily a ON a.channel_id = p.channel_id AND p.pub_day >= a.date"
        )
    )


def _run(con: duckdb.DuckDBPyConnection, sql: Sql, tz: str) -> pd.DataFrame:
    return to_frame(con.sql(sql.text, params=list(sql.params)).to_arrow_table(), tz)


# --- Sums per channel (and per side or per period) --------------------------------------


def channel_sums(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    periods: Sequence[Period],
    *,
    freq: str | None = None,
) -> pd.DataFrame:
    """Additive sums per (side, channel_id[, period]): DAILY_SUMS, POST_SUMS, net subscribers.

    `side` is the index of the period in `periods`; with `freq`, rows are also split by
    the day/week/month (`bucket`, a date) of the daily row or of the local publication date.
    """
    tz = periods[0].tz
    bucket_daily = f"date_trunc('{freq}', d.date)::DATE" if freq else "NULL::DATE"
    bucket_post = (
        f"date_trunc('{freq}', timezone(?, c.published_at)::DATE)::DATE" if freq else "NULL::DATE"
    )
    bucket_subs = f"date_trunc('{freq}', s.date)::DATE" if freq else "NULL::DATE"
    post_params: tuple[object, ...] = (tz,) if freq else ()
    subs_where = Sql("s.channel_id IN (SELECT id FROM channels WHERE deleted_at IS NULL) AND (")
    subs_where = subs_where + _any(periods, "s.date", instant=False) + Sql(")")
    if flt.channel_ids is not None:
        subs_where = subs_where + Sql(
            " AND s.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),)
        )
    sql = (
        _base(con, flt, periods)
        + Sql(", cohort AS (")
        + _cohort(flt, periods)
        + Sql(
            "), daily AS (SELECT d.side, d.channel_id, "
            f"{bucket_daily} AS bucket, sum(d.views)::BIGINT AS opens, "
            "sum(d.unique_viewers)::BIGINT AS daily_unique_viewers, "
            "sum(d.reactions)::BIGINT AS reactions, sum(d.comments)::BIGINT AS comments, "
            "sum(d.shares)::BIGINT AS shares, sum(d.clicks)::BIGINT AS clicks "
            "FROM fdaily d GROUP BY ALL), "
            f"pub AS (SELECT c.side, c.channel_id, {bucket_post} AS bucket, "
            "count(*)::BIGINT AS posts_published, sum(c.readers)::BIGINT AS readers, "
            "coalesce(sum(c.readers) FILTER (c.audience IS NOT NULL), 0)::BIGINT "
            "AS rated_readers, coalesce(sum(c.audience), 0)::BIGINT AS audience, "
            "count(*) FILTER (c.audience IS NULL)::BIGINT AS no_audience "
            "FROM cohort c GROUP BY ALL), ",
            post_params,
        )
        + Sql("subs AS (SELECT ")
        + _side(periods, "s.date", instant=False)
        + Sql(
            f" AS side, s.channel_id, {bucket_subs} AS bucket, "
            "sum(s.subscribers_gained - s.subscribers_lost)::BIGINT AS net_subscribers "
            "FROM channel_daily s WHERE "
        )
        + subs_where
        + Sql(
            " GROUP BY ALL) SELECT side, channel_id, bucket, "
            + ", ".join(f"coalesce({c}, 0) AS {c}" for c in (*DAILY_SUMS, *POST_SUMS))
            + ", coalesce(net_subscribers, 0) AS net_subscribers "
            "FROM daily FULL JOIN pub USING (side, channel_id, bucket) "
            "FULL JOIN subs USING (side, channel_id, bucket)"
        )
    )
    frame = plain_frame(con, sql.text, sql.params)
    for column in (*DAILY_SUMS, *POST_SUMS, "net_subscribers"):
        frame[column] = frame[column].astype("int64")
    return frame


def add_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """engagements, engagement_rate and read_rate from the additive sums, in place."""
    frame["engagements"] = frame[["reactions", "comments", "shares", "clicks"]].sum(axis=1)
    frame["engagement_rate"] = _ratio(frame["engagements"], frame["opens"])
    frame["read_rate"] = _ratio(frame["rated_readers"], frame["audience"])
    return frame


def _ratio(top: pd.Series, bottom: pd.Series) -> pd.Series:
    bottom = bottom.astype("float64")
    return (top.astype("float64") / bottom.where(bottom > 0)).astype("float64")


def channel_names(con: duckdb.DuckDBPyConnection, ids: Sequence[str] | None) -> pd.DataFrame:
    """channel_id → channel (name) for the channels that still exist (`ids` or all)."""
    sql = "SELECT id AS channel_id, name AS channel FROM channels WHERE deleted_at IS NULL"
    params: list[object] = []
    if ids is not None:
        sql += " AND id = ANY(?::VARCHAR[])"
        params.append(list(ids))
    return plain_frame(con, sql + " ORDER BY name, id", params)


# --- The metrics ----------------------------------------------------------------------------


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
        "p.status, p.published_at, p.scheduled_at, p.cover_image_url, p.views AS readers, "
        "p.created_at, p.updated_at "
        f"FROM posts p LEFT JOIN channels c ON c.id = p.channel_id WHERE {where}",
        tuple(params),
    )
    if period.start is not None or period.end is not None:
        sql = sql + Sql(" AND ") + instant_range(period, "p.published_at")
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


def grid_days(period: Period, freq: str, first: date | None, last: date | None) -> list[date]:
    """The first day of every day/week/month from the period's first to its last day.

    The first row starts at the local date of `start` (not the first whole day), so posts
    published on a first day that begins mid-day are counted in it.
    """
    lo = period.start.date() if period.start is not None else first
    hi = (period.end_day - timedelta(days=1)) if period.end_day is not None else last
    if lo is None or hi is None or hi < lo:
        return []
    lo, hi = _truncate(lo, freq), _truncate(hi, freq)
    out, day = [], lo
    while day <= hi:
        out.append(day)
        day = _step(day, freq)
    return out


def grid_size(period: Period, freq: str, first: date | None, last: date | None) -> int:
    """How many rows `grid_days` would give, without building them."""
    lo = period.start.date() if period.start is not None else first
    hi = (period.end_day - timedelta(days=1)) if period.end_day is not None else last
    if lo is None or hi is None or hi < lo:
        return 0
    days = (hi - lo).days
    return {"day": days + 1, "week": days // 7 + 2, "month": days // 28 + 2}[freq]


def _truncate(day: date, freq: str) -> date:
    if freq == "week":
        return day - timedelta(days=day.weekday())
    if freq == "month":
        return day.replace(day=1)
    return day


def _step(day: date, freq: str) -> date:
    if freq == "week":
        return day + timedelta(days=7)
    if freq == "month":
        return (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return day + timedelta(days=1)


def engagement_over_time(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    freq: str,
    *,
    by_channel: bool,
    first: date | None,
    last: date | None,
) -> pd.DataFrame:
    """One row per day/week/month (and channel), gaps filled with zeros.

    The rows run over the period, or, where it is open, from the first to the last day
    with daily rows or publications (`first`/`last`: the synced days).
    """
    sums = channel_sums(con, flt, [period], freq=freq)
    buckets = [_date(b) for b in sums["bucket"].dropna()]
    if buckets:
        first = min(first or min(buckets), min(buckets))
        last = max(last or max(buckets), max(buckets))
    days = grid_days(period, freq, first, last)
    keys = ["bucket", "channel_id"] if by_channel else ["bucket"]
    numbers = [*DAILY_SUMS, *POST_SUMS]
    totals = sums.groupby(keys, dropna=False)[numbers].sum()
    index: pd.Index
    if by_channel:
        names = channel_names(con, flt.channel_ids)
        index = pd.MultiIndex.from_product([days, list(names["channel_id"])], names=keys)
    else:
        index = pd.Index(days, name="bucket")
    totals.index = _as_dates(totals.index, keys)
    frame = totals.reindex(index, fill_value=0).reset_index()
    frame = add_rates(frame)
    frame.insert(0, "period", local_midnight(pd.Series(frame.pop("bucket")), period.tz))
    if by_channel:
        frame = frame.merge(names, on="channel_id", how="left")
    columns = [
        "period",
        *(["channel_id", "channel"] if by_channel else []),
        "posts_published",
        "readers",
        "read_rate",
        "opens",
        "daily_unique_viewers",
        "reactions",
        "comments",
        "shares",
        "clicks",
        "engagements",
        "engagement_rate",
    ]
    out = frame[columns].copy()
    for column in columns:
        if column not in ("period", "channel_id", "channel", "read_rate", "engagement_rate"):
            out[column] = out[column].astype("Int64")
    out.attrs["posts_without_audience"] = int(frame["no_audience"].sum())
    return out


def _as_dates(index: pd.Index, keys: list[str]) -> pd.Index:
    # DuckDB hands DATE buckets over as datetime.date or Timestamps depending on the path.
    if isinstance(index, pd.MultiIndex):
        levels = [
            [_date(v) for v in index.get_level_values(0)],
            list(index.get_level_values(1)),
        ]
        return pd.MultiIndex.from_arrays(levels, names=keys)
    return pd.Index([_date(v) for v in index], name=keys[0])


def _date(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, pd.Timestamp):
        return value.date()
    assert isinstance(value, date)
    return value


def kpis(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    previous: Period,
    *,
    by_channel: bool,
    complete: bool,
) -> pd.DataFrame:
    """Totals of the period next to those of the comparison period, one row per metric.

    When `complete` is False (a side runs past the synced data), every delta is NA except
    read_rate's, which compares posts with their own audience whatever the days covered.
    """
    sums = channel_sums(con, flt, [period, previous])
    numbers = [*DAILY_SUMS, *POST_SUMS, "net_subscribers"]
    if by_channel:
        names = channel_names(con, flt.channel_ids)
        channel_ids = [str(c) for c in names["channel_id"]]
        sums = sums[sums["channel_id"].isin(channel_ids)]
    else:
        channel_ids = [""]
        sums = sums.assign(channel_id="")
    totals = sums.groupby(["channel_id", "side"])[numbers].sum()
    index = pd.MultiIndex.from_product([channel_ids, [0, 1]], names=["channel_id", "side"])
    totals = add_rates(totals.reindex(index, fill_value=0))
    now = totals.xs(0, level="side").reindex(channel_ids)
    before = totals.xs(1, level="side").reindex(channel_ids)
    parts = []
    for metric, kind in KPI_METRICS:
        value = now[metric].astype("float64")
        previous_ = before[metric].astype("float64")
        if metric == "net_subscribers" and flt.selects_posts:
            # Subscribers follow channels, not tags, priorities or authors.
            value = previous_ = pd.Series(np.nan, index=now.index)
        if metric == "read_rate":
            base = before["audience"].astype("float64")
        elif metric == "engagement_rate":
            base = before["opens"].astype("float64")
        else:
            base = previous_.abs()
        small = KPI_SMALL_BASE_AUDIENCE if kind == "rate" else KPI_SMALL_BASE_COUNT
        delta = value - previous_
        if not (complete or metric == "read_rate"):
            delta = pd.Series(np.nan, index=now.index)
        # A relative change from zero or from a negative base (net subscribers can shrink)
        # has no meaning.
        pct = delta / previous_.where(previous_ > 0)
        parts.append(
            pd.DataFrame(
                {
                    "channel_id": channel_ids,
                    "metric": metric,
                    "label": KPI_LABELS[metric],
                    "kind": kind,
                    "value": value.to_numpy(),
                    "previous": previous_.to_numpy(),
                    "delta": delta.to_numpy(),
                    "delta_pct": pct.to_numpy(),
                    "small_base": (base < small).to_numpy() & base.notna().to_numpy(),
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["posts_without_audience"] = int(sums.loc[sums["side"] == 0, "no_audience"].sum())
    for column in ("value", "previous", "delta", "delta_pct"):
        # NaN (a rate without a denominator, a delta left out) becomes NA.
        frame[column] = pd.array(frame[column].to_numpy(), dtype="Float64")
    frame["small_base"] = frame["small_base"].astype("boolean")
    if not by_channel:
        return frame.drop(columns="channel_id")
    frame["order"] = frame["channel_id"].map({c: i for i, c in enumerate(channel_ids)})
    frame = frame.sort_values(["order"], kind="stable").drop(columns="order")
    frame = frame.merge(names, on="channel_id", how="left")
    rest = [c for c in frame.columns if c not in ("channel_id", "channel")]
    return frame[["channel_id", "channel", *rest]].reset_index(drop=True)


def channel_comparison(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """Per channel: posts, readers, audience, read rate, opens, engagements, subscribers."""
    sums = channel_sums(con, flt, [period]).groupby("channel_id").sum(numeric_only=True)
    names = channel_names(con, flt.channel_ids)
    sums = add_rates(sums.reindex(names["channel_id"], fill_value=0)).reset_index()
    frame = names.merge(sums, on="channel_id")
    ends = _subscribers_at(con, period)
    frame["subscribers"] = frame["channel_id"].map(ends).astype("Int64")
    columns = [
        "channel_id",
        "channel",
        "posts_published",
        "readers",
        "audience",
        "read_rate",
        "opens",
        "engagements",
        "engagement_rate",
        "net_subscribers",
        "subscribers",
    ]
    out = frame[columns].sort_values(
        ["read_rate", "channel_id"], ascending=[False, True], na_position="last"
    )
    for column in (
        "posts_published",
        "readers",
        "audience",
        "opens",
        "engagements",
        "net_subscribers",
    ):
        out[column] = out[column].astype("Int64")
    out.attrs["posts_without_audience"] = int(frame["no_audience"].sum())
    return out.reset_index(drop=True)


def _subscribers_at(con: duckdb.DuckDBPyConnection, period: Period) -> dict[str, int]:
    """Each channel's subscribers in its last channel_daily row of the period."""
    sql = (
        Sql("SELECT channel_id, arg_max(subscribers, date) FROM channel_daily s WHERE ")
        + day_range(period, "s.date")
        + Sql(" GROUP BY 1")
    )
    return {str(k): int(v) for k, v in con.execute(sql.text, list(sql.params)).fetchall()}


def top_posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by: str,
    n: int,
    min_opens: int,
) -> pd.DataFrame:
    """The `n` best posts by readers or read rate (published in the period) or by opens or
    engagement rate (daily rows in the period, whenever published)."""
    published = by in ("readers", "read_rate")
    order = {
        "readers": "readers DESC",
        "read_rate": "read_rate DESC NULLS LAST",
        "opens": "opens DESC",
        "engagement_rate": "engagement_rate DESC NULLS LAST",
    }[by]
    where, params = flt.where("p")
    if by == "read_rate":
        # A post in a channel of 8 people read by 8 has a read rate of 100%: rank only
        # posts with an audience large enough to mean something.
        candidates = Sql("SELECT id FROM cohort WHERE audience >= ?", (KPI_SMALL_BASE_AUDIENCE,))
    elif published:
        candidates = Sql("SELECT id FROM cohort")
    else:
        candidates = Sql("SELECT post_id AS id FROM per_post WHERE opens >= ?", (min_opens,))
    sql = (
        _base(con, flt, [period])
        + Sql(", cohort AS (")
        + _cohort(flt, [period])
        + Sql(
            "), per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS opens, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1), candidates AS ("
        )
        + candidates
        + Sql(
            "), ranked AS (SELECT p.id AS post_id, p.title, p.channel_id, ch.name AS channel, "
            "p.priority, coalesce(p.tags, []::VARCHAR[]) AS tags, p.author_name, p.published_at, "
            "coalesce(p.views, 0) AS readers, a.subscribers AS audience, "
            "coalesce(p.views, 0)::DOUBLE / nullif(a.subscribers, 0) AS read_rate, "
            "coalesce(pp.opens, 0) AS opens, coalesce(pp.engagements, 0) AS engagements, "
            "pp.engagements::DOUBLE / nullif(pp.opens, 0) AS engagement_rate "
            "FROM candidates k JOIN posts p ON p.id = k.id "
            "ASOF LEFT JOIN channel_daily a ON a.channel_id = p.channel_id "
            "AND timezone('UTC', p.published_at)::DATE >= a.date "
            "LEFT JOIN per_post pp ON pp.post_id = p.id "
            f"LEFT JOIN channels ch ON ch.id = p.channel_id WHERE {where}) "
            f"SELECT * FROM ranked ORDER BY {order}, post_id LIMIT ?",
            (*params, n),
        )
    )
    frame = _run(con, sql, period.tz)
    frame.insert(0, "rank", pd.Series(range(1, len(frame) + 1), index=frame.index, dtype="Int64"))
    return frame


def _rated(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> Sql:
    """`WITH ... rated AS (...)`: the period's posts with readers, audience, read rate,
    opens and engagements in the period, and their channel's median read rate.

    Channel medians are over all the channel's posts published in the period; tag,
    priority and author filters only choose the posts marked `selected`.
    """
    return (
        _base(con, flt, [period])
        + Sql(", cohort AS (")
        + _cohort(flt, [period], baseline=True)
        + Sql(
            # Only the cohort's daily rows: posts published earlier are not compared.
            "), per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS opens, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d "
            "SEMI JOIN cohort c ON c.id = d.post_id GROUP BY 1), "
            "posts_rated AS (SELECT c.*, c.readers::DOUBLE / nullif(c.audience, 0) AS read_rate, "
            "coalesce(pp.opens, 0) AS opens, coalesce(pp.engagements, 0) AS engagements "
            "FROM cohort c LEFT JOIN per_post pp ON pp.post_id = c.id), "
            "medians AS (SELECT channel_id, median(read_rate) AS channel_median "
            "FROM posts_rated GROUP BY 1), "
            "rated AS (SELECT r.*, m.channel_median, "
            "r.read_rate / nullif(m.channel_median, 0) AS relative_read_rate "
            "FROM posts_rated r JOIN medians m USING (channel_id) WHERE r.selected) "
        )
    )


# Per-group sums over `rated g`; count(g.id) keeps groups without posts at zero.
_GROUP_STATS = (
    "count(g.id) AS posts, coalesce(sum(g.readers), 0)::BIGINT AS readers, "
    "coalesce(sum(g.readers) FILTER (g.audience IS NOT NULL), 0)::BIGINT AS rated_readers, "
    "coalesce(sum(g.audience), 0)::BIGINT AS audience, "
    "median(g.relative_read_rate)::DOUBLE AS lift, coalesce(sum(g.opens), 0)::BIGINT AS opens, "
    "coalesce(sum(g.engagements), 0)::BIGINT AS engagements, "
    "median(g.opens)::DOUBLE AS median_opens"
)
GROUP_COLUMNS = (
    "posts",
    "readers",
    "read_rate",
    "lift",
    "opens",
    "engagements",
    "engagement_rate",
    "median_opens",
    "small_sample",
)


def _finish_groups(frame: pd.DataFrame, keys: list[str], small_sample_n: int) -> pd.DataFrame:
    frame["read_rate"] = _ratio(frame["rated_readers"], frame["audience"])
    frame["engagement_rate"] = _ratio(frame["engagements"], frame["opens"])
    frame["small_sample"] = (frame["posts"] < small_sample_n).astype("boolean")
    out = frame[[*keys, *GROUP_COLUMNS]].copy()
    for column in ("posts", "readers", "opens", "engagements"):
        out[column] = out[column].astype("Int64")
    return out


def tag_performance(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by_channel: bool,
    small_sample_n: int,
) -> pd.DataFrame:
    """One row per tag of the period's posts, most-used first (then by lift)."""
    keys = ["channel_id", "tag"] if by_channel else ["tag"]
    group = ", ".join(f"g.{k}" for k in keys)
    sql = _rated(con, flt, period) + Sql(
        f", tagged AS (SELECT r.*, unnest(list_distinct(r.tags)) AS tag FROM rated r) "
        f"SELECT {group}, {_GROUP_STATS} FROM tagged g"
    )
    if flt.tags is not None:
        sql = sql + Sql(" WHERE g.tag = ANY(?::VARCHAR[])", (list(flt.tags),))
    order = "g.channel_id, " if by_channel else ""
    sql = sql + Sql(f" GROUP BY {group} ORDER BY {order}posts DESC, lift DESC NULLS LAST, g.tag")
    frame = _finish_groups(_run(con, sql, period.tz), keys, small_sample_n)
    return frame.reset_index(drop=True)


def priority_impact(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by_channel: bool,
    small_sample_n: int,
) -> pd.DataFrame:
    """One row per priority (all of them, even without posts; per channel with `by_channel`)."""
    wanted = list(flt.priorities or PRIORITIES)
    keys = ["channel_id", "priority"] if by_channel else ["priority"]
    if by_channel:
        grid = Sql(
            "SELECT c.channel_id, w.priority FROM (SELECT DISTINCT channel_id FROM rated) c "
            "CROSS JOIN (SELECT unnest(?::VARCHAR[]) AS priority) w",
            (wanted,),
        )
        join = "g.channel_id = k.channel_id AND g.priority = k.priority"
    else:
        grid = Sql("SELECT unnest(?::VARCHAR[]) AS priority", (wanted,))
        join = "g.priority = k.priority"
    sql = (
        _rated(con, flt, period)
        + Sql(f"SELECT {', '.join(f'k.{c}' for c in keys)}, {_GROUP_STATS} FROM (")
        + grid
        + Sql(f") k LEFT JOIN rated g ON {join} GROUP BY ALL")
    )
    frame = _finish_groups(_run(con, sql, period.tz), keys, small_sample_n)
    frame["priority"] = frame["priority"].astype(pd.CategoricalDtype(list(PRIORITIES), True))
    return frame.sort_values(keys, ignore_index=True)


def low_reach(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, share: float
) -> pd.DataFrame:
    """Posts whose read rate is below `share` of their channel's median, worst first."""
    sql = _rated(con, flt, period) + Sql(
        "SELECT r.id AS post_id, p.title, r.channel_id, ch.name AS channel, r.published_at, "
        "r.readers, r.audience, r.read_rate, r.channel_median, r.relative_read_rate "
        "FROM rated r JOIN posts p ON p.id = r.id LEFT JOIN channels ch ON ch.id = r.channel_id "
        "WHERE r.relative_read_rate < ? ORDER BY r.relative_read_rate, r.id",
        (share,),
    )
    return _run(con, sql, period.tz)


def posts_without_audience(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> int:
    """How many posts published in the period have no channel analytics row to give an
    audience (they are left out of read rates)."""
    sql = (
        Sql("WITH cohort AS (")
        + _cohort(flt, [period])
        + Sql(") SELECT count(*) FROM cohort WHERE audience IS NULL")
    )
    row = first_row(con, sql.text, sql.params)
    return 0 if row is None else int(row[0])


def publishing_heatmap(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """168 rows (weekday × hour of `published_at` in tz): posts published and their readers."""
    sql = (
        _base(con, flt, [period])
        + Sql(", cohort AS (")
        + _cohort(flt, [period])
        + Sql(
            "), per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS opens, "
            f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1), "
            "slots AS (SELECT isodow(timezone(?, c.published_at)) - 1 AS weekday, "
            "hour(timezone(?, c.published_at)) AS hour, count(*) AS posts_published, "
            "sum(c.readers)::BIGINT AS readers, sum(coalesce(pp.opens, 0))::BIGINT AS opens, "
            "sum(coalesce(pp.engagements, 0))::BIGINT AS engagements "
            "FROM cohort c LEFT JOIN per_post pp ON pp.post_id = c.id GROUP BY 1, 2) "
            "SELECT w.weekday, h.hour, coalesce(s.posts_published, 0) AS posts_published, "
            "coalesce(s.readers, 0) AS readers, coalesce(s.opens, 0) AS opens, "
            "coalesce(s.engagements, 0) AS engagements, "
            "s.readers::DOUBLE / s.posts_published AS readers_per_post "
            "FROM range(7) w(weekday) CROSS JOIN range(24) h(hour) "
            "LEFT JOIN slots s ON s.weekday = w.weekday AND s.hour = h.hour "
            "ORDER BY w.weekday, h.hour",
            (period.tz, period.tz),
        )
    )
    frame = _run(con, sql, period.tz)
    names = frame["weekday"].map(dict(enumerate(WEEKDAYS)))
    frame.insert(1, "weekday_name", names.astype(pd.CategoricalDtype(list(WEEKDAYS), True)))
    return frame


def reach_curve(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, days: int, last_day: date
) -> tuple[pd.DataFrame, int]:
    """`day` 0..days and `share` of readers reached by then; and the number of posts.

    share(k) = Σ_posts min(readers, Σ unique_viewers over UTC dates pub..pub+k) ÷ Σ readers
    over the posts published at least `days` days before `last_day`. Computed from the
    steps of each post's capped running total (min(R, seen) - min(R, seen before the
    row)), so only the daily rows that exist are read.
    """
    where, params = flt.where("p")
    cohort = (
        Sql(
            "WITH cohort AS (SELECT p.id, coalesce(p.views, 0) AS readers, "
            "timezone('UTC', p.published_at)::DATE AS pub FROM posts p "
            f"WHERE {where} AND timezone('UTC', p.published_at)::DATE + ? <= ? AND ",
            (*params, days, last_day),
        )
        + instant_range(period, "p.published_at")
        + Sql(") ")
    )
    # The explicit date range lets DuckDB skip the daily rows of other months unread; the
    # running total before a row is `seen - uv`, so one window function is enough.
    steps = cohort + Sql(
        ", running AS (SELECT d.date - c.pub AS day, c.readers, d.unique_viewers AS uv, "
        "sum(d.unique_viewers) OVER (PARTITION BY d.post_id ORDER BY d.date "
        "ROWS UNBOUNDED PRECEDING) AS seen "
        "FROM post_daily d JOIN cohort c ON c.id = d.post_id "
        "WHERE d.date >= (SELECT min(pub) FROM cohort) "
        "AND d.date <= (SELECT max(pub) FROM cohort) + ? "
        "AND d.date >= c.pub AND d.date <= c.pub + ?) "
        "SELECT day, sum(least(readers, seen) - least(readers, seen - uv))::BIGINT "
        "FROM running GROUP BY 1",
        (days, days),
    )
    totals = cohort + Sql("SELECT count(*), coalesce(sum(readers), 0)::BIGINT FROM cohort")
    reached = dict(con.execute(steps.text, list(steps.params)).fetchall())
    row = first_row(con, totals.text, totals.params)
    assert row is not None  # an aggregate without GROUP BY always returns one row
    posts_count, readers = int(row[0]), int(row[1])
    day = np.arange(days + 1)
    running = np.cumsum([int(reached.get(int(k), 0)) for k in day])
    share = running / readers if readers else np.full(len(day), np.nan)
    frame = pd.DataFrame({"day": pd.array(day, dtype="Int64"), "share": share.astype("float64")})
    return frame, posts_count


def latest_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The last UTC date with a daily row (`Freshness.last_post_day`)."""
    row = first_row(con, "SELECT max(date) FROM post_daily")
    return None if row is None else row[0]


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
        + instant_range(period, "p.scheduled_at")
        + Sql(" ORDER BY p.scheduled_at, p.id")
    )
    return _run(con, sql, period.tz)
