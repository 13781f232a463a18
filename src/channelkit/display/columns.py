"""What a column holds, by its name, declared once: the meaning travels with the column.

pandas keeps `attrs` through a selection, slice or sort but drops them in a merge, and no
frame keeps anything per column; a column's name survives every one of them. So the kind
of a column (a rate, a count, a ratio...) follows from its name here, whatever frame it is
in, and a KPI row's kind (a rate or a count in the same `value` column) from its `kind`,
`metric` or `label`, whichever the user kept:

    column_kind("read_rate_low")       # "rate": shown 65.9%
    column_kind("vs_rest")             # "ratio": 0.71 shown −29.0% (against the rest)
    row_kinds(kpis[["label", "value"]])  # ["count", "count", "rate", ...]

A column `x` beside `x_low` and `x_high` is shown as one interval cell. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from channelkit._labels import KPI_LABELS, RATES
from channelkit.display import numbers

if TYPE_CHECKING:
    import pandas as pd

# rate: a share shown as a percentage; ratio: x times a baseline, shown as a percentage
# against it (1.17: +17.0%); count: a whole number; hour: an hour of the day (09:00).
ColumnKind = Literal["rate", "ratio", "count", "hour"]

# How each kind reads, in notebooks and reports alike.
SHOWN: dict[ColumnKind, Callable[[Any], str]] = {
    "rate": numbers.percent,
    "ratio": numbers.relative,
    "count": numbers.whole,
    "hour": numbers.hour,
}

RATIOS = ("lift", "vs_expected", "vs_rest", "relative_read_rate")
# The outlook's and decay profiles' shares (docs/metrics.md "Outlook").
OUTLOOK_SHARES = ("share_on_day", "share_by_day", "coverage")
RATE_COLUMNS = (*RATES, "channel_median", *OUTLOOK_SHARES)
COUNTS = (
    "posts",
    "posts_published",
    "readers",
    "rated_readers",
    "expected_readers",
    "audience",
    "opens",
    "median_opens",
    "engagements",
    "reactions",
    "comments",
    "shares",
    "clicks",
    "views",
    "daily_unique_viewers",
    "subscribers",
    "net_subscribers",
    "gained",
    "lost",
    "net",
    "rank",
    "forecast_readers",
    "forecast",  # forecast_low, forecast_high
    "usual_readers",
    "usual",  # usual_low, usual_high
    "settled_readers",
    "final_readers",
    "naive_readers",
    "based_on",
)
INTERVAL_ENDS = ("_low", "_high")
_MERGE_SUFFIXES = ("_x", "_y")  # pandas' default suffixes of a merge's shared columns
_BY_LABEL = {label: metric for metric, label in KPI_LABELS.items()}


def column_kind(name: Hashable) -> ColumnKind | None:
    """The kind of the column named `name` (its interval's ends and `adjusted_` form
    included); None for a column that is not declared."""
    if not isinstance(name, str):
        return None
    stem = name
    for suffix in (*_MERGE_SUFFIXES, *INTERVAL_ENDS):
        stem = stem.removesuffix(suffix)
    stem = stem.removeprefix("adjusted_")
    if stem == "hour":
        return "hour"
    if stem in RATIOS:
        return "ratio"
    if stem in RATE_COLUMNS or stem.endswith("_rate"):
        return "rate"
    return "count" if stem in COUNTS else None


def shown_as(name: Hashable) -> Callable[[Any], str]:
    """How a value of the column named `name` reads, in a report as in a notebook:
    `shown_as("lift")(1.12)` is "+12.0%"; a column that is not declared, as a number."""
    kind = column_kind(name)
    return numbers.count if kind is None else SHOWN[kind]


def metric_kind(metric: object) -> ColumnKind | None:
    """A KPI row's kind from its metric name ("read_rate") or label ("Read rate")."""
    if not isinstance(metric, str):
        return None
    kind = column_kind(_BY_LABEL.get(metric, metric))
    return kind if kind in ("rate", "count") else None


def row_kinds(frame: pd.DataFrame) -> list[ColumnKind | None] | None:
    """Each row's kind, from its `kind`, `metric` or `label` (a column or the index);
    None when the frame keeps none of them."""
    if "kind" in frame.columns:
        return [k if k in ("rate", "count") else None for k in frame["kind"]]
    for name in ("metric", "label"):
        if name in frame.columns:
            return [metric_kind(value) for value in frame[name]]
    if any(level in ("metric", "label") for level in frame.index.names):
        return [_index_kind(key) for key in frame.index]
    return None


def _index_kind(key: object) -> ColumnKind | None:
    parts: Sequence[object] = key if isinstance(key, tuple) else (key,)
    found = [metric_kind(part) for part in parts]
    return next((kind for kind in found if kind is not None), None)


def has_kinds(frame: pd.DataFrame) -> bool:
    """Whether a frame without channelkit's attrs (a merge's result) has columns whose
    names say a rate or a ratio, or KPI rows (a `value` beside a KPI's metric or label):
    shown by their kinds too."""
    if any(column_kind(name) in ("rate", "ratio") for name in frame.columns):
        return True
    return "value" in frame.columns and any(row_kinds(frame) or ())


def interval_of(name: Hashable, columns: Sequence[Hashable]) -> tuple[str, str] | None:
    """(`name`_low, `name`_high) when both are among `columns`, else None."""
    if not isinstance(name, str):
        return None
    low, high = (f"{name}{end}" for end in INTERVAL_ENDS)
    return (low, high) if low in columns and high in columns else None
