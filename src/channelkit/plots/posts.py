"""Figures about single posts: the top posts and the upcoming scheduled ones."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit.plots.style import COUNT, RATE, base_figure, local_wall_time, safe_text

_TABLE_BASE_HEIGHT = 160
_TABLE_ROW_HEIGHT = 28


def top_posts(frame: pd.DataFrame) -> go.Figure:
    """Horizontal bars of the top posts, best at the top.

    `frame` is `Warehouse.top_posts(...)`; the bars show what it was ranked by
    (`frame.attrs["by"]`: views or engagement rate).
    """
    by = str(frame.attrs.get("by", "views"))
    is_rate = by == "engagement_rate"
    ordered = frame.iloc[::-1]  # plotly draws the first category at the bottom
    labels = [
        f"{rank}. {safe_text(title)}"
        for rank, title in zip(ordered["rank"], ordered["title"], strict=True)
    ]
    hover_cols = ordered[["views", "engagements", "engagement_rate"]].astype("float64")
    channels = [safe_text(name) for name in ordered["channel_name"]]
    what = "Top posts by engagement rate" if is_rate else "Top posts by views"
    min_views = frame.attrs.get("min_views")
    if is_rate and min_views:
        what += f" (at least {min_views:,} views)"
    fig = base_figure(frame, what)
    fig.add_trace(
        go.Bar(
            x=ordered[by].astype("float64"),
            y=labels,
            orientation="h",
            customdata=list(zip(channels, *(hover_cols[c] for c in hover_cols), strict=True)),
            hovertemplate=(
                "%{y}<br>%{customdata[0]}<br>"
                f"Views %{{customdata[1]:{COUNT}}}<br>"
                f"Engagements %{{customdata[2]:{COUNT}}}<br>"
                f"Engagement rate %{{customdata[3]:{RATE}}}<extra></extra>"
            ),
        )
    )
    fig.update_xaxes(
        title_text="Engagement rate" if is_rate else "Views", tickformat=".0%" if is_rate else "~s"
    )
    fig.update_yaxes(automargin=True)
    fig.update_layout(height=max(300, 60 + 32 * len(frame)))
    return fig


def upcoming_scheduled(frame: pd.DataFrame) -> go.Figure:
    """A table of the scheduled posts, soonest first (`Warehouse.upcoming_scheduled`)."""
    fig = base_figure(frame, "Upcoming scheduled posts")
    when = local_wall_time(frame["scheduled_at"]).dt.strftime("%a %d %b %Y %H:%M")
    fig.add_trace(
        go.Table(
            header={"values": ["When", "Title", "Channel", "Priority"], "align": "left"},
            cells={
                "values": [
                    list(when),
                    [safe_text(t, 120) for t in frame["title"]],
                    [safe_text(c) for c in frame["channel_name"]],
                    [str(p) for p in frame["priority"]],
                ],
                "align": "left",
            },
        )
    )
    fig.update_layout(height=_TABLE_BASE_HEIGHT + _TABLE_ROW_HEIGHT * len(frame))
    return fig
