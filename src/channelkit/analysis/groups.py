"""Groups of posts compared fairly: tags and priorities by lift, posts with low reach.

Each post is measured against its own channel (its read rate ÷ the channel's median read
rate in the period), so big channels do not decide which tag or priority looks best.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import (
    FAIR_MIN_BASE,
    PUBLISH_HOLD_TAG_PREFIX,
    PUBLISH_ORIGIN_TAG_PREFIX,
    SETTLE_DAYS,
)
from channelkit._spec import PRIORITIES
from channelkit.analysis import fair
from channelkit.analysis.dtypes import MetricFrame, rate
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.reach import ReachTimes
from channelkit.analysis.rows import (
    PER_POST,
    aged_rows,
    cohort_rows,
    daily_rows,
    has_stored_reach,
    query_frame,
)
from channelkit.analysis.sql import Sql, first_row


def _rated(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    settled: ReachTimes | None = None,
    gaps: Sequence[tuple[date, date]] = (),
) -> Sql:
    """`WITH ... rated AS (...)`: the period's posts with readers, audience, read rate,
    opens and engagements in the period, and their channel's median read rate.

    Channel medians are over all the channel's posts published in the period; tag,
    priority and author filters only choose the posts marked `selected`. With `settled`,
    only posts that have had their channel's reach time are rated and make the medians:
    younger ones are still collecting readers; and the others are compared at the same
    age (`judged_rate`: a post of 5 days against its channel's posts at 5 days).
    """
    reach_time, join, condition = Sql(""), "", Sql("TRUE")
    judged = Sql("c.readers::DOUBLE / nullif(c.audience, 0)")
    if settled is not None:
        reach_time = settled.table() + Sql(", ")
        join = "LEFT JOIN reach_time rt ON rt.channel_id = c.channel_id "
        condition = settled.settled("c.published_at", "rt")
        judged = settled.at_lifetime(judged.text, "c.published_at", "rt")
    # Judged at one cutoff with every same-age comparison: readers through the last
    # complete synced day (the reach times' day), never readers gathered after it.
    through = None if settled is None else settled.last_day
    stored = through is not None and has_stored_reach(con)
    return (
        daily_rows(con, flt, [period])
        + Sql(", cohort AS (")
        + cohort_rows(flt, [period], baseline=True, reach=stored)
        + Sql(")")
        + aged_rows([period], [through], stored=stored, gaps=gaps)
        # Posts published earlier are not compared: the LEFT JOIN from the cohort keeps
        # only its posts (summing every post's rows first is cheaper than a semi-join).
        + Sql(f", {PER_POST}, ")
        + reach_time
        + Sql(
            "posts_rated AS (SELECT c.*, c.readers::DOUBLE / nullif(c.audience, 0) AS read_rate, "
        )
        + judged
        + Sql(
            " AS judged_rate, "
            "coalesce(pp.opens, 0) AS opens, coalesce(pp.engagements, 0) AS engagements "
            f"FROM aged c LEFT JOIN per_post pp ON pp.post_id = c.id {join}WHERE "
        )
        + condition
        + Sql(
            "), medians AS (SELECT channel_id, median(judged_rate) AS channel_median, "
            "sum(judged_rate * audience) / nullif(sum(audience), 0) AS channel_rate "
            "FROM posts_rated GROUP BY 1), "
            "rated AS (SELECT r.*, m.channel_median, m.channel_rate, "
            "r.judged_rate / nullif(m.channel_median, 0) AS relative_read_rate "
            "FROM posts_rated r JOIN medians m USING (channel_id) WHERE r.selected) "
        )
    )


# Per-group sums over `rated g`; count(g.id) keeps groups without posts at zero. The posts
# without an audience (for the warning) come along, saving a second pass over the cohort.
_GROUP_STATS = (
    "(SELECT count(*) FROM cohort WHERE selected AND audience IS NULL) AS no_audience, "
    "count(g.id) AS posts, coalesce(sum(g.readers), 0)::BIGINT AS readers, "
    "coalesce(sum(g.readers) FILTER (g.audience IS NOT NULL), 0)::BIGINT AS rated_readers, "
    "coalesce(sum(g.audience), 0)::BIGINT AS audience, "
    "median(g.relative_read_rate)::DOUBLE AS lift, coalesce(sum(g.opens), 0)::BIGINT AS opens, "
    "coalesce(sum(g.engagements), 0)::BIGINT AS engagements, "
    "median(g.opens)::DOUBLE AS median_opens, "
    "coalesce(sum(g.audience * g.channel_rate), 0)::DOUBLE AS expected_readers"
)
GROUP_COLUMNS = (
    "posts",
    "readers",
    "read_rate",
    "read_rate_low",
    "read_rate_high",
    "lift",
    "vs_expected",
    "vs_expected_low",
    "vs_expected_high",
    "adjusted_vs_expected",
    "too_few_to_rank",
    "opens",
    "engagements",
    "engagement_rate",
    "median_opens",
    "small_sample",
)


def _finish_groups(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    frame: pd.DataFrame,
    keys: list[str],
    small_sample_n: int,
) -> MetricFrame:
    """The group columns, and how many of the selected posts have no audience."""
    missing = (
        int(frame["no_audience"].iloc[0])
        if len(frame)
        else posts_without_audience(con, flt, period)
    )
    frame["read_rate"] = rate(frame["rated_readers"], frame["audience"])
    frame["engagement_rate"] = rate(frame["engagements"], frame["opens"])
    frame["small_sample"] = (frame["posts"] < small_sample_n).astype("boolean")
    _fair_lift(frame)
    frame["too_few_to_rank"] = (frame["small_sample"] | (frame["audience"] < FAIR_MIN_BASE)).astype(
        "boolean"
    )
    out = frame[[*keys, *GROUP_COLUMNS]].copy()
    for column in ("posts", "readers", "opens", "engagements"):
        out[column] = out[column].astype("Int64")
    return MetricFrame(out, missing)


def _fair_lift(frame: pd.DataFrame) -> None:
    """Each group's read-rate interval, and its readers ÷ expected readers (each post's
    audience × its channel's read rate), in place: `vs_expected`, with the Wilson interval
    of the read rate divided by the expected rate (`vs_expected_low`, `vs_expected_high`)
    and the read rate shrunk toward the expected one (`adjusted_vs_expected`, the prior
    fitted over the groups)."""
    x = frame["rated_readers"].to_numpy("float64", na_value=0.0)
    n = frame["audience"].to_numpy("float64", na_value=0.0)
    x = np.minimum(x, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = frame["expected_readers"].to_numpy("float64", na_value=np.nan) / n
    low, high = fair.rate_interval(x, n)
    frame["read_rate_low"], frame["read_rate_high"] = low, high
    usable = (n >= FAIR_MIN_BASE) & (expected > 0)
    strength = fair.prior_strength(x[usable], n[usable], expected[usable])
    known = (n > 0) & (expected > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["vs_expected"] = np.where(known, x / n / expected, np.nan)
        frame["vs_expected_low"] = np.where(known, low / expected, np.nan)
        frame["vs_expected_high"] = np.where(known, high / expected, np.nan)
        adjusted = fair.shrink(x, n, expected, strength) / expected
    frame["adjusted_vs_expected"] = np.where(known, adjusted, np.nan)
    frame.attrs.update(prior_strength=strength, basis=fair.GROUP_BASIS)


def tag_performance(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by_channel: bool,
    small_sample_n: int,
) -> MetricFrame:
    """One row per tag of the period's posts, most-used first (then by lift)."""
    keys = ["channel_id", "tag"] if by_channel else ["tag"]
    group = ", ".join(f"g.{k}" for k in keys)
    sql = _rated(con, flt, period) + Sql(
        # list_distinct (which also drops NULLs) is the costly part of unnesting; no tag or
        # one that is not NULL needs none.
        ", tagged AS (SELECT r.*, unnest(CASE WHEN len(r.tags) = 0 OR (len(r.tags) = 1 "
        "AND r.tags[1] IS NOT NULL) THEN r.tags ELSE list_distinct(r.tags) END) AS tag "
        "FROM rated r) "
        f"SELECT {group}, {_GROUP_STATS} FROM tagged g"
        # channelkit's own marks (a post's origin, a hold) are no topic: one per post
        " WHERE NOT starts_with(g.tag, ?) AND NOT starts_with(g.tag, ?)",
        (PUBLISH_ORIGIN_TAG_PREFIX, PUBLISH_HOLD_TAG_PREFIX),
    )
    if flt.tags is not None:
        sql = sql + Sql(" AND g.tag = ANY(?::VARCHAR[])", (list(flt.tags),))
    order = "g.channel_id, " if by_channel else ""
    sql = sql + Sql(f" GROUP BY {group} ORDER BY {order}posts DESC, lift DESC NULLS LAST, g.tag")
    result = _finish_groups(
        con, flt, period, query_frame(con, sql, period.tz), keys, small_sample_n
    )
    result.frame.attrs["basis"] = f"most-used first; {fair.GROUP_BASIS}"
    return result


def priority_impact(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by_channel: bool,
    small_sample_n: int,
) -> MetricFrame:
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
    result = _finish_groups(
        con, flt, period, query_frame(con, sql, period.tz), keys, small_sample_n
    )
    frame = result.frame
    frame["priority"] = frame["priority"].astype(pd.CategoricalDtype(list(PRIORITIES), True))
    result.frame = frame.sort_values(keys, ignore_index=True)
    return result


AUTHOR_BASIS = (
    "ranked by readers vs expected (what their posts' channels' read rates expect), "
    f"adjusted for audience size; {fair.INTERVALS}"
)


def author_comparison(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, *, small_sample_n: int
) -> MetricFrame:
    """One row per author of the period's posts, ranked fairly: by `adjusted_vs_expected`
    (their readers against what their posts' channels' read rates expect, shrunk toward
    it; fair.in_rank_order), so neither a big channel nor a lucky small post decides;
    authors with fewer than `small_sample_n` posts or an audience under FAIR_MIN_BASE are
    too few to rank and come last."""
    sql = _rated(con, flt, period) + Sql(
        ", authored AS (SELECT r.*, coalesce(p.author_id, '') AS author_id, "
        "p.author_name FROM rated r JOIN posts p ON p.id = r.id) "
        "SELECT g.author_id, any_value(g.author_name) AS author, "
        f"{_GROUP_STATS} FROM authored g GROUP BY g.author_id"
    )
    result = _finish_groups(
        con, flt, period, query_frame(con, sql, period.tz), ["author_id", "author"], small_sample_n
    )
    frame = fair.in_rank_order(result.frame, "adjusted_vs_expected", "posts", tiebreak="author_id")
    result.frame = frame[["rank", *(c for c in frame.columns if c != "rank")]]
    result.frame.attrs["basis"] = AUTHOR_BASIS
    return result


def low_reach(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    share: float,
    settled: ReachTimes | None = None,
    gaps: Sequence[tuple[date, date]] = (),
) -> pd.DataFrame:
    """Posts whose read rate is below `share` of their channel's median, worst first
    (with `settled`, among the posts that have had their channel's reach time; see
    `_rated`)."""
    sql = _rated(con, flt, period, settled=settled, gaps=gaps) + Sql(
        "SELECT r.id AS post_id, p.title, r.channel_id, ch.name AS channel, r.published_at, "
        "r.readers, r.audience, r.read_rate, r.channel_median, r.relative_read_rate "
        "FROM rated r JOIN posts p ON p.id = r.id LEFT JOIN channels ch ON ch.id = r.channel_id "
        "WHERE r.relative_read_rate < ? ORDER BY r.relative_read_rate, r.id",
        (share,),
    )
    frame = fair.with_interval(query_frame(con, sql, period.tz), "read_rate", "readers", "audience")
    frame.attrs["basis"] = (
        f"worst first by read rate against its channel's median (below {share:.0%} of it); "
        f"{fair.INTERVALS}"
    )
    return frame


def still_collecting(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period, settled: ReachTimes
) -> pd.DataFrame:
    """The posts published in the period that are younger than their channel's reach time,
    newest first: post_id, title, channel_id, channel, published_at, readers (so far),
    audience, read_rate (so far), age_days and reach_days (their channel's reach time)."""
    sql = (
        Sql("WITH cohort AS (")
        + cohort_rows(flt, [period])
        + Sql("), ")
        + settled.table()
        + Sql(
            " SELECT c.id AS post_id, p.title, c.channel_id, ch.name AS channel, "
            "c.published_at, c.readers, c.audience, "
            "c.readers::DOUBLE / nullif(c.audience, 0) AS read_rate, "
            "(?::DATE - timezone('UTC', c.published_at)::DATE)::BIGINT AS age_days, "
            "coalesce(?::DATE - rt.settled_by, ?)::BIGINT AS reach_days "
            "FROM cohort c JOIN posts p ON p.id = c.id "
            "LEFT JOIN channels ch ON ch.id = c.channel_id "
            "LEFT JOIN reach_time rt ON rt.channel_id = c.channel_id WHERE NOT (",
            (settled.last_day, settled.last_day, SETTLE_DAYS),
        )
        + settled.settled("c.published_at", "rt")
        + Sql(") ORDER BY c.published_at DESC, c.id")
    )
    return query_frame(con, sql, period.tz)


def posts_without_audience(con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period) -> int:
    """How many posts published in the period have no channel analytics row to give an
    audience (they are left out of read rates)."""
    sql = (
        Sql("WITH cohort AS (")
        + cohort_rows(flt, [period])
        + Sql(") SELECT count(*) FROM cohort WHERE audience IS NULL")
    )
    row = first_row(con, sql.text, sql.params)
    return 0 if row is None else int(row[0])
