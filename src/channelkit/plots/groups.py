"""Figures comparing groups of posts: channels, tags and priorities."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import FAIR_MIN_BASE, PLOT_COLORS
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
    """Horizontal bars of `adjusted_vs_expected` per group (readers against what their
    channels' read rates expect, adjusted for audience size: the fair ranking's number)
    with the 95% interval of `vs_expected`, first group at the top, a line at 1 (as
    expected). Each bar carries its number of posts at its base, where neither the line
    at 1 nor a narrow screen can cover it."""
    small = frame["too_few_to_rank"].fillna(True).astype(bool)
    n = frame.attrs.get("small_sample_n")
    fig = base_figure(frame, what)
    ordered = frame.iloc[::-1]  # plotly draws the first category at the bottom
    adjusted = ordered["adjusted_vs_expected"].astype("float64")
    low = ordered["vs_expected_low"].astype("float64")
    high = ordered["vs_expected_high"].astype("float64")
    hover = pd.DataFrame(
        {
            "posts": ordered["posts"],
            "read_rate": ordered["read_rate"],
            "readers": ordered["readers"],
            "vs_expected": ordered["vs_expected"],
            "low": low,
            "high": high,
            "lift": ordered["lift"],
        }
    ).astype("float64")
    fig.add_trace(
        go.Bar(
            x=adjusted,
            y=labels[::-1],
            orientation="h",
            error_x=go.bar.ErrorX(
                type="data",
                symmetric=False,
                # The interval is the raw ratio's; the bar, shrunk, stays inside it but
                # for the smallest groups: never a negative whisker.
                array=(high - adjusted).clip(lower=0).to_numpy(),
                arrayminus=(adjusted - low).clip(lower=0).to_numpy(),
                color="#6b7280",
            ),
            marker={"color": [MUTED if s else PLOT_COLORS[0] for s in small.iloc[::-1]]},
            text=[f"n={int(p)}" for p in ordered["posts"]],
            textposition="inside",
            insidetextanchor="start",
            textfont={"size": 12},
            customdata=hover.to_numpy(),
            hovertemplate=(
                f"%{{y}}<br>Readers vs expected %{{x:{RATIO}}}× (adjusted for audience size)"
                f"<br>Unadjusted %{{customdata[3]:{RATIO}}}× (95%: %{{customdata[4]:{RATIO}}}"
                f"–%{{customdata[5]:{RATIO}}})<br>"
                f"Posts %{{customdata[0]:{COUNT}}}<br>"
                f"Read rate %{{customdata[1]:{RATE}}}<br>"
                f"Readers %{{customdata[2]:{COUNT}}}<br>"
                f"Median lift %{{customdata[6]:{RATIO}}}×<extra></extra>"
            ),
            name=key,
            showlegend=False,
        )
    )
    fig.add_vline(x=1, line={"color": "#6b7280", "dash": "dot", "width": 1})
    fig.update_xaxes(
        title_text="Readers vs expected, adjusted for audience size (1 = as expected)",
        **round_axis(max(top_of(frame["vs_expected_high"]), top_of(frame["adjusted_vs_expected"]))),
    )
    fig.update_yaxes(automargin=True)
    fig.update_layout(
        height=max(260, 150 + _BAR_HEIGHT * len(frame)),
        uniformtext={"minsize": 10, "mode": "show"},
    )
    if small.any() and n is not None:
        fig.add_annotation(
            text=f"grey: too few to rank (under {n} posts or an audience under {FAIR_MIN_BASE})",
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
    """Readers vs expected of the `top` most-used tags (`Warehouse.tag_performance`),
    adjusted for audience size, with its 95% interval: how their posts were read against
    what their own channels' read rates expect."""
    shown = frame.head(top)
    what = "Readers vs expected by tag"
    if len(frame) > top:
        what += f" (the {top} most-used of {len(frame)})"
    return _group_bars(shown, "tag", _labels(shown, "tag", 30), what)


def priority_impact(frame: pd.DataFrame) -> go.Figure:
    """Readers vs expected of each priority (`Warehouse.priority_impact`), adjusted for
    audience size, with its 95% interval."""
    return _group_bars(
        frame, "priority", _labels(frame, "priority", 30), "Readers vs expected by priority"
    )
