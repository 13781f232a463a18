"""The days whose posts are still gathering readers, marked alike on every by-day chart.

A frame of `Warehouse.engagement_over_time` says per row whether its readers and read rate
will still grow (`provisional`, the rule of docs/metrics.md "Settled or provisional").
Every chart of readers or read rate by day, week or month draws those rows the same way,
through this module: a shaded band behind them labelled "still gathering readers", their
bars paler, their line dashed; and, given `wh.outlook()` of the same filters,
where they are heading (the days' forecast and its range) rather than a drop.

    trend = wh.engagement_over_time(period="week")
    fig = ck.plots.engagement_over_time(trend, outlook=wh.outlook())
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import (
    PLOT_GATHERING_FILL,
    PLOT_GATHERING_OPACITY,
    PLOT_GATHERING_TEXT,
)
from channelkit.errors import InvalidParameterError

GATHERING = "still gathering readers"
HEADING = "heading for"
#: The columns whose values grow while a row's posts gather readers.
GROWING = ("readers", "read_rate")
_STEP = {"day": pd.DateOffset(days=1), "week": pd.DateOffset(weeks=1)}
_OUTLOOK = ("published_at", "readers", "audience", "forecast_readers")
_RANGE = ("forecast_low", "forecast_high")


def gathering(frame: pd.DataFrame) -> np.ndarray:
    """Per row, whether its posts are still gathering readers (`provisional`; none without
    the column, as in a frame made before it)."""
    if "provisional" not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    return frame["provisional"].astype("boolean").fillna(False).to_numpy(dtype=bool)


def mark_gathering(fig: go.Figure, frame: pd.DataFrame, x: pd.Series) -> None:
    """The band behind the rows still gathering readers, labelled, with its legend entry;
    nothing when no row is (a settled period). `x` is the rows' x values as drawn."""
    # The band and its label are named by their words: a redraw (and a test) finds them.
    shapes = [s for s in fig.layout.shapes if s.name != GATHERING]
    annotations = [a for a in fig.layout.annotations if a.name != GATHERING]
    fig.layout.shapes, fig.layout.annotations = shapes, annotations
    rows = np.flatnonzero(gathering(frame))
    if not len(rows):
        return
    left, right = _edges(pd.Series(pd.to_datetime(x)).reset_index(drop=True), rows)
    fig.add_shape(
        type="rect",
        name=GATHERING,
        xref="x",
        yref="paper",
        x0=left,
        x1=right,
        y0=0,
        y1=1,
        fillcolor=PLOT_GATHERING_FILL,
        line_width=0,
        layer="below",
        showlegend=True,
        legendrank=2000,
    )
    # Three more legend entries: the legend is anchored to the image's foot, not to the
    # plot's, so it never lies over the plot's (slanted) dates on a narrow chart.
    fig.update_layout(legend={"yref": "container", "y": 0, "yanchor": "bottom"})
    fig.add_annotation(
        name=GATHERING,
        x=right,  # the band is at the end of the chart: its label ends with it, inside
        xref="x",
        xanchor="right",
        y=1,
        yref="paper",
        yanchor="bottom",
        showarrow=False,
        text=GATHERING,
        font={"color": PLOT_GATHERING_TEXT, "size": 12},
    )


def _edges(x: pd.Series, rows: np.ndarray) -> tuple[pd.Timestamp, pd.Timestamp]:
    """The band's left and right edges: halfway to the neighbouring rows (bars of dates are
    centred on them), half a day beyond a row without a neighbour."""
    gaps = x.diff()
    half = (gaps.median() if len(x) > 1 else pd.Timedelta(days=1)) / 2
    first, last = int(rows[0]), int(rows[-1])
    left = x[first] - (gaps[first] / 2 if first > 0 else half)
    right = x[last] + (gaps[last + 1] / 2 if last + 1 < len(x) else half)
    return pd.Timestamp(left), pd.Timestamp(right)


def bar_look(frame: pd.DataFrame, marker: dict[str, object]) -> dict[str, object]:
    """`marker` (bars, `style.bar_marker`) with the rows still gathering readers paler (a
    partial row keeps its hatching: its days are cut, not only young)."""
    marks = gathering(frame)
    pattern = marker.get("pattern")
    shapes = list(pattern["shape"]) if isinstance(pattern, dict) else [""] * len(frame)
    opacity = marker.get("opacity")
    opacities = list(opacity) if isinstance(opacity, list) else [1.0] * len(frame)
    for i in np.flatnonzero(marks):
        opacities[i] = min(opacities[i], PLOT_GATHERING_OPACITY)
    return {**marker, "pattern": {"shape": shapes}, "opacity": opacities}


def gathering_words(frame: pd.DataFrame) -> list[str]:
    """Per row, what its hover adds: "" or " (still gathering readers)"."""
    return [f" ({GATHERING})" if mark else "" for mark in gathering(frame)]


