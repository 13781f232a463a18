"""One metric call of `Warehouse`: its arguments checked, its period chosen, its attrs.

A `Metric` says what a metric needs (daily rows or not, lifetime readers or not, a
default period); `Query` carries the connection, the resolved filter, the period and its
comparison, the warehouse's coverage and the warnings gathered on the way; `finish` writes
the honest `attrs` every result carries (period, previous_period, filters, complete,
warnings).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pandas as pd
from duckdb import DuckDBPyConnection

from channelkit._constants import (
    GRID_MAX_CELLS,
    KPI_DEFAULT_DAYS,
    METRIC_DEFAULT_PERIOD,
    SYNC_CONVERGENCE_RUNS,
)
from channelkit.analysis import metrics
from channelkit.analysis.coverage import Coverage, period_coverage
from channelkit.analysis.dtypes import MetricFrame, as_date, local_midnight
from channelkit.analysis.filters import PostFilter
from channelkit.analysis.grid import bucket_end, whole_buckets
from channelkit.analysis.period import Period, parse_period
from channelkit.analysis.rows import day_range, instant_range
from channelkit.analysis.sql import Sql, first_row, plain_frame
from channelkit.display.columns import DECLARED, KINDS_ATTR, declare
from channelkit.display.kinds import COUNT, DAYS
from channelkit.errors import InvalidParameterError


@dataclass(frozen=True)
class Metric:
    """What a metric needs from the warehouse, declared where the metric is defined.

    Metric("top_posts")                          # daily rows, readers, the default period
    Metric("posts", daily=False, default=None)   # without analytics:read; all posts
    Metric("subscribers", readers=False)         # no post readers: no age warning
    """

    name: str
    daily: bool = True  # needs daily rows: refused without them, warned when not covered
    readers: bool = True  # reports posts' lifetime readers: warned when they are old
    # The period used when none is given (None: everything, for listings, not metrics).
    default: str | None = METRIC_DEFAULT_PERIOD


@dataclass
class Query:
    """One metric call: its connection, filter, period, comparison and warnings."""

    con: DuckDBPyConnection
    flt: PostFilter
    period: Period
    previous: Period | None
    coverage: Coverage
    filters: dict[str, object]
    warnings: list[str] = field(default_factory=list)
    attrs: dict[str, object] = field(default_factory=dict)  # the metric's own attrs
    complete: bool | None = None  # set by a metric that judges it itself (kpis)
    default_period: str | None = None  # the phrase of the default period, when it was used

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
                f"{_posts_have(count)} no channel analytics row on or before the publication day, "
                "so no audience: left out of read rates."
            )

    def finish(self, result: pd.DataFrame | MetricFrame, metric: Metric) -> pd.DataFrame:
        """The frame with its attrs; the readers' age and missing audiences as warnings."""
        if not isinstance(result, MetricFrame):
            result = MetricFrame(result)
        if metric.readers:
            self.readers_age()
        self.no_audience(result.posts_without_audience)
        frame, period, previous = result.frame, self.period, self.previous
        complete = self.complete
        if complete is None:
            complete = self.coverage.covers(period)
            if not complete and self.coverage.has_daily and metric.daily:
                self.warnings.append(
                    f"{period.label} is not fully covered by synced daily rows (the warehouse "
                    f"covers {self.coverage.range_label})."
                )
        frame.attrs.update(
            metric=metric.name,
            period=period.label,
            period_short=period.short_label,
            previous_period=None if previous is None else previous.label,
            filters=self.filters,
            complete=bool(complete),
            warnings=list(self.warnings),
            tz=period.tz.key,
            start=period.start,
            end=period.end,
            period_label=period.label,
            default_period=self.default_period,
            **self.attrs,
        )
        # every metric declares its columns' kinds where it is defined: shown by them
        if metric.name not in DECLARED:
            raise LookupError(f"metric {metric.name!r} has no declare({metric.name!r}, ...)")
        frame.attrs[KINDS_ATTR] = DECLARED[metric.name].names(frame.columns)
        if previous is not None:
            frame.attrs.update(previous_start=previous.start, previous_end=previous.end)
        return frame


def _posts_have(count: int) -> str:
    return "1 post has" if count == 1 else f"{count:,} posts have"


ALL_TIME = "all time"  # period="all time": every synced day, for the metrics but kpis


def uses_default(filters: Mapping[str, object], default: str | None) -> bool:
    """Whether the call names no period, so `default` (if any) decides it."""
    return default is not None and all(filters.get(k) is None for k in ("period", "start", "end"))


