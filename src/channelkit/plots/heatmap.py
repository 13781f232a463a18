"""The weekday × hour heatmap of publishing against the readers those posts reached."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from channelkit._labels import WEEKDAYS
from channelkit.plots.style import COUNT, HEIGHT, TEMPLATE, title


def publishing_heatmap(frame: pd.DataFrame) -> go.Figure:
    """Two heatmaps side by side: posts published per slot, and readers per post published.

    `frame` is `Warehouse.publishing_heatmap(...)`; hours are local to its timezone.
    """
    days = list(WEEKDAYS)
    hours = list(range(24))

    def grid(column: str) -> list[list[float | None]]:
        table = frame.pivot(index="weekday_name", columns="hour", values=column)
        table = table.reindex(index=days, columns=hours).astype("float64")
        return [[None if pd.isna(v) else float(v) for v in row] for row in table.to_numpy()]

    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=("Posts published", "Readers per post published"),
    )
    panels = (
        ("posts_published", "Posts published", "Blues"),
        ("readers_per_post", "Readers per post", "Oranges"),
    )
    for col, (column, label, colorscale) in enumerate(panels, start=1):
        fig.add_trace(
            go.Heatmap(
                z=grid(column),
                x=hours,
                y=days,
                colorscale=colorscale,
                showscale=False,
                hovertemplate=f"%{{y}} %{{x}}:00<br>{label} %{{z:{COUNT}}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    tz = frame.attrs.get("tz", "UTC")
    fig.update_layout(
        template=TEMPLATE,
        title=title(frame, f"When posts are published (hours in {tz})"),
        height=HEIGHT,
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text="Hour of publication", dtick=3)
    return fig
