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
and divides, so a total, a per-channel row and a rate always agree. The SQL building
blocks are in `rows`; tag/priority comparisons in `groups`; the reach curve in `reach`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import duckdb
import numpy as np
import pandas as pd

from channelkit._constants import (
    FAIR_MAX_STRENGTH,
    FAIR_MIN_BASE,
    KPI_SMALL_BASE_AUDIENCE,
    KPI_SMALL_BASE_COUNT,
    KPI_USUAL_MIN_PERIODS,
    KPI_USUAL_SD,
)
from channelkit._labels import KPI_LABELS, WEEKDAYS
from channelkit.analysis import fair
from channelkit.analysis.coverage import DATA_KINDS, Coverage, DataKind, period_coverage
from channelkit.analysis.dtypes import MetricFrame, as_date, divide, local_midnight, rate
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.grid import bucket_end, grid_days
from channelkit.analysis.period import Period, same_age_cutoff
from channelkit.analysis.reach import ReachTimes
from channelkit.analysis.rows import (
    PER_POST,
    aged_rows,
    any_of,
    cohort_rows,
    daily_rows,
    daily_sums,
    day_range,
    has_stored_reach,
    instant_range,
    query_frame,
    side_of,
)
from channelkit.analysis.sql import Sql, plain_frame
from channelkit.display.columns import declare
from channelkit.display.kinds import CHANGE, COUNT, DAYS, HOUR, NUMBER, RATE, Kind
from channelkit.storage.schema import CONTRACT_COLUMNS, unknown_columns

FREQS = {"day": "1 DAY", "week": "1 WEEK", "month": "1 MONTH"}
TOP_BY = ("readers", "read_rate", "opens", "engagement_rate")
DAILY_SUMS = ("opens", "daily_unique_viewers", "reactions", "comments", "shares", "clicks")
POST_SUMS = ("posts_published", "readers", "rated_readers", "audience", "no_audience")
# each KPI and its kind: a row's `value`, `previous`, `delta` and usual range are of it
KPI_METRICS: tuple[tuple[str, Kind], ...] = (
    ("posts_published", COUNT),
    ("readers", COUNT),
    ("read_rate", RATE),
    ("opens", COUNT),
    ("engagements", COUNT),
    ("engagement_rate", RATE),
    ("net_subscribers", COUNT),
)
# The columns of one kind whatever the row; the others are of each row's `kind`.
KPIS = declare(
    "kpis",
    dict(delta_pct=CHANGE, usual_periods=COUNT),
    by_row=("value", "previous", "delta", "usual_low", "usual_high"),
)


