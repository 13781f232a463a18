"""Will the young posts land, and how fast each channel's posts decay: the outlook and the
decay profiles (`Warehouse.outlook`, `Warehouse.decay_profiles`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit.plots.style import COUNT, MUTED, RATE, base_figure, safe_text

VERDICT_COLORS = {"behind": "#dc2626", "ahead": "#16a34a", "on track": "#2563eb"}
UNSAID = "#64748b"  # too early to say, too few settled posts


def outlook(frame: pd.DataFrame) -> go.Figure:
    """Each young post on its own line: its readers so far, where it is heading (the
    forecast with its 80% interval as a band) and its channel's usual settled range at its
    audience (grey), coloured by the verdict (`Warehouse.outlook`). Provisional."""
    days = frame.attrs.get("settled_days")
    fig = base_figure(frame, "Where young posts are heading (provisional)")
    names = [
        f"{safe_text(str(t))} · day {int(a)}"
        for t, a in zip(frame["title"], frame["age_days"], strict=True)
    ]
    usual_low = frame["usual_low"].astype("float64")
    usual_high = frame["usual_high"].astype("float64")
    fig.add_trace(
        go.Bar(
            y=names,
            x=usual_high - usual_low,
            base=usual_low,
            orientation="h",
            marker={"color": MUTED},
            opacity=0.5,
            name="Channel's usual settled range",
            hovertemplate=f"Usual %{{base:{COUNT}}} to %{{x:{COUNT}}} more<extra></extra>",
        )
    )
    low = frame["forecast_low"].astype("float64")
    high = frame["forecast_high"].astype("float64")
    forecast = frame["forecast_readers"].astype("float64")
    colors = [VERDICT_COLORS.get(str(v), UNSAID) for v in frame["verdict"]]
    fig.add_trace(
        go.Scatter(
            y=names,
            x=forecast,
            mode="markers",
            marker={"color": colors, "size": 11, "symbol": "diamond"},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": (high - forecast).to_numpy(),
                "arrayminus": (forecast - low).to_numpy(),
            },
            customdata=frame[["verdict"]].astype(str).to_numpy(),
            name="Forecast of settled readers (80% interval)",
            hovertemplate=f"Heading for %{{x:{COUNT}}}: %{{customdata[0]}}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            y=names,
            x=frame["readers"].astype("float64"),
            mode="markers",
            marker={"color": "#1f2937", "size": 8},
            name="Readers so far",
            hovertemplate=f"%{{x:{COUNT}}} readers so far<extra></extra>",
        )
    )
    settled = f" (settled at {int(days)} days)" if days is not None else ""
    fig.update_xaxes(title_text=f"Readers{settled}", rangemode="tozero")
    fig.update_yaxes(autorange="reversed")
    return fig


def decay_profiles(frame: pd.DataFrame) -> go.Figure:
    """The share of its settled readers a channel's post has by each UTC day after its
    publication, one line per channel (`Warehouse.decay_profiles`). Daily rows cannot see
    hours: day 0 holds the readers of the day of publication, whatever its hour."""
    fig = base_figure(frame, "Share of settled readers by day after publication")
    for name, rows in frame.groupby("channel", sort=True):
        half = rows["days_to_50"].iloc[0]
        ninety = rows["days_to_90"].iloc[0]
        fig.add_trace(
            go.Scatter(
                x=rows["day"].astype("float64"),
                y=rows["share_by_day"].astype("float64"),
                mode="lines+markers",
                name=f"{safe_text(str(name))} (50% by day {half:g}, 90% by day {ninety:g})",
                hovertemplate=f"Day %{{x}}<br>%{{y:{RATE}}} of settled readers<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="UTC days after publication (0 = the day of publication)", dtick=1)
    fig.update_yaxes(title_text="Share of settled readers", tickformat=".0%", range=[0, 1.02])
    return fig
