"""`plots.calendar`: upcoming posts on a timeline, one row per channel, coloured by priority."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from channelkit.errors import InvalidParameterError
from channelkit.plots.style import base_figure, local_wall_time, safe_text

# Fixed colours, so that "urgent" looks the same in every figure and report.
PRIORITY_COLOURS = {"normal": "#64748b", "high": "#2563eb", "urgent": "#dc2626"}
_ROW_HEIGHT = 48
_BASE_HEIGHT = 220


def calendar(frame: pd.DataFrame) -> go.Figure:
    """Each upcoming post as a dot at its time, in its channel's row, coloured by priority.

        ck.plots.calendar(wh.upcoming_scheduled(tz="Europe/Berlin"))
        ck.plots.calendar(plan.upcoming())          # a spreadsheet plan before submitting

    `frame` needs `scheduled_at` (tz-aware times are shown as wall time in their zone),
    `title`, `priority` and `channel_name` (or `channel`); rows without a time are left out.
    """
    channel_column = "channel_name" if "channel_name" in frame.columns else "channel"
    missing = {"scheduled_at", "title", "priority", channel_column} - set(frame.columns)
    if missing:
        raise InvalidParameterError(
            "frame",
            f"needs the columns {', '.join(sorted(missing))} (as Warehouse.upcoming_scheduled "
            "or Plan.upcoming give)",
        )
    shown = frame[frame["scheduled_at"].notna()]
    fig = base_figure(frame, "Posting calendar")
    when = local_wall_time(shown["scheduled_at"])
    channels = [safe_text(name) for name in shown[channel_column].fillna("(no channel)")]
    order = sorted(set(channels), key=str.casefold)
    for priority, colour in PRIORITY_COLOURS.items():
        picked = (shown["priority"].fillna("normal") == priority).to_numpy()
        if not picked.any():
            continue
        fig.add_trace(
            go.Scatter(
                x=when[picked],
                y=[name for name, keep in zip(channels, picked, strict=True) if keep],
                mode="markers",
                name=priority,
                marker={"color": colour, "size": 12, "symbol": "circle"},
                customdata=[safe_text(title, 120) for title in shown["title"][picked]],
                hovertemplate="%{customdata}<br>%{y}<br>%{x|%a %d %b %Y %H:%M}<extra>"
                + priority
                + "</extra>",
            )
        )
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], title_text="Channel")
    fig.update_xaxes(title_text="Scheduled (local time)")
    fig.update_layout(height=_BASE_HEIGHT + _ROW_HEIGHT * len(order), legend_title_text="Priority")
    return fig
