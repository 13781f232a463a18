"""Which of a report's charts an email carries, drawn how, and what each says in one sentence.

An email has no data table under its charts (the page's aria-labels point to one), so
each image gets its own alt text: what it shows and its key number ("Bar chart of read
rate by channel; the highest is Engineering at 74.3%."). A chart that carries nothing for the
selection (a single bar, a copy of a chart already shown) is left out. `for_email` redraws
a chart for a phone: narrower, larger type, its title left to the email's heading. Pure:
figures in, figures and words out.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from channelkit._constants import (
    REPORT_EMAIL_CHART_FONT,
    REPORT_EMAIL_CHART_SIZE,
    REPORT_EMAIL_CHARTS,
)
from channelkit.display.numbers import count, percent, whole
from channelkit.reports.page import Chart

_KINDS = {"bar": "bar chart", "scatter": "line chart", "heatmap": "heatmap"}
_TAG_RE = re.compile(r"<[^>]+>")
_RANK_RE = re.compile(r"^\d+\.\s+")
_MINUS_RE = re.compile(r"(?<![\w.\-\u2212])-(?=\d)")


def one_minus(text: str) -> str:
    """Every negative number written with the minus sign (U+2212), as the tiles are:
    "-3" never stands beside "−13". Hyphens in dates and names stay.

    >>> one_minus("-3 posts (2026-10-01), −13 readers")
    '\u22123 posts (2026-10-01), \u221213 readers'
    """
    return _MINUS_RE.sub("\u2212", text)


def email_charts(charts: Sequence[Chart]) -> list[Chart]:
    """The charts worth an image, the first REPORT_EMAIL_CHARTS of them: not a lone bar,
    not a copy of an earlier chart."""
    kept: list[Chart] = []
    seen: list[tuple[Any, ...]] = []
    for chart in charts:
        if chart.figure is None or _lone_bar(chart.figure):
            continue
        key = _data_key(chart.figure)
        if key in seen:
            continue
        seen.append(key)
        kept.append(chart)
    return kept[:REPORT_EMAIL_CHARTS]


def for_email(figure: Any) -> Any:
    """A copy of `figure` drawn for an email read on a phone: REPORT_EMAIL_CHART_SIZE, no
    text smaller than REPORT_EMAIL_CHART_FONT, and no title (the email shows it above the
    image, as text that wraps)."""
    import plotly.graph_objects as go

    width, height = REPORT_EMAIL_CHART_SIZE
    spec = figure.to_plotly_json()
    _larger_type(spec)
    copy = go.Figure(spec)
    copy.update_layout(
        title=None,
        width=width,
        height=height,
        margin={"t": 16, "l": 10, "r": 10, "b": 10},
        font_size=max(REPORT_EMAIL_CHART_FONT, copy.layout.font.size or 0),
    )
    copy.update_xaxes(automargin=True)
    copy.update_yaxes(automargin=True)
    return copy


def _larger_type(spec: Any) -> None:
    """Every font size (and uniformtext's floor) in a figure's JSON raised to the email's."""
    if isinstance(spec, list):
        for item in spec:
            _larger_type(item)
        return
    if not isinstance(spec, dict):
        return
    for key, value in spec.items():
        if isinstance(value, dict) and (key.endswith("font") or key == "uniformtext"):
            size = "minsize" if key == "uniformtext" else "size"
            if isinstance(value.get(size), int | float):
                value[size] = max(value[size], REPORT_EMAIL_CHART_FONT)
        _larger_type(value)


def chart_title(figure: Any) -> str:
    """The chart's own title, its first line only: "Read rate by channel · All Hands"."""
    text = (figure.layout.title.text or "").partition("<br>")[0]
    return " ".join(html.unescape(_TAG_RE.sub(" ", text)).split())


def alt_text(figure: Any) -> str:
    """One sentence: the kind of chart, what it shows, and its highest value.

    "Bar chart of top posts by readers · All Hands; the highest is A note from the CEO at 1,197."
    """
    kinds = list(dict.fromkeys(_KINDS.get(trace.type, "chart") for trace in figure.data))
    what = " and ".join(kinds) or "chart"
    name = chart_title(figure)
    head = f"{what[:1].upper()}{what[1:]} of {name[:1].lower()}{name[1:]}" if name else what
    peak = _peak(figure)
    return one_minus(f"{head}; {peak}." if peak else f"{head}.")


def _peak(figure: Any) -> str:
    """ "the highest is Engineering at 74.3%": the first trace's largest value, and where."""
    if not figure.data:
        return ""
    trace = figure.data[0]
    if trace.type == "heatmap":
        return _heatmap_peak(trace)
    horizontal = trace.type == "bar" and trace.orientation == "h"
    values, places = (trace.x, trace.y) if horizontal else (trace.y, trace.x)
    axis = "x" if horizontal else "y"
    if values is None or places is None:
        return ""
    numbers = [_number(v) for v in values]
    best = max(
        (i for i, v in enumerate(numbers) if v is not None),
        key=lambda i: numbers[i] or 0.0,
        default=None,
    )
    if best is None:
        return ""
    value = _formatted(numbers[best] or 0.0, _format_of(figure, trace, axis))
    if trace.name and len(figure.data) > 1:
        return f"the highest {str(trace.name).lower()} is {value}, on {_place(places[best])}"
    return f"the highest is {_place(places[best])} at {value}"


def _heatmap_peak(trace: Any) -> str:
    best: tuple[float, str] | None = None
    for row, cells in zip(trace.y or (), trace.z or (), strict=False):
        for column, cell in zip(trace.x or (), cells, strict=False):
            number = _number(cell)
            if number is not None and (best is None or number > best[0]):
                best = (number, f"{row} {column}:00")
    if best is None:
        return ""
    return f"the highest is {_formatted(best[0], _format_of(None, trace, 'z'))}, on {best[1]}"


def _format_of(figure: Any, trace: Any, axis: str) -> str:
    """The d3 format the chart shows this value with: in its hover text, else its axis."""
    match = re.search(r"%\{" + axis + r":([^}]*)\}", trace.hovertemplate or "")
    if match:
        return match.group(1)
    if figure is None:
        return ""
    layout_axis = figure.layout.xaxis if axis == "x" else figure.layout.yaxis
    return str(layout_axis.tickformat or "")


def _formatted(value: float, d3: str) -> str:
    if "%" in d3:
        return percent(value)
    if d3.endswith(("d", "s")) or float(value).is_integer():
        return whole(value)
    return count(value, 2)


def _place(value: Any) -> str:
    if isinstance(value, str):
        return _RANK_RE.sub("", value)  # "2. Q2 results are in": the rank is not a name
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{stamp.day} {stamp.strftime('%b')}"


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _lone_bar(figure: Any) -> bool:
    """One trace of one bar: a comparison with nothing to compare."""
    if len(figure.data) != 1 or figure.data[0].type != "bar":
        return False
    trace = figure.data[0]
    bars = trace.y if trace.orientation == "h" else trace.x
    return bars is not None and len(bars) <= 1


def _data_key(figure: Any) -> tuple[Any, ...]:
    return tuple(
        (trace.type, _plain(trace.x), _plain(trace.y), _plain(getattr(trace, "z", None)))
        for trace in figure.data
    )


def _plain(values: Any) -> Any:
    if values is None:
        return None
    return tuple(_plain(v) if isinstance(v, list | tuple) else str(v) for v in values)
