"""Figures of engagement over time and of the KPI tiles."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from channelkit._constants import PLOT_COLORS
from channelkit.display.columns import kind_of, kpi_kind
from channelkit.display.kinds import NUMBER, Kind
from channelkit.errors import InvalidParameterError
from channelkit.plots.gathering import (
    bar_look,
    gathering,
    gathering_words,
    heading,
    heading_trace,
    mark_gathering,
    split_line,
)
from channelkit.plots.style import (
    HEIGHT,
    TEMPLATE,
    bar_marker,
    local_wall_time,
    point_marker,
    round_axis,
    safe_text,
    title,
    top_of,
)

_PERIOD_FORMAT = {"day": "%a %d %b %Y", "week": "week of %d %b %Y", "month": "%B %Y"}
_TICK_FORMAT = {"day": "%d %b", "week": "%d %b", "month": "%b %Y"}
_MAX_LABELLED_PERIODS = 31
_TILE_HEIGHT = 170


def engagement_over_time(frame: pd.DataFrame, outlook: pd.DataFrame | None = None) -> go.Figure:
    """Readers of the posts published in each period (bars) and their read rate (line).

    `frame` is `Warehouse.engagement_over_time(...)` (totals, not `by="channel"`); opens
    and engagement rate are in the hover. The periods whose posts are still gathering
    readers are marked (`plots.gathering`); with `outlook` (`wh.outlook()` of the same
    filters), where they are heading too.

        ck.plots.engagement_over_time(wh.engagement_over_time(), outlook=wh.outlook())
    """
    freq = str(frame.attrs.get("freq", "day"))
    if "channel_id" in frame.columns:
        raise InvalidParameterError("frame", "draw engagement_over_time without by='channel'")
    x = local_wall_time(frame["period"])
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    period_hover = f"%{{x|{_PERIOD_FORMAT.get(freq, '%d %b %Y')}}}"
    hover = frame[["posts_published", "opens", "engagement_rate"]].astype("float64")
    words = np.array(gathering_words(frame), dtype=object)[:, None]
    kind = _kinds(frame)
    fig.add_trace(
        go.Bar(
            x=x,
            y=frame["readers"].astype("float64"),
            name="Readers",
            marker=bar_look(frame, bar_marker(frame)),
            customdata=np.hstack([hover.to_numpy(dtype=object), words]),
            hovertemplate=(
                f"{period_hover}<br>Readers {kind['readers'].hover('y')}%{{customdata[3]}}<br>"
                f"Posts published {kind['posts_published'].hover('customdata[0]')}<br>"
                f"Opens {kind['opens'].hover('customdata[1]')}<br>"
                f"Engagement rate {kind['engagement_rate'].hover('customdata[2]')}<extra></extra>"
            ),
        ),
        secondary_y=False,
    )
    settled, growing = split_line(frame, frame["read_rate"])
    parts = [(settled, "solid", True), (growing, "dash", False)][
        : 2 if gathering(frame).any() else 1
    ]
    for y, dash, shown in parts:
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                name="Read rate",
                legendgroup="read_rate",
                showlegend=shown,
                mode="lines+markers",
                line={"color": PLOT_COLORS[1], "dash": dash},
                marker=point_marker(frame),
                customdata=words,
                hovertemplate=(
                    f"{period_hover}<br>Read rate {kind['read_rate'].hover('y')}%{{customdata[0]}}"
                    "<extra></extra>"
                ),
            ),
            secondary_y=True,
        )
    ahead = heading(frame, outlook)
    if ahead.known:
        for column, label, color, right in (
            ("readers", "Readers", PLOT_COLORS[0], False),
            ("read_rate", "Read rate", PLOT_COLORS[1], True),
        ):
            trace = heading_trace(
                x,
                ahead.of(column),
                label=label,
                color=color,
                number=kind[column].number,
                period_hover=period_hover,
            )
            fig.add_trace(trace, secondary_y=right)
    mark_gathering(fig, frame, x)
    fig.update_layout(
        template=TEMPLATE,
        title=title(frame, f"Readers and read rate by {freq}"),
        bargap=0.15,
        height=HEIGHT,
    )
    # One tick per bar when they fit, so a week's bar is labelled with its Monday.
    ticks = list(x) if len(x) <= _MAX_LABELLED_PERIODS else None
    fig.update_xaxes(tickvals=ticks, tickformat=_TICK_FORMAT.get(freq, "%d %b"))
    fig.update_yaxes(title_text="Readers", secondary_y=False, **kind["readers"].axis())
    top = max(top_of(frame["read_rate"]), top_of(pd.Series(ahead.rate_high)))
    fig.update_yaxes(
        title_text="Read rate",
        secondary_y=True,
        showgrid=False,
        **round_axis(top, percent=True),
    )
    return fig


def kpi_tiles(frame: pd.DataFrame, metrics: list[str] | None = None, columns: int = 3) -> go.Figure:
    """One indicator per KPI: the value and its change against the previous period.

    `frame` is `Warehouse.kpis(...)`; `metrics` picks and orders rows by their `metric`.
    A missing value (e.g. a rate without opens) shows as "n/a"; a missing delta (an
    incomplete period) shows the value alone.
    """
    if "channel_id" in frame.columns:
        raise InvalidParameterError("frame", "draw kpi_tiles from kpis() without by='channel'")
    rows = frame.set_index("metric")
    names = list(rows.index) if metrics is None else metrics
    missing = [name for name in names if name not in rows.index]
    if missing:
        raise InvalidParameterError("metrics", f"{', '.join(missing)} not in the KPI frame")
    grid_rows = max(1, math.ceil(len(names) / columns))
    fig = go.Figure()
    for i, name in enumerate(names):
        row = rows.loc[name]
        label = safe_text(row.get("label", name))
        x, y = _cell(i // columns, i % columns, grid_rows, columns)
        value = row["value"]
        previous = row["previous"] if not pd.isna(row.get("delta")) else pd.NA
        if pd.isna(value):
            for y_at, text, size in ((y[1], label, 16), (sum(y) / 2, "n/a", 40)):
                fig.add_annotation(
                    x=sum(x) / 2,
                    y=y_at,
                    xref="paper",
                    yref="paper",
                    showarrow=False,
                    yanchor="top" if y_at == y[1] else "middle",
                    text=text,
                    font={"size": size, "color": "#6b7280"},
                )
            continue
        valueformat = kpi_kind(row).number
        fig.add_trace(
            go.Indicator(
                mode="number" if pd.isna(previous) else "number+delta",
                value=float(value),
                title={"text": label, "font": {"size": 16}},
                number={"valueformat": valueformat, "font": {"size": 40}},
                delta=None
                if pd.isna(previous)
                else {
                    "reference": float(previous),
                    "valueformat": valueformat,
                    "font": {"size": 18},
                },
                domain={"x": x, "y": y},
            )
        )
    previous_label = frame.attrs.get("previous_period")
    what = "Key figures" + (f" (vs. {previous_label})" if previous_label else "")
    fig.update_layout(
        template=TEMPLATE, title=title(frame, what), height=_TILE_HEIGHT * grid_rows + 100
    )
    return fig


def _kinds(frame: pd.DataFrame) -> dict[str, Kind]:
    """The kind of each drawn column, as the frame declares it."""
    columns = ("readers", "posts_published", "opens", "engagement_rate", "read_rate")
    return {column: kind_of(frame, column) or NUMBER for column in columns}


def _cell(row: int, column: int, rows: int, columns: int) -> tuple[list[float], list[float]]:
    pad = 0.02
    x = [column / columns + pad, (column + 1) / columns - pad]
    y = [1 - (row + 1) / rows + pad, 1 - row / rows - pad]
    return x, y
