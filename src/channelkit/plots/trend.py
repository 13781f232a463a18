"""One metric over time: the Explorer's trend chart."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit._labels import METRIC_LABELS
from channelkit.display.columns import column_kind
from channelkit.errors import InvalidParameterError
from channelkit.plots.style import (
    COUNT,
    HEIGHT,
    RATE,
    TEMPLATE,
    local_wall_time,
    point_marker,
    title,
)


def metric_over_time(frame: pd.DataFrame, metric: str) -> go.Figure:
    """`metric` (a column of `Warehouse.engagement_over_time(...)`) as a line by period.

    trend = wh.engagement_over_time("week", period="2026-Q4")
    ck.plots.metric_over_time(trend, "read_rate")
    """
    if metric not in frame.columns or metric == "period":
        choices = ", ".join(c for c in frame.columns if c != "period")
        raise InvalidParameterError("metric", f"{metric!r} is not one of {choices}")
    fig = go.Figure(go.Scatter(mode="lines+markers"))
    fig.update_layout(template=TEMPLATE, height=HEIGHT)
    return redraw(fig, frame, metric)


def redraw(fig: go.Figure, frame: pd.DataFrame, metric: str) -> go.Figure:
    """`fig` (made by `metric_over_time`) showing `frame`'s `metric` instead.

    Much faster than a new figure (plotly merges its templates for every new one): the
    Explorer redraws one figure as the user clicks.
    """
    label = METRIC_LABELS.get(metric, metric)
    rate = column_kind(metric) == "rate"
    freq = str(frame.attrs.get("freq", "day"))
    with fig.batch_update():
        fig.data[0].update(
            x=local_wall_time(frame["period"]),
            y=frame[metric].astype("float64"),
            name=label,
            marker=point_marker(frame),
            hovertemplate=f"%{{x|%d %b %Y}}<br>{label} %{{y:{RATE if rate else COUNT}}}"
            "<extra></extra>",
        )
        fig.layout.title = title(frame, f"{label} by {freq}")
        fig.layout.yaxis.update(
            title_text=label, tickformat=".0%" if rate else "~s", rangemode="tozero"
        )
    return fig
