"""The rows a metric reads, as parameterised SQL: daily rows of a period, its cohort of posts.

- `daily_rows`: `WITH fdaily AS (...)`, the daily rows of one or more periods that pass the
  filters.
- `daily_sums`: `WITH by_day AS (...)`, those rows summed per date and channel (from the
  sums the writer keeps where it can).
- `cohort_rows`: the posts published in the periods with their readers and audience (the
  channel's subscribers on the UTC date of publication, or the latest earlier day).

Every user value reaches DuckDB as a query parameter; the only text spliced into SQL is
chosen from fixed fragments here and in the metric modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

import duckdb
import pandas as pd

from channelkit.analysis.dtypes import to_frame
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.period import Period
from channelkit.analysis.sql import Sql, first_row
from channelkit.storage.schema import REACH_COLUMNS

ENGAGEMENTS = "(d.reactions + d.comments + d.shares + d.clicks)"
# Opens and engagements per post over the filtered daily rows (`fdaily` of `daily_rows`).
PER_POST = (
    "per_post AS (SELECT d.post_id, sum(d.views)::BIGINT AS opens, "
    f"sum({ENGAGEMENTS})::BIGINT AS engagements FROM fdaily d GROUP BY 1)"
)


def all_of(*parts: Sql) -> Sql:
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
    return all_of(*parts)


def instant_range(period: Period, column: str) -> Sql:
    parts = [Sql(f"{column} IS NOT NULL")]
    if period.start is not None:
        parts.append(Sql(f"{column} >= ?", (period.start,)))
    if period.end is not None:
        parts.append(Sql(f"{column} < ?", (period.end,)))
    return all_of(*parts)


def side_of(periods: Sequence[Period], column: str, *, instant: bool) -> Sql:
    """`CASE WHEN <column in periods[0]> THEN 0 WHEN ... THEN 1 END`: which period a row is in."""
    sql = Sql("CASE")
    for i, period in enumerate(periods):
        cond = instant_range(period, column) if instant else day_range(period, column)
        sql = sql + Sql(" WHEN ") + cond + Sql(f" THEN {i}")
    return sql + Sql(" END")


def daily_rows(con: duckdb.DuckDBPyConnection, flt: PostFilter, periods: Sequence[Period]) -> Sql:
    """`WITH fdaily AS (...)`: the daily rows of the periods that pass the filters.

    Daily rows are filtered on their own columns first. Deleted posts are removed with an
    anti-join only when there are any (reading 10M post ids costs more than the sums),
    and posts are joined only when a post-level filter (tag, priority, author) asks.
    """
    # No side per row: its readers sum them per day first, then choose each day's side.
    sql = Sql(
        "WITH fdaily AS (SELECT d.post_id, d.channel_id, d.date, d.views, d.unique_viewers, "
        "d.reactions, d.comments, d.shares, d.clicks FROM post_daily d "
    )
    if has_deleted_posts(con):
        sql = sql + Sql(
            "ANTI JOIN (SELECT id FROM posts WHERE deleted_at IS NOT NULL) gone "
            "ON gone.id = d.post_id "
        )
    if flt.selects_posts:
        where, params = flt.where("p")
        sql = sql + Sql(f"SEMI JOIN (SELECT p.id FROM posts p WHERE {where}) sp ", tuple(params))
        sql = sql + Sql("ON sp.id = d.post_id ")
    sql = sql + Sql("WHERE (") + any_of(periods, "d.date", instant=False) + Sql(")")
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND d.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    return sql + Sql(")")


def daily_sums(con: duckdb.DuckDBPyConnection, flt: PostFilter, periods: Sequence[Period]) -> Sql:
    """`WITH by_day AS (...)`: the daily rows of the periods that pass the filters, summed
    per date and channel (`opens`, `daily_unique_viewers`, reactions, comments, shares,
    clicks).

    From the sums the writer keeps (`daily_totals`, storage/totals.py) unless a post-level
    filter (tag, priority, author) picks single posts or the file keeps none (the lake);
    then from the rows themselves. Both give the same numbers.
    """
    sums = (
        "sum(d.views)::BIGINT AS opens, sum(d.unique_viewers)::BIGINT AS daily_unique_viewers, "
        "sum(d.reactions)::BIGINT AS reactions, sum(d.comments)::BIGINT AS comments, "
        "sum(d.shares)::BIGINT AS shares, sum(d.clicks)::BIGINT AS clicks"
    )
    if flt.selects_posts or not has_daily_totals(con):
        return daily_rows(con, flt, periods) + Sql(
            f", by_day AS (SELECT d.date, d.channel_id, {sums} FROM fdaily d GROUP BY ALL)"
        )
    sql = (
        Sql(f"WITH by_day AS (SELECT d.date, d.channel_id, {sums} FROM daily_totals d WHERE (")
        + any_of(periods, "d.date", instant=False)
        + Sql(")")
    )
    if flt.channel_ids is not None:
        sql = sql + Sql(" AND d.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),))
    return sql + Sql(" GROUP BY ALL)")


def any_of(periods: Sequence[Period], column: str, *, instant: bool) -> Sql:
    """`column` in any of the periods; periods that touch (a period and the ones before
    it, for the usual range) are tested as one range, so each row meets one test."""
    out = Sql("")
    for i, period in enumerate(_joined(periods)):
        cond = instant_range(period, column) if instant else day_range(period, column)
        out = out + Sql(" OR " if i else "") + Sql("(") + cond + Sql(")")
    return out


def _joined(periods: Sequence[Period]) -> list[Period]:
    """The periods with those that touch or overlap merged into one (the same rows: a
    row in the union is in one of them); with an open end, the periods as they are."""
    bounded = [(p.start, p.end, p) for p in periods if p.start is not None and p.end is not None]
    if len(bounded) < len(periods):
        return list(periods)
    out: list[Period] = []
    for start, end, period in sorted(bounded, key=lambda b: b[0]):
        last = out[-1] if out else None
        if last is not None and last.end is not None and start <= last.end:
            if end > last.end:
                out[-1] = Period(tz=last.tz, start=last.start, end=end)
        else:
            out.append(period)
    return out


def has_deleted_posts(con: duckdb.DuckDBPyConnection) -> bool:
    row = first_row(con, "SELECT EXISTS (SELECT 1 FROM posts WHERE deleted_at IS NOT NULL)")
    return bool(row and row[0])


def has_daily_totals(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the file keeps the writer's `daily_totals` (storage/totals.py): a warehouse
    file does, the lake does not."""
    return _has(con, "SELECT 1 FROM daily_totals LIMIT 0")


