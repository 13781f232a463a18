"""Figures comparing groups of posts: channels, tags and priorities."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import PLOT_COLORS
from channelkit.plots.style import COUNT, MUTED, RATE, RATIO, base_figure, safe_text


def channel_comparison(frame: pd.DataFrame) -> go.Figure:
    """Reach per channel: views in the period per subscriber (`Warehouse.channel_comparison`).

    Subscriber counts are those of the last sync, which the subtitle says.
    """
    fig = base_figure(frame, "Views per subscriber by channel (subscribers as of the last sync)")
    hover = frame[["views", "subscriber_count", "posts_published", "engagement_rate"]].astype(
        "float64"
    )
    fig.add_trace(
        go.Bar(
            x=[safe_text(name) for name in frame["channel_name"]],
            y=frame["views_per_subscriber"].astype("float64"),
            customdata=hover.to_numpy(),
            hovertemplate=(
                f"%{{x}}<br>Views per subscriber %{{y:{RATIO}}}<br>"
                f"Views %{{customdata[0]:{COUNT}}}<br>"
                f"Subscribers %{{customdata[1]:{COUNT}}}<br>"
                f"Posts published %{{customdata[2]:{COUNT}}}<br>"
                f"Engagement rate %{{customdata[3]:{RATE}}}<extra></extra>"
            ),
        )
    )
    fig.update_yaxes(title_text="Views per subscriber")
    return fig


def _group_bars(frame: pd.DataFrame, key: str, labels: list[str], what: str) -> go.Figure:
    small = frame["small_sample"].fillna(False).astype(bool)
    n = frame.attrs.get("small_sample_n")
    fig = base_figure(frame, what)
    hover = frame[["posts", "median_engagement_rate", "views"]].astype("float64")
    fig.add_trace(
        go.Bar(
            x=labels,
            y=frame["median_views"].astype("float64"),
            marker={"color": [MUTED if s else PLOT_COLORS[0] for s in small]},
            text=[f"n={int(p)}" for p in frame["posts"]],
            textposition="outside",
            customdata=hover.to_numpy(),
            hovertemplate=(
                f"%{{x}}<br>Median views per post %{{y:{COUNT}}}<br>"
                f"Posts %{{customdata[0]:{COUNT}}}<br>"
                f"Median engagement rate %{{customdata[1]:{RATE}}}<br>"
                f"Views in total %{{customdata[2]:{COUNT}}}<extra></extra>"
            ),
            name=key,
            showlegend=False,
        )
    )
    fig.update_yaxes(title_text="Median views per post")
    if small.any() and n is not None:
        fig.add_annotation(
            text=f"grey: fewer than {n} posts, too few to compare",
            xref="paper",
            yref="paper",
            x=1,
            y=1.06,
            showarrow=False,
            xanchor="right",
            font={"size": 11, "color": "#6b7280"},
        )
    return fig


def tag_performance(frame: pd.DataFrame, top: int = 20) -> go.Figure:
    """Median views per post for the `top` most-used tags (`Warehouse.tag_performance`)."""
    shown = frame.head(top)
    labels = [safe_text(tag, 30) for tag in shown["tag"]]
    what = "Median views per post by tag"
    if len(frame) > top:
        what += f" (the {top} most-used of {len(frame)} tags)"
    return _group_bars(shown, "tag", labels, what)


def priority_impact(frame: pd.DataFrame) -> go.Figure:
    """Median views per post for each priority (`Warehouse.priority_impact`)."""
    labels = [str(p) for p in frame["priority"]]
    return _group_bars(frame, "priority", labels, "Median views per post by priority")
