"""One metric over time: the Explorer's trend chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import PLOT_COLORS
from channelkit._labels import METRIC_LABELS
from channelkit.display.columns import kind_of
from channelkit.display.kinds import NUMBER
from channelkit.errors import InvalidParameterError
from channelkit.plots import gathering as marks
from channelkit.plots.style import (
    HEIGHT,
    TEMPLATE,
    local_wall_time,
    point_marker,
    title,
)


def metric_over_time(
    frame: pd.DataFrame, metric: str, outlook: pd.DataFrame | None = None
) -> go.Figure:
    """`metric` (a column of `Warehouse.engagement_over_time(...)`) as a line by period.

    trend = wh.engagement_over_time("week", period="2026-Q4")
    ck.plots.metric_over_time(trend, "read_rate", outlook=wh.outlook())

    For readers and read rate, the periods whose posts are still gathering readers are
    marked and, with `outlook` (`wh.outlook()` of the same filters), where they are heading.
    """
    if metric not in frame.columns or metric == "period":
        choices = ", ".join(c for c in frame.columns if c != "period")
        raise InvalidParameterError("metric", f"{metric!r} is not one of {choices}")
    fig = go.Figure(go.Scatter(mode="lines+markers"))
    fig.update_layout(template=TEMPLATE, height=HEIGHT)
    return redraw(fig, frame, metric, outlook)


def redraw(
    fig: go.Figure, frame: pd.DataFrame, metric: str, outlook: pd.DataFrame | None = None
) -> go.Figure:
    """`fig` (made by `metric_over_time`) showing `frame`'s `metric` instead.

    Much faster than a new figure (plotly merges its templates for every new one): the
    Explorer redraws one figure as the user clicks.
    """
    label = METRIC_LABELS.get(metric, metric)
    kind = kind_of(frame, metric) or NUMBER
    freq = str(frame.attrs.get("freq", "day"))
    x = local_wall_time(frame["period"])
    growing = metric in marks.GROWING
    marked = frame if growing else frame.drop(columns="provisional", errors="ignore")
    settled, young = marks.split_line(marked, frame[metric])
    words = np.array(marks.gathering_words(marked), dtype=object)[:, None]
    hover = f"%{{x|%d %b %Y}}<br>{label} {kind.hover('y')}%{{customdata[0]}}<extra></extra>"
    line = {"color": PLOT_COLORS[0]}
    with fig.batch_update():
        fig.data = fig.data[:1]
        fig.data[0].update(
            x=x,
            y=settled,
            name=label,
            marker=point_marker(frame),
            line=line,
            customdata=words,
            hovertemplate=hover,
            showlegend=True,
        )
        if marks.gathering(marked).any():
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=young,
                    name=f"{label} so far",
                    mode="lines+markers",
                    marker=point_marker(frame),
                    line={**line, "dash": "dash"},
                    customdata=words,
                    hovertemplate=hover,
                )
            )
        ahead = marks.heading(marked, outlook) if growing else None
        if ahead is not None and ahead.known:
            fig.add_trace(
                marks.heading_trace(
                    x,
                    ahead.of(metric),
                    label=label,
                    color=PLOT_COLORS[0],
                    number=kind.number,
                    period_hover="%{x|%d %b %Y}",
                )
            )
        marks.mark_gathering(fig, marked, x)
        fig.layout.showlegend = len(fig.layout.shapes) > 0
        fig.layout.title = title(frame, f"{label} by {freq}")
        fig.layout.yaxis.update(title_text=label, rangemode="tozero", **kind.axis())
    return fig
