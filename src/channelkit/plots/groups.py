"""Figures comparing groups of posts: channels, tags and priorities."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import PLOT_COLORS
from channelkit.plots.style import (
    COUNT,
    MUTED,
    RATE,
    RATIO,
    base_figure,
    round_axis,
    safe_text,
    top_of,
)

_BAR_HEIGHT = 26  # px per horizontal bar: a label and its count stay legible on a phone


def channel_comparison(frame: pd.DataFrame) -> go.Figure:
    """Read rate per channel: readers ÷ audience of the posts published in the period, with
    its 95% interval, in the order of the frame (fair: adjusted for audience size).

    `frame` is `Warehouse.channel_comparison(...)`.
    """
    fig = base_figure(frame, "Read rate by channel")
    hover = frame[["readers", "audience", "posts_published", "opens", "engagement_rate"]]
    rate = frame["read_rate"].astype("float64")
    errors = None
    if "read_rate_low" in frame:  # the 95% interval, in the fair ranking's order
        errors = go.bar.ErrorY(
            type="data",
            symmetric=False,
            array=(frame["read_rate_high"].astype("float64") - rate).to_numpy(),
            arrayminus=(rate - frame["read_rate_low"].astype("float64")).to_numpy(),
        )
    fig.add_trace(
        go.Bar(
            x=[safe_text(name) for name in frame["channel"]],
            y=rate,
            error_y=errors,
            customdata=hover.astype("float64").to_numpy(),
            hovertemplate=(
                f"%{{x}}<br>Read rate %{{y:{RATE}}}<br>"
                f"Readers %{{customdata[0]:{COUNT}}}<br>"
                f"Audience %{{customdata[1]:{COUNT}}}<br>"
                f"Posts published %{{customdata[2]:{COUNT}}}<br>"
                f"Opens %{{customdata[3]:{COUNT}}}<br>"
                f"Engagement rate %{{customdata[4]:{RATE}}}<extra></extra>"
            ),
        )
    )
    fig.update_yaxes(title_text="Read rate", **round_axis(top_of(frame["read_rate"]), percent=True))
    return fig


def _group_bars(frame: pd.DataFrame, key: str, labels: list[str], what: str) -> go.Figure:
    """Horizontal bars of `lift` per group, first group at the top, a line at 1 (the
    channels' own median). Each bar carries its number of posts at its base, where
    neither the line at 1 nor a narrow screen can cover it."""
    small = frame["small_sample"].fillna(False).astype(bool)
    n = frame.attrs.get("small_sample_n")
    fig = base_figure(frame, what)
    ordered = frame.iloc[::-1]  # plotly draws the first category at the bottom
    hover = ordered[["posts", "read_rate", "readers", "opens"]].astype("float64")
    fig.add_trace(
        go.Bar(
            x=ordered["lift"].astype("float64"),
            y=labels[::-1],
            orientation="h",
            marker={"color": [MUTED if s else PLOT_COLORS[0] for s in small.iloc[::-1]]},
            text=[f"n={int(p)}" for p in ordered["posts"]],
            textposition="inside",
            insidetextanchor="start",
            textfont={"size": 12},
            customdata=hover.to_numpy(),
            hovertemplate=(
                f"%{{y}}<br>Lift %{{x:{RATIO}}}× the channel's median read rate<br>"
                f"Posts %{{customdata[0]:{COUNT}}}<br>"
                f"Read rate %{{customdata[1]:{RATE}}}<br>"
                f"Readers %{{customdata[2]:{COUNT}}}<br>"
                f"Opens %{{customdata[3]:{COUNT}}}<extra></extra>"
            ),
            name=key,
            showlegend=False,
        )
    )
    fig.add_vline(x=1, line={"color": "#6b7280", "dash": "dot", "width": 1})
    fig.update_xaxes(
        title_text="Lift (read rate ÷ channel median)", **round_axis(top_of(frame["lift"]))
    )
    fig.update_yaxes(automargin=True)
    fig.update_layout(
        height=max(260, 150 + _BAR_HEIGHT * len(frame)),
        uniformtext={"minsize": 10, "mode": "show"},
    )
    if small.any() and n is not None:
        fig.add_annotation(
            text=f"grey: fewer than {n} posts, too few to compare",
            xref="paper",
            yref="paper",
            x=1,
            y=0,
            yanchor="bottom",
            showarrow=False,
            xanchor="right",
            bgcolor="rgba(255,255,255,0.8)",
            font={"size": 11, "color": "#6b7280"},
        )
    return fig


def _labels(frame: pd.DataFrame, key: str, width: int) -> list[str]:
    names = [safe_text(v, width) for v in frame[key].astype(str)]
    if "channel" in frame.columns:
        return [f"{safe_text(c, 20)} · {n}" for c, n in zip(frame["channel"], names, strict=True)]
    return names


def tag_performance(frame: pd.DataFrame, top: int = 20) -> go.Figure:
    """Lift of the `top` most-used tags (`Warehouse.tag_performance`): how their posts'
    read rates compare with the median of their own channel."""
    shown = frame.head(top)
    what = "Read-rate lift by tag"
    if len(frame) > top:
        what += f" (the {top} most-used of {len(frame)})"
    return _group_bars(shown, "tag", _labels(shown, "tag", 30), what)


def priority_impact(frame: pd.DataFrame) -> go.Figure:
    """Lift of each priority (`Warehouse.priority_impact`), within channels."""
    return _group_bars(
        frame, "priority", _labels(frame, "priority", 30), "Read-rate lift by priority"
    )