def channel_sums(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    periods: Sequence[Period],
    *,
    freq: str | None = None,
    cutoffs: Sequence[date | None] = (),
    gaps: Sequence[tuple[date, date]] = (),
) -> pd.DataFrame:
    """Additive sums per (side, channel_id[, period]): DAILY_SUMS, POST_SUMS, net subscribers.

    `side` is the index of the period in `periods`; with `freq`, rows are also split by
    the day/week/month (`bucket`, a date) of the daily row or of the local publication date.
    `cutoffs[side]`, when given, counts that side's posts' readers as they stood at the end
    of that UTC day: min(readers, daily unique viewers from publication through it), or
    its lifetime readers where one of the `gaps` in the synced days hides some of them.
    """
    tz = periods[0].tz.key  # the name, as the SQL's timezone() takes it
    bucket_daily = f"date_trunc('{freq}', d.date)::DATE" if freq else "NULL::DATE"
    bucket_post = (
        f"date_trunc('{freq}', timezone(?, c.published_at)::DATE)::DATE" if freq else "NULL::DATE"
    )
    bucket_subs = f"date_trunc('{freq}', s.date)::DATE" if freq else "NULL::DATE"
    post_params: tuple[object, ...] = (tz,) if freq else ()
    subs_where = Sql("s.channel_id IN (SELECT id FROM channels WHERE deleted_at IS NULL) AND (")
    subs_where = subs_where + any_of(periods, "s.date", instant=False) + Sql(")")
    if flt.channel_ids is not None:
        subs_where = subs_where + Sql(
            " AND s.channel_id = ANY(?::VARCHAR[])", (list(flt.channel_ids),)
        )
    stored = any(cut is not None for cut in cutoffs) and has_stored_reach(con)
    sql = (
        # Daily rows are summed per day and channel first; each day's side is then
        # chosen on those few rows (with the usual range there are ten periods to test).
        daily_sums(con, flt, periods)
        + Sql(", cohort AS (")
        + cohort_rows(flt, periods, reach=stored)
        + Sql(")")
        + aged_rows(periods, cutoffs, stored=stored, gaps=gaps)
        + Sql(", daily AS (SELECT ")
        + side_of(periods, "d.date", instant=False)
        + Sql(
            f" AS side, d.channel_id, {bucket_daily} AS bucket, "
            + ", ".join(f"sum(d.{c})::BIGINT AS {c}" for c in DAILY_SUMS)
            + " FROM by_day d GROUP BY ALL), "
            f"pub AS (SELECT c.side, c.channel_id, {bucket_post} AS bucket, "
            "count(*)::BIGINT AS posts_published, sum(c.readers)::BIGINT AS readers, "
            "coalesce(sum(c.readers) FILTER (c.audience IS NOT NULL), 0)::BIGINT "
            "AS rated_readers, coalesce(sum(c.audience), 0)::BIGINT AS audience, "
            "count(*) FILTER (c.audience IS NULL)::BIGINT AS no_audience "
            "FROM aged c GROUP BY ALL), ",
            post_params,
        )
        + Sql("subs AS (SELECT ")
        + side_of(periods, "s.date", instant=False)
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
    frame["engagement_rate"] = rate(frame["engagements"], frame["opens"])
    frame["read_rate"] = rate(frame["rated_readers"], frame["audience"])
    return frame


def channel_names(con: duckdb.DuckDBPyConnection, ids: Sequence[str] | None) -> pd.DataFrame:
    """channel_id → channel (name) for the channels that still exist (`ids` or all)."""
    sql = "SELECT id AS channel_id, name AS channel FROM channels WHERE deleted_at IS NULL"
    params: list[object] = []
    if ids is not None:
        sql += " AND id = ANY(?::VARCHAR[])"
        params.append(list(ids))
    return plain_frame(con, sql + " ORDER BY name, id", params)


# --- The metrics ----------------------------------------------------------------------------


# `wh.posts()` and `wh.channels()` show every field of the contract, in its order (a new
# field needs no edit here); a few columns read differently, and posts name their channel.
_POST_SELECTS = {
    "channel_id": "p.channel_id, c.name AS channel_name",
    "tags": "coalesce(p.tags, []::VARCHAR[]) AS tags",
    "views": "p.views AS readers",
}
_POST_COLUMNS = ", ".join(
    _POST_SELECTS.get(column, f"p.{column}") for column, _ in CONTRACT_COLUMNS["posts"]
)
_CHANNEL_COLUMNS = ", ".join(column for column, _ in CONTRACT_COLUMNS["channels"])


def _unknown(con: duckdb.DuckDBPyConnection, table: str, alias: str) -> str:
    """The select list's tail of the fields the contract does not name, kept by the sync."""
    described = [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
    return "".join(f", {alias}.{column}" for column in unknown_columns(table, described))


POSTS = declare("posts", dict(readers=COUNT))
CHANNELS = declare("channels", dict(subscriber_count=COUNT, post_count=COUNT))


def posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    statuses: tuple[str, ...] | None,
) -> pd.DataFrame:
    """One row per post, oldest publication first (unpublished posts last)."""
    where, params = flt.where("p")
    sql = Sql(
        f"SELECT {_POST_COLUMNS}{_unknown(con, 'posts', 'p')} "
        f"FROM posts p LEFT JOIN channels c ON c.id = p.channel_id WHERE {where}",
        tuple(params),
    )
    if period.start is not None or period.end is not None:
        sql = sql + Sql(" AND ") + instant_range(period, "p.published_at")
    if statuses is not None:
        sql = sql + Sql(" AND p.status = ANY(?::VARCHAR[])", (list(statuses),))
    sql = sql + Sql(" ORDER BY p.published_at NULLS LAST, p.id")
    return query_frame(con, sql, period.tz)


def channels(con: duckdb.DuckDBPyConnection, tz: ZoneInfo) -> pd.DataFrame:
    """One row per channel that still exists, by name."""
    sql = Sql(
        f"SELECT {_CHANNEL_COLUMNS}{_unknown(con, 'channels', 'channels')} FROM channels "
        "WHERE deleted_at IS NULL ORDER BY name, id"
    )
    return query_frame(con, sql, tz)


# The sums of each period's posts and daily rows, their rates, and the days it covers.
ENGAGEMENT = declare(
    "engagement_over_time",
    dict(
        **dict.fromkeys(
            ("posts_published", "readers", "audience", *DAILY_SUMS, "engagements"), COUNT
        ),
        read_rate=RATE,
        engagement_rate=RATE,
        days=DAYS,
    ),
)


def engagement_over_time(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    freq: str,
    *,
    by_channel: bool,
    coverage: Coverage,
    readers_day: date | None = None,
    settled_days: int | None = None,
) -> MetricFrame:
    """One row per day/week/month (and channel), with `days` and `complete` (the coverage
    of each row by synced posts' data, `coverage.period_coverage`) and `provisional`: its
    readers and read rate will still change (`still_gathering`, the rule of the KPIs, at
    the row's last instant inside the period).

    The rows run over the period, or, where it is open, from the first to the last day
    with daily rows or publications, and never past the last synced day. A row without any
    data is 0 where its days were synced (nothing happened) and missing where none were (a
    gap, or before the first synced day).
    """
    sums = channel_sums(con, flt, [period], freq=freq)
    buckets = {as_date(b) for b in sums["bucket"].dropna()}
    first, last = coverage.first_day, coverage.last_day
    if buckets:
        first = min(first or min(buckets), min(buckets))
        last = max(last or max(buckets), max(buckets))
    days = [
        day
        for day in grid_days(period, freq, first, last)
        if day in buckets or last is None or day <= last
    ]
    ends = [bucket_end(day, freq) for day in days]
    covered = period_coverage(coverage, days, ends, period, "posts", flt.channel_ids)
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
    bucket = pd.Series(frame.pop("bucket"))
    unseen = bucket.map(dict(zip(days, covered.seen, strict=True))).eq(0).to_numpy()
    unknown = unseen & ~bucket.isin(buckets).to_numpy()
    frame["days"] = bucket.map(dict(zip(days, covered.days, strict=True)))
    frame["complete"] = bucket.map(dict(zip(days, covered.complete, strict=True)))
    frame["complete"] = frame["complete"].astype("boolean")
    row_ends = [
        end if period.end is None else min(end, period.end)
        for end in local_midnight(pd.Series(ends), period.tz)
    ]
    gathering = [still_gathering(end, readers_day, settled_days) for end in row_ends]
    frame["provisional"] = bucket.map(dict(zip(days, gathering, strict=True))).astype("boolean")
    frame.insert(0, "period", local_midnight(bucket, period.tz))
    if by_channel:
        frame = frame.merge(names, on="channel_id", how="left")
    columns = [
        "period",
        *(["channel_id", "channel"] if by_channel else []),
        "posts_published",
        "readers",
        "read_rate",
        "audience",
        "opens",
        "daily_unique_viewers",
        "reactions",
        "comments",
        "shares",
        "clicks",
        "engagements",
        "engagement_rate",
        "days",
        "complete",
        "provisional",
    ]
    out = frame[columns].copy()
    flags = ("period", "channel_id", "channel", "complete", "provisional")
    for column in columns:
        if column in ("read_rate", "engagement_rate"):
            out[column] = out[column].astype("Float64")
        elif column not in flags:
            out[column] = out[column].astype("Int64")
    # Without any synced day, a row's daily numbers are unknown (a gap, before the first
    # day): missing, not 0; its posts (from the posts table) still count.
    out.loc[unseen, list(_FROM_DAILY_ROWS)] = pd.NA
    measured = [c for c in columns if c not in (*flags, "days")]
    out.loc[unknown, measured] = pd.NA
    return MetricFrame(out, int(frame["no_audience"].sum()))


_FROM_DAILY_ROWS = (*DAILY_SUMS, "engagements", "engagement_rate")


def _as_dates(index: pd.Index, keys: list[str]) -> pd.Index:
    # DuckDB hands DATE buckets over as datetime.date or Timestamps depending on the path.
    if isinstance(index, pd.MultiIndex):
        levels = [
            [as_date(v) for v in index.get_level_values(0)],
            list(index.get_level_values(1)),
        ]
        return pd.MultiIndex.from_arrays(levels, names=keys)
    return pd.Index([as_date(v) for v in index], name=keys[0])


def kpis(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    previous: Period,
    *,
    by_channel: bool,
    complete: bool,
    history: Mapping[DataKind, Sequence[Period]] | None = None,
    readers_day: date | None = None,
    previous_missing: bool = False,
    settled_days: int | None = None,
    covered: bool = True,
    gaps: Sequence[tuple[date, date]] = (),
) -> MetricFrame:
    """Totals of the period next to those of the comparison period, one row per metric.

    When `complete` is False (a side runs past the synced data), every delta is NA except
    read_rate's, which compares posts with their own audience whatever the days covered.
    With `readers_day` (the last complete synced day), every period's readers, the
    current one's too, are counted at the same age (`period.same_age_cutoff`), never with
    readers gathered after that day. `usual_low`/`usual_high` are the mean -/+
    KPI_USUAL_SD standard deviations of the metric over the `history` periods of its kind
    of data (each whole and at the same age), `usual_periods` how many there are; the
    range is missing with fewer than KPI_USUAL_MIN_PERIODS. With `previous_missing`,
    previous values are NA. `provisional` (`provisional_metrics`) says which values will
    still change: with `settled_days`, the readers of posts younger than that; without
    `covered` (the period runs past the synced days), every value.
    """
    history = history or {}
    periods, usual_by_kind = _sides(period, previous, history)
    cutoffs: list[date | None] = [None] * len(periods)
    if readers_day is not None:
        cutoffs = [_capped(same_age_cutoff(p, period, readers_day), readers_day) for p in periods]
    sums = channel_sums(con, flt, periods, cutoffs=cutoffs, gaps=gaps)
    names = channel_names(con, flt.channel_ids) if by_channel else None
    channel_ids, totals = _totals(sums, len(periods), names)
    sides = [_kpi_values(dict(zip(_NUMBERS, side.T, strict=True))) for side in totals]
    count = len(channel_ids)
    growing = provisional_metrics(period, readers_day, settled_days, covered=covered)
    columns: dict[str, list[np.ndarray]] = {}
    for metric, kind in KPI_METRICS:
        usual_sides = usual_by_kind[METRIC_DATA[metric]]
        one = _metric_columns(metric, kind, sides, usual_sides, count, complete=complete)
        if metric == "net_subscribers" and flt.selects_posts:
            # Subscribers follow channels, not tags, priorities or authors.
            one.update(_missing(_NA_WITHOUT_CHANNELS, count))
            one["usual_periods"] = np.zeros(count)
        if previous_missing:
            one.update(_missing(("previous", "delta", "delta_pct"), count))
        one["provisional"] = np.full(count, metric in growing)
        for key, values in one.items():
            columns.setdefault(key, []).append(values)
    frame = _kpi_frame(columns, channel_ids)
    missing = int(totals[0, :, _NUMBERS.index("no_audience")].sum())
    if names is None:
        return MetricFrame(frame.drop(columns="channel_id"), missing)
    frame = frame.merge(names, on="channel_id", how="left")
    rest = [c for c in frame.columns if c not in ("channel_id", "channel")]
    return MetricFrame(frame[["channel_id", "channel", *rest]].reset_index(drop=True), missing)


# The kind of synced data each KPI rests on: its periods are whole when that kind covers them.
METRIC_DATA: dict[str, DataKind] = {
    m: "channels" if m == "net_subscribers" else "posts" for m, _ in KPI_METRICS
}
# The KPIs that grow as a period's posts gather readers after it ends.
READER_METRICS = ("readers", "read_rate")


def provisional_metrics(
    period: Period, readers_day: date | None, settled_days: int | None, *, covered: bool
) -> frozenset[str]:
    """The KPIs of `period` whose values will still change: all of them while the period
    runs past the synced days (`covered` False); else readers and read rate while its
    youngest posts (published on its last UTC day) are fewer than `settled_days` days old
    on `readers_day`, the last complete synced day."""
    if not covered:
        return frozenset(m for m, _ in KPI_METRICS)
    if period.end is None:
        return frozenset()
    gathering = still_gathering(period.end, readers_day, settled_days)
    return frozenset(READER_METRICS) if gathering else frozenset()


def still_gathering(end: datetime, readers_day: date | None, settled_days: int | None) -> bool:
    """Whether the posts published just before `end` (a period's or a row's end) are still
    gathering readers: their UTC day is fewer than `settled_days` days before `readers_day`,
    the last complete synced day, or after it (docs/metrics.md, "Settled or provisional")."""
    if readers_day is None or settled_days is None:
        return False
    youngest = (end - timedelta(microseconds=1)).astimezone(UTC).date()
    return (readers_day - youngest).days < settled_days


def _capped(cutoff: date | None, readers_day: date) -> date | None:
    """A cutoff no later than the last complete day: later rows are not final yet."""
    return None if cutoff is None else min(cutoff, readers_day)


_NUMBERS = [*DAILY_SUMS, *POST_SUMS, "net_subscribers"]
_NA_WITHOUT_CHANNELS = ("value", "previous", "delta", "delta_pct", "usual_low", "usual_high")


def _missing(keys: Sequence[str], count: int) -> dict[str, np.ndarray]:
    """NaN for `keys`, and no small-base flag: a missing number has no base to judge."""
    return {key: np.full(count, np.nan) for key in keys} | {"small_base": np.zeros(count, bool)}


def _totals(
    sums: pd.DataFrame, sides: int, names: pd.DataFrame | None
) -> tuple[list[str], np.ndarray]:
    """The channel ids of the rows (one "" for the totals without `names`) and
    totals[side, channel, number]: the sums of each period per channel."""
    if names is not None:
        channel_ids = [str(c) for c in names["channel_id"]]
        where = sums["channel_id"].map({c: i for i, c in enumerate(channel_ids)})
        sums = sums[where.notna()]
        slot = where[where.notna()].to_numpy(dtype=np.int64)
    else:
        channel_ids = [""]
        slot = np.zeros(len(sums), dtype=np.int64)
    totals = np.zeros((sides, len(channel_ids), len(_NUMBERS)), dtype=np.int64)
    np.add.at(totals, (sums["side"].to_numpy(dtype=np.int64), slot), sums[_NUMBERS].to_numpy())
    return channel_ids, totals


def _metric_columns(
    metric: str,
    kind: Kind,
    sides: list[dict[str, np.ndarray]],
    usual_sides: list[int],
    count: int,
    *,
    complete: bool,
) -> dict[str, np.ndarray]:
    """One metric's value, previous, change, small-base flag and usual range per channel."""
    value, previous = sides[0][metric], sides[1][metric]
    if metric == "read_rate":
        base = sides[1]["audience"]
    elif metric == "engagement_rate":
        base = sides[1]["opens"]
    else:
        base = np.abs(previous)
    small = KPI_SMALL_BASE_AUDIENCE if kind is RATE else KPI_SMALL_BASE_COUNT
    delta = value - previous
    if not (complete or metric == "read_rate"):
        delta = np.full(count, np.nan)
    # A relative change from zero or from a negative base (net subscribers can shrink)
    # has no meaning.
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = delta / np.where(previous > 0, previous, np.nan)
    low, high, known = _usual([sides[i][metric] for i in usual_sides], count)
    if metric != "net_subscribers":  # a count or a rate below zero is not usual, only odd
        low = np.maximum(low, 0.0)
    return {
        "value": value,
        "previous": previous,
        "delta": delta,
        "delta_pct": pct,
        "small_base": (base < small) & ~np.isnan(base),
        "usual_low": low,
        "usual_high": high,
        "usual_periods": known,
    }


def _kpi_frame(columns: dict[str, list[np.ndarray]], channel_ids: list[str]) -> pd.DataFrame:
    """The rows, metric by metric (each over the channels), ordered channel by channel."""
    count = len(channel_ids)
    metrics_ = [m for m, _ in KPI_METRICS]
    order = np.arange(len(metrics_) * count).reshape(len(metrics_), count).T.ravel()

    def repeated(values: list[str]) -> np.ndarray:
        return np.repeat(np.array(values, dtype=object), count)[order]

    def floats(key: str) -> pd.arrays.FloatingArray:
        # NaN (a rate without a denominator, a delta left out) becomes NA.
        return pd.array(np.concatenate(columns[key])[order], dtype="Float64")

    return pd.DataFrame(
        {
            "channel_id": np.tile(np.array(channel_ids, dtype=object), len(metrics_))[order],
            "metric": repeated(metrics_),
            "label": repeated([KPI_LABELS[m] for m in metrics_]),
            "kind": repeated([k.name for _, k in KPI_METRICS]),
            **{key: floats(key) for key in ("value", "previous", "delta", "delta_pct")},
            "small_base": pd.array(np.concatenate(columns["small_base"])[order], dtype="boolean"),
            **{key: floats(key) for key in ("usual_low", "usual_high")},
            "usual_periods": pd.array(
                np.concatenate(columns["usual_periods"])[order].astype("int64"), dtype="Int64"
            ),
            "provisional": pd.array(np.concatenate(columns["provisional"])[order], dtype="boolean"),
        }
    )


def _sides(
    period: Period, previous: Period, history: Mapping[DataKind, Sequence[Period]]
) -> tuple[list[Period], dict[DataKind, list[int]]]:
    """The periods to sum (current, comparison, then the history not already among them)
    and, per kind of data, the sides of its history; a history period overlapping another
    is left out."""
    periods = [period, previous]
    usual: dict[DataKind, list[int]] = {kind: [] for kind in DATA_KINDS}
    for kind in DATA_KINDS:
        for past in history.get(kind, ()):
            if past in periods:
                usual[kind].append(periods.index(past))
            elif not any(_overlap(past, other) for other in periods):
                periods.append(past)
                usual[kind].append(len(periods) - 1)
    return periods, usual


def _overlap(a: Period, b: Period) -> bool:
    assert a.start and a.end and b.start and b.end
    return a.start < b.end and b.start < a.end


def _usual(values: list[np.ndarray], count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """mean -/+ KPI_USUAL_SD sd (per channel) over the periods where the value exists, and
    how many such periods there are."""
    if not values:
        return np.full(count, np.nan), np.full(count, np.nan), np.zeros(count)
    grid = np.vstack(values)
    known = (~np.isnan(grid)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a channel without any value
        mean = np.nanmean(grid, axis=0)
        spread = KPI_USUAL_SD * np.nanstd(grid, axis=0, ddof=1)
    enough = known >= KPI_USUAL_MIN_PERIODS
    low, high = np.where(enough, mean - spread, np.nan), np.where(enough, mean + spread, np.nan)
    return low, high, known.astype("float64")


def _kpi_values(sums: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The KPI values per channel (float64, NaN for a rate without a base) from the sums."""
    engagements = sums["reactions"] + sums["comments"] + sums["shares"] + sums["clicks"]
    values = {name: column.astype("float64") for name, column in sums.items()}
    values["engagements"] = engagements.astype("float64")
    values["engagement_rate"] = divide(engagements, sums["opens"])
    values["read_rate"] = divide(sums["rated_readers"], sums["audience"])
    return values


CHANNEL_COMPARISON = declare(
    "channel_comparison",
    dict(
        **dict.fromkeys(("rank", "posts_published", "readers", "audience", "opens"), COUNT),
        **dict.fromkeys(("engagements", "net_subscribers", "subscribers"), COUNT),
        **dict.fromkeys(("read_rate", "adjusted_read_rate", "engagement_rate"), RATE),
    ),
)


def channel_comparison(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> MetricFrame:
    """Per channel: posts, readers, audience, read rate, opens, engagements, subscribers."""
    sums = channel_sums(con, flt, [period]).groupby("channel_id").sum(numeric_only=True)
    names = channel_names(con, flt.channel_ids)
    sums = add_rates(sums.reindex(names["channel_id"], fill_value=0)).reset_index()
    frame = names.merge(sums, on="channel_id")
    ends = _subscribers_at(con, period)
    frame["subscribers"] = frame["channel_id"].map(ends).astype("Int64")
    # Fair: each channel's read rate with its interval, ranked by the rate shrunk toward
    # the workspace's (fair.rank_fairly); engagement rates get their interval.
    workspace = np.full(len(frame), fair.pooled(frame["rated_readers"], frame["audience"]))
    ranked = fair.rank_fairly(
        frame, "read_rate", "rated_readers", "audience", workspace, tiebreak="channel_id"
    )
    ranked = fair.with_interval(ranked, "engagement_rate", "engagements", "opens", "count")
    columns = [
        "rank",
        "channel_id",
        "channel",
        "posts_published",
        "readers",
        "audience",
        "read_rate",
        "read_rate_low",
        "read_rate_high",
        "adjusted_read_rate",
        "too_few_to_rank",
        "opens",
        "engagements",
        "engagement_rate",
        "engagement_rate_low",
        "engagement_rate_high",
        "net_subscribers",
        "subscribers",
    ]
    out = ranked[columns].copy()
    out.attrs.update(prior_strength=ranked.attrs["prior_strength"], basis=fair.READ_RATE_BASIS)
    for column in (
        "posts_published",
        "readers",
        "audience",
        "opens",
        "engagements",
        "net_subscribers",
    ):
        out[column] = out[column].astype("Int64")
    return MetricFrame(out, int(frame["no_audience"].sum()))


def _subscribers_at(con: duckdb.DuckDBPyConnection, period: Period) -> dict[str, int]:
    """Each channel's subscribers in its last channel_daily row of the period."""
    sql = (
        Sql("SELECT channel_id, arg_max(subscribers, date) FROM channel_daily s WHERE ")
        + day_range(period, "s.date")
        + Sql(" GROUP BY 1")
    )
    return {str(k): int(v) for k, v in con.execute(sql.text, list(sql.params)).fetchall()}


_TOP_BASIS = {
    "readers": f"ranked by readers; read rates with {fair.INTERVALS}",
    "read_rate": f"{fair.READ_RATE_BASIS}; an audience under {FAIR_MIN_BASE} is too few to rank",
    "opens": f"ranked by opens in the period; rates with {fair.INTERVALS}",
    "engagement_rate": fair.ENGAGEMENT_BASIS,
}
_NO_REACH_TIME = Sql("reach_time AS (SELECT NULL::VARCHAR AS channel_id, NULL::DATE AS settled_by)")


TOP_POSTS = declare(
    "top_posts",
    dict(
        **dict.fromkeys(("rank", "readers", "audience", "opens", "engagements"), COUNT),
        **dict.fromkeys(("read_rate", "adjusted_read_rate", "engagement_rate"), RATE),
    ),
)


def top_posts(
    con: duckdb.DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    *,
    by: str,
    n: int,
    min_opens: int,
    settled: ReachTimes | None = None,
    through: date | None = None,
    gaps: Sequence[tuple[date, date]] = (),
) -> pd.DataFrame:
    """The `n` best posts by readers or read rate (published in the period) or by opens or
    engagement rate (daily rows in the period, whenever published). By read rate with
    `settled`, only posts that have had their channel's reach time are ranked. With
    `through` (the last complete synced day), posts published in the period are ranked by
    their readers through that day, the cutoff of every same-age comparison."""
    published = by in ("readers", "read_rate")
    order = {
        "readers": "readers DESC",
        "read_rate": "adjusted_read_rate DESC NULLS LAST",
        "opens": "opens DESC",
        "engagement_rate": "adjusted_engagement_rate DESC NULLS LAST",
    }[by]
    where, params = flt.where("p")
    through = through if published else None
    stored = through is not None and has_stored_reach(con)
    # The cohort with each post's readers through `through` (the same-age cutoff): the
    # prior, the candidates and the ranking all read these readers.
    aged = (
        Sql("cohort AS (")
        + cohort_rows(flt, [period], reach=stored)
        + Sql(")")
        + aged_rows([period], [through], stored=stored, gaps=gaps)
    )
    reach_time = _NO_REACH_TIME if settled is None else settled.table()
    prior: dict[str, float] = {}
    strength, too_few = FAIR_MAX_STRENGTH, 0
    if by == "read_rate":
        # Fair: every post with an audience of FAIR_MIN_BASE ranks, by its read rate shrunk
        # toward its channel's (fair.post_prior); smaller audiences are too few to rank.
        settled_posts = Sql(
            "FROM aged c LEFT JOIN reach_time rt ON rt.channel_id = c.channel_id WHERE "
        ) + (Sql("TRUE") if settled is None else settled.settled("c.published_at", "rt"))
        xn = Sql(
            "SELECT c.channel_id, least(c.readers, c.audience)::DOUBLE AS x, "
            "c.audience::DOUBLE AS n "
        )
        head = Sql("WITH ") + aged + Sql(", ") + reach_time
        sums = _post_sums(con, head, xn + settled_posts)
        candidates = (
            Sql("SELECT c.id ") + settled_posts + Sql(" AND c.audience >= ?", (FAIR_MIN_BASE,))
        )
    elif published:
        candidates = Sql("SELECT id FROM cohort")
    else:
        least = max(min_opens, FAIR_MIN_BASE) if by == "engagement_rate" else min_opens
        candidates = Sql("SELECT post_id AS id FROM per_post WHERE opens >= ?", (least,))
        if by == "engagement_rate":
            # The same, per open: shrunk toward the channel's engagement rate (a gamma prior).
            head = daily_rows(con, flt, [period]) + Sql(f", {PER_POST}")
            xn = Sql(
                "SELECT p.channel_id, pp.engagements::DOUBLE AS x, pp.opens::DOUBLE AS n "
                "FROM per_post pp JOIN posts p ON p.id = pp.post_id WHERE pp.opens >= ?",
                (min_opens,),
            )
            sums = _post_sums(con, head, xn)
    if by in ("read_rate", "engagement_rate"):
        kind: fair.RateKind = "proportion" if by == "read_rate" else "count"
        too_few = int(sums["too_few"].sum())
        prior, strength = fair.post_prior(sums[sums["n"] > 0], kind)
    sql = (
        daily_rows(con, flt, [period])
        + Sql(", ")
        + aged
        + Sql(f", {PER_POST}, ")
        + reach_time
        + Sql(
            ", prior AS (SELECT unnest(?::VARCHAR[]) AS channel_id, "
            "unnest(?::DOUBLE[]) AS expected), candidates AS (",
            (list(prior), list(prior.values())),
        )
        + candidates
        + Sql(
            "), ranked AS (SELECT p.id AS post_id, p.title, p.channel_id, ch.name AS channel, "
            "p.priority, coalesce(p.tags, []::VARCHAR[]) AS tags, p.author_name, p.published_at, "
            "coalesce(ag.readers, p.views, 0) AS readers, a.subscribers AS audience, "
            "coalesce(ag.readers, p.views, 0)::DOUBLE / nullif(a.subscribers, 0) AS read_rate, "
            "(least(coalesce(ag.readers, p.views, 0), a.subscribers) + ?::DOUBLE * pr.expected) "
            "/ (a.subscribers + ?::DOUBLE) AS adjusted_read_rate, "
            "coalesce(pp.opens, 0) AS opens, coalesce(pp.engagements, 0) AS engagements, "
            "pp.engagements::DOUBLE / nullif(pp.opens, 0) AS engagement_rate, "
            "(coalesce(pp.engagements, 0) + ?::DOUBLE * pr.expected) "
            "/ (coalesce(pp.opens, 0) + ?::DOUBLE) AS adjusted_engagement_rate "
            "FROM candidates k JOIN posts p ON p.id = k.id "
            "ASOF LEFT JOIN channel_daily a ON a.channel_id = p.channel_id "
            "AND timezone('UTC', p.published_at)::DATE >= a.date "
            "LEFT JOIN per_post pp ON pp.post_id = p.id LEFT JOIN aged ag ON ag.id = p.id "
            "LEFT JOIN prior pr ON pr.channel_id = p.channel_id "
            f"LEFT JOIN channels ch ON ch.id = p.channel_id WHERE {where}) "
            f"SELECT * FROM ranked ORDER BY {order}, post_id LIMIT ?",
            (strength, strength, strength, strength, *params, n),
        )
    )
    frame = query_frame(con, sql, period.tz)
    frame.insert(0, "rank", pd.Series(range(1, len(frame) + 1), index=frame.index, dtype="Int64"))
    frame = fair.with_interval(frame, "read_rate", "readers", "audience")
    frame = fair.with_interval(frame, "engagement_rate", "engagements", "opens", "count")
    unused = {"read_rate": "adjusted_engagement_rate", "engagement_rate": "adjusted_read_rate"}
    frame = frame.drop(
        columns=[unused[by]] if by in unused else ["adjusted_read_rate", "adjusted_engagement_rate"]
    )
    if by in unused:
        frame.attrs.update(prior_strength=strength, too_few_to_rank=too_few)
    frame.attrs["basis"] = _TOP_BASIS[by]
    return frame


def _post_sums(con: duckdb.DuckDBPyConnection, head: Sql, xn: Sql) -> pd.DataFrame:
    """Per channel, over the posts `xn` gives (channel_id, x successes, n trials, after
    the CTEs of `head`) whose n is at least FAIR_MIN_BASE: the sums `fair.post_prior`
    needs; and `too_few`, the posts with a smaller n."""
    sql = (
        head
        + Sql(", xn AS (")
        + xn
        + Sql(
            ") SELECT channel_id, coalesce(sum(x) FILTER (enough), 0) AS x, "
            "coalesce(sum(n) FILTER (enough), 0) AS n, "
            "coalesce(sum(x * x) FILTER (enough), 0) AS xx, "
            "coalesce(sum(x * n) FILTER (enough), 0) AS xn, "
            "coalesce(sum(n * n) FILTER (enough), 0) AS nn, "
            "count(*) FILTER (NOT enough) AS too_few "
            "FROM (SELECT *, n >= ? AS enough FROM xn) GROUP BY 1 ORDER BY 1",
            (FAIR_MIN_BASE,),
        )
    )
    return plain_frame(con, sql.text, sql.params)


HEATMAP = declare(
    "publishing_heatmap",
    dict(
        weekday=NUMBER,
        hour=HOUR,
        **dict.fromkeys(("posts_published", "readers", "opens", "engagements"), COUNT),
        readers_per_post=NUMBER,
    ),
)


def publishing_heatmap(
    con: duckdb.DuckDBPyConnection, flt: PostFilter, period: Period
) -> pd.DataFrame:
    """168 rows (weekday × hour of `published_at` in tz): posts published and their readers."""
    sql = (
        daily_rows(con, flt, [period])
        + Sql(", cohort AS (")
        + cohort_rows(flt, [period])
        + Sql(
            f"), {PER_POST}, "
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
            (period.tz.key, period.tz.key),
        )
    )
    frame = query_frame(con, sql, period.tz)
    names = frame["weekday"].map(dict(enumerate(WEEKDAYS)))
    frame.insert(1, "weekday_name", names.astype(pd.CategoricalDtype(list(WEEKDAYS), True)))
    return frame


UPCOMING = declare("upcoming_scheduled", {})  # times and words: no numbers


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
    return query_frame(con, sql, period.tz)
