"""A report's charts as a reader with any device or assistive technology can use them.

Each plotly figure becomes a `Chart`: its HTML, a sentence saying what it shows (the
`aria-label`), and the numbers it plots as a table that the page shows collapsed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
from markupsafe import Markup

from channelkit._constants import REPORT_AXIS_LABEL_CHARS, REPORT_CHART_TOP_MARGIN
from channelkit.display import numbers
from channelkit.display.columns import kind_of
from channelkit.display.kinds import Kind
from channelkit.plots.style import HEIGHT as PLOT_HEIGHT
from channelkit.plots.style import TOP_MARGIN as PLOT_TOP_MARGIN
from channelkit.reports.page import Cell, Chart, Table, TableColumn
from channelkit.reports.render import figure_html

_KINDS = {"bar": "Bar chart", "scatter": "Line chart", "heatmap": "Heatmap", "indicator": "Tiles"}
_TAG_RE = re.compile(r"<[^>]+>")
_HIDDEN_COLUMNS = ("_id", "channel_id", "post_id", "kind")


def chart(
    figure: Any,
    div_id: str,
    frame: pd.DataFrame,
    *,
    tz: ZoneInfo,
    key: str,
    columns: Sequence[str] | None = None,
) -> Chart:
    """`figure` drawn from `frame`, labelled from its own title and `key` (its key number
    in words: "the first, “Launch”, had 1,204 readers"), with `frame` as its data.

    `columns` picks and orders the columns of the data table (default: every column
    except ids).
    """
    # Axis labels (post titles, channel names) take the room they need on a narrow screen
    # instead of being cut at the edge.
    figure.update_xaxes(automargin=True)
    figure.update_yaxes(automargin=True)
    _shorten_bar_labels(figure)
    heading, subheading = titles(figure)
    return Chart(
        html=_untitled_html(figure, div_id),
        label=describe(figure, key),
        data=frame_table(frame, tz=tz, columns=columns),
        figure=figure,
        heading=heading,
        subheading=subheading,
    )


def titles(figure: Any) -> tuple[str, str]:
    """The figure's title and its smaller second line, as plain text."""
    text = figure.layout.title.text or ""
    head, _, rest = text.partition("<br>")
    return _plain(head), _plain(rest)


def _untitled_html(figure: Any, div_id: str) -> Markup:
    """`figure`'s HTML for the page, which shows the title above it instead (the page
    wraps a long title on a phone, where plotly would cut it at the edge), shortened by the
    room the title took. The figure itself keeps its title, for static images; it is
    changed and restored rather than copied, a copy costing more than the drawing."""
    layout = figure.layout
    text, top, height = layout.title.text, layout.margin.t, layout.height
    layout.title.text = None
    layout.margin.t = REPORT_CHART_TOP_MARGIN
    layout.height = (height or PLOT_HEIGHT) - (top or PLOT_TOP_MARGIN) + REPORT_CHART_TOP_MARGIN
    try:
        return figure_html(figure, div_id)
    finally:
        layout.title.text, layout.margin.t, layout.height = text, top, height


def _shorten_bar_labels(figure: Any) -> None:
    """Long labels of horizontal bars (post titles) cut to fit beside the bars on a phone;
    the full text is in the chart's data table."""
    for trace in figure.data:
        if trace.type == "bar" and trace.orientation == "h" and trace.y is not None:
            labels = [str(label) for label in trace.y]
            short = [
                label
                if len(label) <= REPORT_AXIS_LABEL_CHARS
                else label[: REPORT_AXIS_LABEL_CHARS - 1] + "\u2026"
                for label in labels
            ]
            if short != labels:
                figure.update_yaxes(tickvals=labels, ticktext=short)


