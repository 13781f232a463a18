"""How fast posts reach people, and how audiences grow: the reach curve and subscribers."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from channelkit.display import kinds
from channelkit.display.columns import kind_of
from channelkit.plots.style import (
    COUNT,
    HEIGHT,
    RATE,
    TEMPLATE,
    bar_marker,
    base_figure,
    local_wall_time,
    point_marker,
    title,
)


def reach_curve(frame: pd.DataFrame) -> go.Figure:
    """Share of their readers posts reach by each day after publishing (`Warehouse.reach_curve`)."""
    posts = frame.attrs.get("posts")
    what = "Share of readers reached by day after publication"
    if posts is not None:
        what += f" ({int(posts):,} posts)"
    fig = base_figure(frame, what)
    fig.add_trace(
        go.Scatter(
            x=frame["day"].astype("float64"),
            y=frame["share"].astype("float64"),
            mode="lines+markers",
            name="Share of readers",
            hovertemplate=f"Day %{{x}}<br>%{{y:{RATE}}} of readers reached<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="Days after publication (0 = the day of publication)", dtick=1)
    axis = (kind_of(frame, "share") or kinds.RATE).axis()
    fig.update_yaxes(title_text="Share of readers reached", range=[0, 1.02], **axis)
    return fig


def subscribers(frame: pd.DataFrame) -> go.Figure:
    """Subscribers at the end of each period (line) and net change (bars) (`Warehouse.subscribers`).

    With `by="channel"`, one line per channel and no bars.
    """
    freq = str(frame.attrs.get("freq", "week"))
    x = local_wall_time(frame["period"])
    if "channel" in frame.columns:
        fig = base_figure(frame, f"Subscribers by channel, end of each {freq}")
        for name, rows in frame.groupby("channel", sort=True):
            fig.add_trace(
                go.Scatter(
                    x=local_wall_time(rows["period"]),
                    y=rows["subscribers"].astype("float64"),
                    mode="lines+markers",
                    marker=point_marker(rows),
                    name=str(name),
                    hovertemplate=f"%{{x|%d %b %Y}}<br>Subscribers %{{y:{COUNT}}}<extra></extra>",
                )
            )
        fig.update_yaxes(title_text="Subscribers", rangemode="tozero")
        return fig
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Bar(
            x=x,
            y=frame["net"].astype("float64"),
            name="Net change",
            marker=bar_marker(frame),
            customdata=frame[["gained", "lost"]].astype("float64").to_numpy(),
            hovertemplate=(
                f"%{{x|%d %b %Y}}<br>Net %{{y:+,d}}<br>Gained %{{customdata[0]:{COUNT}}}<br>"
                f"Lost %{{customdata[1]:{COUNT}}}<extra></extra>"
            ),
        ),
        secondary_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=frame["subscribers"].astype("float64"),
            mode="lines+markers",
            marker=point_marker(frame),
            name="Subscribers",
            hovertemplate=f"%{{x|%d %b %Y}}<br>Subscribers %{{y:{COUNT}}}<extra></extra>",
        ),
        secondary_y=False,
    )
    fig.update_layout(
        template=TEMPLATE, title=title(frame, f"Subscribers by {freq}"), height=HEIGHT
    )
    fig.update_yaxes(title_text="Subscribers", secondary_y=False)
    fig.update_yaxes(title_text="Net change", secondary_y=True, showgrid=False)
    return fig