def has_stored_reach(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `posts` has the reach the writer keeps (`storage.reach`): a warehouse file
    does, the lake (which does not copy it) does not."""
    return _has(con, f"SELECT {', '.join(REACH_COLUMNS)} FROM posts LIMIT 0")


def _has(con: duckdb.DuckDBPyConnection, probe: str) -> bool:
    try:
        con.execute(probe)
    except (duckdb.BinderException, duckdb.CatalogException):
        return False
    return True


class Only(NamedTuple):
    """Which posts `cohort_rows` keeps: `join` (a join onto the posts `p`) and `condition`
    (on `p` and what `join` brings), applied in the posts' own scan (an `IN` of a query of
    ids scanned the posts again: the outlook's query took 51 ms of CPU at 1M posts, 30 so).

    joined = Sql("JOIN firsts s ON s.channel_id = p.channel_id")
    only = Only(joined, Sql("p.published_at >= s.since"))
    cohort = cohort_rows(flt, [period], only=only)
    """

    join: Sql
    condition: Sql


def cohort_rows(
    flt: PostFilter,
    periods: Sequence[Period],
    *,
    baseline: bool = False,
    reach: bool = False,
    only: Only | None = None,
    titled: bool = False,
) -> Sql:
    """`cohort` CTE body: posts published in the periods, with readers, audience and side.

    With `baseline`, the post-level filters (tag, priority, author) become a `selected`
    column instead of a condition, so channel medians can be taken over all the channel's
    posts in the period. With `reach`, each post also has its stored reach (REACH_COLUMNS);
    with `titled`, its title. With `only`, only the posts it keeps, given their audience
    alone.
    """
    channel_only = PostFilter(channel_ids=flt.channel_ids)
    where, params = (channel_only if baseline else flt).where("p")
    selected, selected_params = flt.post_condition("p") if baseline else ("TRUE", [])
    # The posts are chosen first, then given their audience: the channel's row of the
    # publication day by a hash join, and only posts without one go through the (slower)
    # ASOF join that finds the latest earlier row.
    extra = (*(REACH_COLUMNS if reach else ()), *(("title",) if titled else ()))
    stored = "".join(f", p.{c}" for c in extra)
    columns = (
        "p.id, p.channel_id, p.priority, p.tags, p.published_at, p.readers, p.selected, "
        f"p.side{stored}"
    )
    return (
        Sql(
            "WITH chosen AS (SELECT p.id, p.channel_id, p.priority, p.tags, "
            f"p.published_at{stored}, "
            "coalesce(p.views, 0) AS readers, "
            # The UTC date from the instant's microseconds: the same day as
            # timezone('UTC', ...)::DATE, without a time zone conversion (10x cheaper).
            "make_timestamp(epoch_us(p.published_at))::DATE AS pub_day, "
            f"({selected}) AS selected, ",
            tuple(selected_params),
        )
        + side_of(periods, "p.published_at", instant=True)
        + Sql(" AS side FROM posts p ")
        + (Sql("") if only is None else only.join)
        + Sql(f" WHERE {where} AND (", tuple(params))
        + any_of(periods, "p.published_at", instant=True)
        + (Sql("") if only is None else Sql(") AND (") + only.condition)
        + Sql(
            ")), exact AS (SELECT p.*, a.subscribers AS audience FROM chosen p "
            "LEFT JOIN channel_daily a ON a.channel_id = p.channel_id AND a.date = p.pub_day) "
            f"SELECT {columns}, p.audience FROM exact p WHERE p.audience IS NOT NULL "
            f"UNION ALL SELECT {columns}, a.subscribers FROM "
            "(SELECT * FROM exact WHERE audience IS NULL) p "
            "ASOF LEFT JOIN channel_daily a ON a.channel_id = p.channel_id AND p.pub_day >= a.date"
        )
    )


def query_frame(con: duckdb.DuckDBPyConnection, sql: Sql, tz: ZoneInfo) -> pd.DataFrame:
    return to_frame(con.sql(sql.text, params=list(sql.params)).to_arrow_table(), tz)


# --- Sums per channel (and per side or per period) --------------------------------------


def aged_rows(
    periods: Sequence[Period],
    cutoffs: Sequence[date | None],
    *,
    stored: bool,
    gaps: Sequence[tuple[date, date]] = (),
) -> Sql:
    """`, aged AS (...)`: the cohort with each post's readers as they stood at its side's
    cutoff (the reach curve's rule), or its lifetime readers where the side has none, or
    where a gap in the synced days (`gaps`: first and last day of each) falls between its
    publication and the cutoff: its unique viewers of those days are unknown, and its
    lifetime readers are nearer the truth than a count that misses them.

    A post's unique viewers are counted over the days from `first` (the day before the
    earliest such period) through the cutoff: from its stored running sums where the
    warehouse keeps them (`stored`, the cohort's REACH_COLUMNS: the sum through the cutoff
    less the sum before `first`), else by summing its daily rows (the lake keeps no
    stored reach). Both give the same numbers.
    """
    sides = [(i, cut) for i, cut in enumerate(cutoffs) if cut is not None]
    if not sides:
        return Sql(", aged AS (SELECT * FROM cohort)")
    starts = [periods[i].start_day for i, _ in sides]
    # A side without a start counts all its posts' daily rows; two days above date.min
    # keep `first` and the day before it dates (the running sum is 0 there).
    earliest = date.min + timedelta(days=2)
    first = min(earliest if s is None else s for s in starts) - timedelta(days=1)
    last = max(cut for _, cut in sides)
    cut = Sql(
        ", cut AS (SELECT unnest(?::BIGINT[]) AS side, unnest(?::DATE[]) AS cutoff), ",
        ([i for i, _ in sides], [cut for _, cut in sides]),
    )
    lifetime = Sql("WHEN cut.cutoff IS NULL")
    for gap_first, gap_last in gaps:
        lifetime = lifetime + Sql(
            " OR (make_timestamp(epoch_us(c.published_at))::DATE <= ? AND ? <= cut.cutoff)",
            (gap_last, gap_first),
        )
    if stored:
        seen = _running("cut.cutoff") + Sql(" - ") + _running("?", first - timedelta(days=1))
        return (
            cut
            + Sql(f"aged AS (SELECT c.* EXCLUDE ({', '.join(REACH_COLUMNS)}) REPLACE (CASE ")
            + lifetime
            + Sql(" THEN c.readers ELSE least(c.readers, coalesce(")
            + seen
            + Sql(", 0)) END AS readers) FROM cohort c LEFT JOIN cut ON cut.side = c.side)")
        )
    return (
        cut
        + Sql(
            "seen AS (SELECT c.id, sum(d.unique_viewers)::BIGINT AS uv FROM cohort c "
            "JOIN cut ON cut.side = c.side JOIN post_daily d ON d.post_id = c.id "
            "AND d.date <= cut.cutoff WHERE d.date >= ? AND d.date <= ? GROUP BY c.id), "
            "aged AS (SELECT c.* REPLACE (CASE ",
            (first, last),
        )
        + lifetime
        + Sql(
            " THEN c.readers ELSE least(c.readers, coalesce(s.uv, 0)) END AS readers) "
            "FROM cohort c LEFT JOIN cut ON cut.side = c.side LEFT JOIN seen s ON s.id = c.id)"
        )
    )


def _running(day: str, *params: object) -> Sql:
    """A cohort post's stored unique viewers summed through `day` (an SQL expression,
    given `params` for each of its two uses): 0 before its first daily row, its last
    day's sum after its last row, NULL without daily rows (storage/reach.py)."""
    return Sql(
        f"CASE WHEN {day} < c.reach_from THEN 0 ELSE substring(c.reach_cumulative, "
        f"c.reach_digits * least({day} - c.reach_from, "
        "length(c.reach_cumulative) // c.reach_digits - 1) + 1, c.reach_digits)::BIGINT END",
        (*params, *params),
    )
