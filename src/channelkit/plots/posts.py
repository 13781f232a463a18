"""Figures about single posts: the top posts and the upcoming scheduled ones."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit.display import kinds
from channelkit.display.columns import kind_of
from channelkit.plots.style import COUNT, RATE, base_figure, local_wall_time, safe_text

_TABLE_BASE_HEIGHT = 160
_TABLE_ROW_HEIGHT = 28


_BY_WORDS = {
    "readers": "readers",
    "read_rate": "read rate",
    "opens": "opens",
    "engagement_rate": "engagement rate",
}


def top_posts(frame: pd.DataFrame) -> go.Figure:
    """Horizontal bars of the top posts, best at the top.

    `frame` is `Warehouse.top_posts(...)`; the bars show what it was ranked by
    (`frame.attrs["by"]`: readers, read rate, opens or engagement rate).
    """
    by = str(frame.attrs.get("by", "readers"))
    kind = kind_of(frame, by) or kinds.NUMBER
    ordered = frame.iloc[::-1]  # plotly draws the first category at the bottom
    labels = [
        f"{rank}. {safe_text(title)}"
        for rank, title in zip(ordered["rank"], ordered["title"], strict=True)
    ]
    hover_cols = ordered[["readers", "read_rate", "opens", "engagement_rate"]].astype("float64")
    channels = [safe_text(name) for name in ordered["channel"]]
    what = f"Top posts by {_BY_WORDS.get(by, by)}"
    min_opens = frame.attrs.get("min_opens")
    if by == "engagement_rate" and min_opens:
        what += f" (at least {min_opens:,} opens)"
    fig = base_figure(frame, what)
    fig.add_trace(
        go.Bar(
            x=ordered[by].astype("float64"),
            y=labels,
            orientation="h",
            customdata=list(zip(channels, *(hover_cols[c] for c in hover_cols), strict=True)),
            hovertemplate=(
                "%{y}<br>%{customdata[0]}<br>"
                f"Readers %{{customdata[1]:{COUNT}}}<br>"
                f"Read rate %{{customdata[2]:{RATE}}}<br>"
                f"Opens %{{customdata[3]:{COUNT}}}<br>"
                f"Engagement rate %{{customdata[4]:{RATE}}}<extra></extra>"
            ),
        )
    )
    fig.update_xaxes(title_text=_BY_WORDS.get(by, by).capitalize(), **kind.axis())
    fig.update_yaxes(automargin=True)
    fig.update_layout(height=max(300, 60 + 32 * len(frame)))
    return fig


def low_reach(frame: pd.DataFrame) -> go.Figure:
    """Posts read far less than usual in their channel (`Warehouse.low_reach`): each post's
    read rate (bar) beside its channel's median read rate (marker), worst at the top."""
    ordered = frame.iloc[::-1]
    labels = [
        f"{safe_text(t)} · {safe_text(c, 20)}"
        for t, c in zip(ordered["title"], ordered["channel"], strict=True)
    ]
    fig = base_figure(frame, "Posts with low reach")
    fig.add_trace(
        go.Bar(
            x=ordered["read_rate"].astype("float64"),
            y=labels,
            orientation="h",
            name="Read rate",
            customdata=ordered[["readers", "audience"]].astype("float64").to_numpy(),
            hovertemplate=(
                f"%{{y}}<br>Read rate %{{x:{RATE}}}<br>Readers %{{customdata[0]:{COUNT}}}<br>"
                f"Audience %{{customdata[1]:{COUNT}}}<extra></extra>"
            ),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=ordered["channel_median"].astype("float64"),
            y=labels,
            mode="markers",
            name="Channel median",
            marker={"symbol": "line-ns-open", "size": 18, "line": {"width": 3}},
            hovertemplate=f"%{{y}}<br>Channel median %{{x:{RATE}}}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="Read rate", rangemode="tozero", **kinds.RATE.axis())
    fig.update_yaxes(automargin=True)
    fig.update_layout(height=max(300, 80 + 32 * len(frame)))
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
