"""Query results as DataFrames with the dtypes users expect.

Integers are nullable (`Int64`), booleans `boolean`, lists Arrow-backed lists, instants
tz-aware in the analysis timezone, calendar dates local midnights in that timezone, and
the enumerations (priority, status, visibility) categoricals with every allowed value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pyarrow as pa

from channelkit._spec import POST_STATUSES, PRIORITIES, VISIBILITIES

# Column name -> categories; priority is ordered so that sorting follows severity.
CATEGORIES: Mapping[str, tuple[Sequence[str], bool]] = {
    "priority": (PRIORITIES, True),
    "status": (POST_STATUSES, False),
    "visibility": (VISIBILITIES, False),
}


def _pandas_type(arrow_type: pa.DataType) -> object:
    if pa.types.is_integer(arrow_type):
        return pd.Int64Dtype()
    if pa.types.is_boolean(arrow_type):
        return pd.BooleanDtype()
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return pd.ArrowDtype(arrow_type)
    return None


def _without_decimals(table: pa.Table) -> pa.Table:
    # DuckDB sums BIGINTs into HUGEINT, which Arrow carries as decimal128(38, 0) and pandas
    # would hold as Python Decimal objects: make whole numbers Int64 when they fit, and
    # fractional decimals float64.
    for i, field in enumerate(table.schema):
        if not pa.types.is_decimal(field.type):
            continue
        target = pa.int64() if field.type.scale == 0 else pa.float64()
        try:
            column = table.column(i).cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        table = table.set_column(i, field.name, column)
    return table


def to_frame(table: pa.Table, tz: ZoneInfo) -> pd.DataFrame:
    """Convert a query result (an Arrow table) to a DataFrame (see the module docstring)."""
    table = _without_decimals(table)
    frame: pd.DataFrame = table.to_pandas(types_mapper=_pandas_type)
    for field in table.schema:
        name = field.name
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            frame[name] = frame[name].dt.tz_convert(tz.key)
        elif pa.types.is_date(field.type):
            frame[name] = local_midnight(frame[name], tz)
        elif name in CATEGORIES:
            categories, ordered = CATEGORIES[name]
            # A user's SQL may name another column "status" (sync_runs.status): convert
            # only values that are all allowed, never turn unknown ones into NaN.
            if frame[name].dropna().isin(categories).all():
                frame[name] = frame[name].astype(pd.CategoricalDtype(list(categories), ordered))
    return frame


def local_midnight(dates: pd.Series, tz: ZoneInfo) -> pd.Series:
    """Calendar dates → the tz-aware instants at which they begin in `tz`."""
    naive = pd.to_datetime(dates)
    # Where DST skips or repeats midnight, take the first instant of the day. pandas gets
    # the name, as before the zone was typed: the dtype stays the one a name gives.
    return naive.dt.tz_localize(tz.key, ambiguous=True, nonexistent="shift_forward")


def divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """top ÷ bottom as float64, missing (NaN) where bottom is 0: a rate without a base."""
    base = bottom.astype("float64")
    out: np.ndarray = top.astype("float64") / np.where(base > 0, base, np.nan)
    return out


def rate(top: pd.Series, bottom: pd.Series) -> pd.Series:
    """`divide` on two columns of one frame."""
    return pd.Series(
        divide(top.astype("float64").to_numpy(), bottom.astype("float64").to_numpy()),
        index=top.index,
    )


@dataclass
class MetricFrame:
    """A metric query's frame and the counts its caller turns into warnings.

    result = MetricFrame(frame, posts_without_audience=3)
    result.frame.attrs  # only the public attrs: period, filters, warnings...
    """

    frame: pd.DataFrame
    posts_without_audience: int = 0


def as_date(value: object) -> date:
    """A DATE bucket as a `date`: DuckDB hands them over as dates or Timestamps depending on
    the path."""
    if isinstance(value, datetime):  # a pandas Timestamp too
        return value.date()
    assert isinstance(value, date)
    return value