def describe(figure: Any, key: str) -> str:
    """One sentence from the figure's title and its key number, e.g. "Bar chart of top
    posts by readers · All channels · Oct 2026: the first, “Launch”, had 1,204 readers."
    It promises no table: an email shows the chart without one."""
    layout_title = figure.layout.title.text or ""
    head = layout_title.split("<sup>")[0]
    text = _plain(head.replace("<br>", " "))
    kinds: list[str] = []
    for trace in figure.data:
        kind = _KINDS.get(trace.type, "Chart")
        if kind not in kinds:
            kinds.append(kind)
    what = " and ".join(kinds) or "Chart"
    scale = " (darker is more)" if "Heatmap" in kinds else ""
    return f"{what} of {text[:1].lower() + text[1:]}: {key}{scale}."


def frame_table(
    frame: pd.DataFrame, *, tz: ZoneInfo, columns: Sequence[str] | None = None
) -> Table:
    """Any analysis frame as a formatted table: rates as percentages, counts with
    thousands separators, instants in `tz`, lists joined with commas."""
    names = list(columns) if columns is not None else _visible(frame)
    names = [name for name in names if name in frame.columns]
    kinds = [kind_of(frame, name) for name in names]
    header = tuple(
        TableColumn(
            column_heading(name),
            numeric=pd.api.types.is_numeric_dtype(frame[name].dtype)
            if kind is None
            else kind.align == "right",
        )
        for name, kind in zip(names, kinds, strict=True)
    )
    rows = tuple(
        tuple(_cell(kind, value, tz) for kind, value in zip(kinds, record, strict=True))
        for record in frame[names].itertuples(index=False, name=None)
    )
    return Table(header, rows)


def column_heading(column: str) -> str:
    """`engagement_rate` → "Engagement rate"."""
    text = column.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def _visible(frame: pd.DataFrame) -> list[str]:
    return [str(c) for c in frame.columns if not str(c).endswith(_HIDDEN_COLUMNS)]


def _cell(kind: Kind | None, value: Any, tz: ZoneInfo) -> Cell:
    if isinstance(value, list | tuple) or (
        not isinstance(value, str) and pd.api.types.is_list_like(value)
    ):
        return ", ".join(str(item) for item in value)
    if numbers.missing(value):
        return "\u2014"
    if isinstance(value, pd.Timestamp | pd.Period) or hasattr(value, "tzinfo"):
        if isinstance(value, pd.Period):
            return str(value)
        return numbers.local_time(pd.Timestamp(value).to_pydatetime(), tz)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) or hasattr(value, "dtype"):
        # as its kind says (1.12 of a ratio reads +12.0%), as in a notebook
        return numbers.count(value, 2) if kind is None else kind.text(value)
    return str(value)


def _plain(text: str) -> str:
    """A plotly title (HTML-ish, escaped) as plain text for an attribute."""
    return " ".join(html.unescape(_TAG_RE.sub(" ", text)).split())


def heatmaps_one_by_one(figure: Any) -> list[Any]:
    """A figure of heatmaps side by side as one figure per heatmap, each with a legend.

    Side by side, two 24-hour grids and their titles overlap on a phone; one below the
    other they keep their size, and each gets its colour scale as a legend underneath.
    """
    import plotly.graph_objects as go

    titles = [annotation.text for annotation in figure.layout.annotations]
    figures = []
    for number, trace in enumerate(figure.data):
        what = titles[number] if number < len(titles) else ""
        single = go.Figure(
            trace.update(
                xaxis="x",
                yaxis="y",
                showscale=True,
                colorbar={
                    "title": {"text": what, "side": "top"},
                    "orientation": "h",
                    "x": 0,
                    "xanchor": "left",
                    "y": -0.36,
                    "yanchor": "top",
                    "thickness": 12,
                    "len": 0.6,
                },
            )
        )
        subtitle = (figure.layout.title.text or "").partition("<br>")[2]
        single.update_layout(
            template=figure.layout.template,
            title={"text": f"{what}<br>{subtitle}" if subtitle else what},
            height=(figure.layout.height or 420) + 30,
            margin={"b": 120},
        )
        single.update_yaxes(autorange="reversed")
        single.update_xaxes(title_text="Hour of publication", dtick=3)
        figures.append(single)
    return figures
