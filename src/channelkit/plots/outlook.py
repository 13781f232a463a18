"""Will the young posts land, and how fast each channel's posts decay: the outlook and the
decay profiles (`Warehouse.outlook`, `Warehouse.decay_profiles`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit._constants import PLOT_OUTLOOK_MAX_ROWS, PLOT_OUTLOOK_ROW_PX
from channelkit.plots.style import COUNT, HEIGHT, MUTED, RATE, TOP_MARGIN, base_figure, safe_text

# Each verdict's colour and its words in the legend.
VERDICTS = {
    "behind": ("#dc2626", "Behind: heading below its channel's usual range"),
    "on track": ("#2563eb", "On track: heading inside the usual range"),
    "ahead": ("#16a34a", "Ahead: heading above the usual range"),
    "too early to say": ("#64748b", "Too early to say"),
    "too few settled posts to forecast": ("#94a3b8", "No forecast: too few settled posts"),
}
UNSAID = "#64748b"


def outlook(frame: pd.DataFrame, page: int = 1) -> go.Figure:
    """Each young post on its own row (its id on the axis, its title as the label): its
    readers so far, where it is heading (the forecast with its 80% interval) and its
    channel's usual settled range at its audience (grey), the forecast coloured by the
    verdict, each colour named in the legend (`Warehouse.outlook`). Provisional. The
    figure grows with its posts; past PLOT_OUTLOOK_MAX_ROWS posts, `page` 2, 3, ... draws
    the next ones (the title says which)."""
    pages = max(1, -(-len(frame) // PLOT_OUTLOOK_MAX_ROWS))
    first = (min(max(page, 1), pages) - 1) * PLOT_OUTLOOK_MAX_ROWS
    rows = frame.iloc[first : first + PLOT_OUTLOOK_MAX_ROWS]
    paged = f", posts {first + 1}–{first + len(rows)} of {len(frame)}" if pages > 1 else ""
    fig = base_figure(frame, f"Where young posts are heading (provisional{paged})")
    ids = rows["post_id"].astype(str).tolist()
    labels = [
        f"{safe_text(str(t))} · day {int(a)}"
        for t, a in zip(rows["title"], rows["age_days"], strict=True)
    ]
    usual_low = rows["usual_low"].astype("float64")
    usual_high = rows["usual_high"].astype("float64")
    fig.add_trace(
        go.Bar(
            y=ids,
            x=usual_high - usual_low,
            base=usual_low,
            orientation="h",
            marker={"color": MUTED},
            opacity=0.5,
            name="Channel's usual settled range",
            customdata=rows[["usual_low", "usual_high"]].astype("float64").to_numpy(),
            hovertemplate=(
                f"Usual %{{customdata[0]:{COUNT}}}–%{{customdata[1]:{COUNT}}}<extra></extra>"
            ),
        )
    )
    for verdict, part in rows.groupby(rows["verdict"].astype(str), sort=False):
        color, words = VERDICTS.get(str(verdict), (UNSAID, str(verdict)))
        forecast = part["forecast_readers"].astype("float64")
        fig.add_trace(
            go.Scatter(
                y=part["post_id"].astype(str),
                x=forecast,
                mode="markers",
                marker={"color": color, "size": 11, "symbol": "diamond"},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["forecast_high"].astype("float64") - forecast).to_numpy(),
                    "arrayminus": (forecast - part["forecast_low"].astype("float64")).to_numpy(),
                    "color": color,
                },
                customdata=part[["forecast_low", "forecast_high", "settles_by_day"]]
                .astype("float64")
                .to_numpy(),
                name=f"{words} (forecast, 80% interval)",
                hovertemplate=(
                    f"Heading for %{{x:{COUNT}}} (%{{customdata[0]:{COUNT}}}–"
                    f"%{{customdata[1]:{COUNT}}}) by day %{{customdata[2]}}: {verdict}"
                    "<extra></extra>"
                ),
            )
        )
    fig.add_trace(
        go.Scatter(
            y=ids,
            x=rows["readers"].astype("float64"),
            mode="markers",
            marker={"color": "#1f2937", "size": 8},
            name="Readers so far",
            hovertemplate=f"%{{x:{COUNT}}} readers so far<extra></extra>",
        )
    )
    fig.update_xaxes(
        title_text="Readers (whole): each post's by the day its channel's posts settle",
        rangemode="tozero",
        tickformat=COUNT,
    )
    fig.update_yaxes(
        autorange="reversed",
        type="category",
        categoryorder="array",
        categoryarray=ids,
        tickmode="array",
        tickvals=ids,
        ticktext=labels,
    )
    # One row a post, the legend below them: the figure is sized to its rows.
    legend = 30 * (len(VERDICTS) + 2)
    fig.update_layout(
        height=max(HEIGHT, TOP_MARGIN + PLOT_OUTLOOK_ROW_PX * len(rows) + legend),
        legend={"orientation": "v", "y": -legend / (PLOT_OUTLOOK_ROW_PX * max(len(rows), 1))},
    )
    return fig


def decay_profiles(frame: pd.DataFrame) -> go.Figure:
    """The share of the readers a channel's posts end with that they have by each UTC day
    after publication, one line per channel, a ring on the day its posts settle
    (`Warehouse.decay_profiles`). Daily rows cannot see hours: day 0 holds the readers of
    the day of publication, whatever its hour."""
    spread = frame.attrs.get("spread", "10–90% of posts")
    fig = base_figure(frame, "Share of final readers by day after publication")
    for name, rows in frame.groupby("channel", sort=True):
        first = rows.iloc[0]
        half, ninety, settles = (
            first["days_to_50"],
            first["days_to_90"],
            int(first["settles_by_day"]),
        )
        line = fig.add_trace(
            go.Scatter(
                x=rows["day"].astype("float64"),
                y=rows["share_by_day"].astype("float64"),
                mode="lines+markers",
                name=(
                    f"{safe_text(str(name))}: 50% by day {half:g}, 90% by day {ninety:g} "
                    f"({spread}: days {first['days_to_90_low']:g}–{first['days_to_90_high']:g}); "
                    f"settles by day {settles}"
                ),
                legendgroup=str(name),
                hovertemplate=f"Day %{{x}}<br>%{{y:{RATE}}} of final readers<extra></extra>",
            )
        )
        color = line.data[-1].line.color
        at = rows[rows["day"] == settles]
        fig.add_trace(
            go.Scatter(
                x=at["day"].astype("float64"),
                y=at["share_by_day"].astype("float64"),
                mode="markers",
                marker={"symbol": "circle-open", "size": 16, "line": {"width": 2}, "color": color},
                legendgroup=str(name),
                showlegend=False,
                name=f"{safe_text(str(name))} settles",
                hovertemplate=f"{safe_text(str(name))}'s posts settle by day %{{x}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="UTC days after publication (0 = the day of publication)", dtick=1)
    fig.update_yaxes(title_text="Share of final readers", tickformat=".0%", range=[0, 1.02])
    return fig