def split_line(frame: pd.DataFrame, values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A line's values as its settled part and its dashed part (the rows still gathering
    readers, joined to the last settled point before them), NaN elsewhere."""
    marks = gathering(frame)
    y = values.astype("float64").to_numpy()
    settled = np.where(marks, np.nan, y)
    growing = np.where(marks, y, np.nan)
    rows = np.flatnonzero(marks)
    if len(rows) and rows[0] > 0:
        growing[rows[0] - 1] = y[rows[0] - 1]
    return settled, growing


@dataclass(frozen=True)
class Heading:
    """Per row, where the rows still gathering readers are heading (NaN elsewhere):
    readers and their range, read rate and its range.

        ahead = heading(wh.engagement_over_time(), wh.outlook())
        value, low, high = ahead.of("read_rate")
    """

    readers: np.ndarray
    low: np.ndarray
    high: np.ndarray
    read_rate: np.ndarray
    rate_low: np.ndarray
    rate_high: np.ndarray

    def of(self, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The heading of `column` ("readers" or "read_rate"): value, low, high."""
        if column == "readers":
            return self.readers, self.low, self.high
        return self.read_rate, self.rate_low, self.rate_high

    @property
    def known(self) -> bool:
        return bool(np.isfinite(self.readers).any())


def heading(frame: pd.DataFrame, outlook: pd.DataFrame | None) -> Heading:
    """Where each row still gathering readers is heading, from `outlook` (`wh.outlook()` of
    the same filters): the row's readers so far with each of its young posts' readers
    replaced by the post's forecast (and by its 80% range's ends for the row's range),
    never below the readers so far; read rate the same readers ÷ the row's audience. A row
    without young posts, with one whose forecast is missing, or running past the last
    complete synced day (its newest posts have no forecast yet) has none (docs/metrics.md,
    "Plots")."""
    size = len(frame)
    empty = [np.full(size, np.nan) for _ in range(6)]
    if outlook is None or not size or not gathering(frame).any():
        return Heading(*empty)
    _check_same_posts(frame, outlook)
    starts = pd.Series(frame["period"]).reset_index(drop=True)
    step = _STEP.get(str(frame.attrs.get("freq", "day")), pd.DateOffset(months=1))
    end = frame.attrs.get("end")
    ends = [
        start + step if end is None else min(start + step, pd.Timestamp(end)) for start in starts
    ]
    as_of = outlook.attrs.get("as_of")
    young = outlook[list(_OUTLOOK + _RANGE)].reset_index(drop=True)
    published = pd.to_datetime(young["published_at"], utc=True)
    so_far = frame["readers"].astype("float64").to_numpy(na_value=np.nan)
    audience = frame["audience"].astype("float64").to_numpy(na_value=np.nan)
    rated = frame["read_rate"].astype("float64").to_numpy(na_value=np.nan) * audience
    rated = np.where(audience > 0, rated, 0.0)
    out = [np.full(size, np.nan) for _ in range(6)]
    for i in np.flatnonzero(gathering(frame)):
        start, stop = pd.Timestamp(starts[i]), pd.Timestamp(ends[i])
        if as_of is not None and stop > pd.Timestamp(as_of, tz="UTC") + pd.Timedelta(days=1):
            continue  # its newest posts, of the sync's own day, have no forecast
        posts = young[(published >= start) & (published < stop)]
        forecasts = posts[["forecast_readers", *_RANGE]].astype("float64")
        if posts.empty or forecasts.isna().any().any() or np.isnan(so_far[i]):
            continue
        readers = posts["readers"].astype("float64").to_numpy()
        rated_posts = (posts["audience"].astype("float64").fillna(0) > 0).to_numpy()
        for k, column in enumerate(("forecast_readers", *_RANGE)):
            gained = forecasts[column].to_numpy() - readers
            out[k][i] = max(so_far[i], so_far[i] + gained.sum())
            if audience[i] > 0:
                out[3 + k][i] = max(rated[i], rated[i] + gained[rated_posts].sum()) / audience[i]
    return Heading(*out)


def _check_same_posts(frame: pd.DataFrame, outlook: pd.DataFrame) -> None:
    missing = [c for c in (*_OUTLOOK, *_RANGE) if c not in outlook.columns]
    if missing or "audience" not in frame.columns:
        raise InvalidParameterError(
            "outlook", "give wh.outlook() beside wh.engagement_over_time() (with audience)"
        )
    mine, theirs = frame.attrs.get("filters") or {}, outlook.attrs.get("filters") or {}
    if mine != theirs:
        raise InvalidParameterError(
            "outlook",
            f"is of other posts ({theirs or 'all'}) than the chart's ({mine or 'all'}): "
            "ask both with the same channel, tag, priority and author",
        )


def heading_trace(
    x: pd.Series,
    values: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    label: str,
    color: str,
    number: str,
    period_hover: str,
) -> go.Scatter:
    """Where the rows still gathering readers are heading: a dashed line through each row's
    forecast, its range as error bars, "<label> heading for" in the legend and hover."""
    centre, low, high = values
    return go.Scatter(
        x=x,
        y=centre,
        name=f"{label} {HEADING}",
        mode="lines+markers",
        line={"dash": "dot", "color": color, "width": 2},
        marker={"symbol": "diamond-open", "size": 9, "color": color},
        error_y={
            "type": "data",
            "symmetric": False,
            "array": high - centre,
            "arrayminus": centre - low,
            "color": color,
            "thickness": 1.5,
            "width": 6,
        },
        customdata=np.column_stack([low, high]),
        hovertemplate=(
            f"{period_hover}<br>{GATHERING.capitalize()}<br>{label} {HEADING} "
            f"%{{y:{number}}} (%{{customdata[0]:{number}}}–%{{customdata[1]:{number}}})"
            "<extra></extra>"
        ),
        connectgaps=False,
    )