def choose_period(
    filters: Mapping[str, object], tz: ZoneInfo, coverage: Coverage, default: str | None
) -> Period:
    period, start, end = (filters.get(key) for key in ("period", "start", "end"))
    if period is not None:
        if start is not None or end is not None:
            raise InvalidParameterError("period", "give either period=... or start=/end=, not both")
        if isinstance(period, str) and " ".join(period.split()).lower() == ALL_TIME:
            return Period.resolve(None, None, tz)
        return parse_period(period, tz=tz, last_day=_last_day(coverage))  # type: ignore[arg-type]
    if start is not None or end is not None or default is None:
        return Period.resolve(start, end, tz)  # type: ignore[arg-type]
    return parse_period(default, tz=tz, last_day=_last_day(coverage))


def _last_day(coverage: Coverage) -> date:
    return coverage.last_complete_day or datetime.now(UTC).date() - timedelta(days=1)


def whole_period(period: Period) -> Period:
    """A KPI period with open ends made whole: KPI_DEFAULT_DAYS days from start / to end."""
    if period.start is not None and period.end is not None:
        return period
    if period.start is None and period.end is None:
        raise InvalidParameterError(
            "period", f"{ALL_TIME!r} has no period before it to compare with; name a period"
        )
    length = timedelta(days=KPI_DEFAULT_DAYS)
    if period.start is not None:
        first = period.start.date()
        return Period.resolve(period.start, first + length, period.tz)
    assert period.end is not None
    return Period.resolve(period.end.date() - length, period.end, period.tz)


def filters_as_given(
    con: DuckDBPyConnection, flt: PostFilter, filters: Mapping[str, object]
) -> dict[str, object]:
    """The filters as the user gave them, channels by name, for titles and headers."""
    out: dict[str, object] = {}
    if flt.channel_ids is not None:
        names = metrics.channel_names(con, flt.channel_ids)
        by_id = dict(zip(names["channel_id"], names["channel"], strict=True))
        out["channel"] = [by_id.get(cid, cid) for cid in flt.channel_ids]
    for key in ("tag", "priority", "author"):
        value = filters.get(key)
        if value is not None:
            out[key] = [value] if isinstance(value, str) else list(value)  # type: ignore[call-overload]
    return out


def check_by(by: str | None) -> bool:
    if by is None:
        return False
    if by != "channel":
        raise InvalidParameterError("by", f"{by!r} is not None or 'channel'")
    return True


def check_grid(cells: int, freq: str) -> None:
    if cells > GRID_MAX_CELLS:
        raise InvalidParameterError(
            "freq",
            f"{cells:,} rows of freq={freq!r} is more than {GRID_MAX_CELLS:,}; "
            "choose a shorter period or a coarser freq",
        )


def check_count(param: str, value: object, *, minimum: int) -> int:
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


def with_channel_names(
    con: DuckDBPyConnection, frame: pd.DataFrame, by_channel: bool
) -> pd.DataFrame:
    if not by_channel:
        return frame
    names = metrics.channel_names(con, None)
    out = frame.merge(names, on="channel_id", how="left")
    columns = ["channel_id", "channel", *[c for c in frame.columns if c != "channel_id"]]
    return out[columns]


def whole_default(q: Query, freq: str) -> None:
    """Without a period, a frame by month covers whole months: the default 28 days widened
    back to the first day of the month they begin in (cut into months, they would label
    a few days of October "October"). Weeks keep the default days, their first week
    marked incomplete (`complete`, `days`)."""
    if q.default_period is not None and freq == "month":
        q.period = whole_buckets(q.period, freq)
        q.default_period = f"{q.default_period}, from the first day of its first {freq}"


SUBSCRIBERS = declare(
    "subscribers", dict(**dict.fromkeys(("subscribers", "gained", "lost", "net"), COUNT), days=DAYS)
)


def subscribers_frame(
    con: DuckDBPyConnection,
    flt: PostFilter,
    period: Period,
    freq: str,
    by_channel: bool,
    coverage: Coverage,
) -> pd.DataFrame:
    """Subscribers at the end of each week or month, gained, lost, net, and the row's
    `days` and `complete` (its coverage by synced channel analytics)."""
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
    bucket = pd.Series(frame.pop("bucket")).map(as_date)
    firsts = sorted(set(bucket))
    ends = [bucket_end(day, freq) for day in firsts]
    covered = period_coverage(coverage, firsts, ends, period, "channels", flt.channel_ids)
    frame["days"] = bucket.map(dict(zip(firsts, covered.days, strict=True))).astype("Int64")
    frame["complete"] = bucket.map(dict(zip(firsts, covered.complete, strict=True)))
    frame["complete"] = frame["complete"].astype("boolean")
    frame.insert(0, "period", local_midnight(bucket, period.tz))
    if by_channel:
        frame = with_channel_names(
            con, frame[["channel_id", *[c for c in frame.columns if c != "channel_id"]]], True
        )
        frame = frame[
            ["period", "channel_id", "channel", "subscribers", "gained", "lost", "net", "days",
             "complete"]
        ]  # fmt: skip
    return frame
