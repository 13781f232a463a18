"""The shared look of channelkit figures: one template, titles, hover formats, safe text.

The template is registered as `plotly.io.templates["channelkit"]` and figures use
`"plotly_white+channelkit"`; the global default template is left alone.
"""

from __future__ import annotations

import html
import math

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from channelkit._constants import PLOT_COLORS, PLOT_FONT, PLOT_TEMPLATE
from channelkit.display import kinds

TEMPLATE = f"plotly_white+{PLOT_TEMPLATE}"
COUNT = kinds.COUNT.number  # d3 formats used in hover templates, declared by the kinds
RATE = kinds.RATE.number
RATIO = kinds.RATIO.number
MUTED = "#cbd5e1"  # bars of small samples
TEXT_MAX_CHARS = 60
HEIGHT = 420  # explicit, so that figures embedded in HTML do not fill the viewport
TOP_MARGIN = 90  # px above the plot: the title and its second line


def register_template() -> None:
    """Register (or refresh) the `channelkit` template in `plotly.io.templates`."""
    pio.templates[PLOT_TEMPLATE] = go.layout.Template(
        layout={
            "font": {"family": PLOT_FONT, "size": 13, "color": "#1f2937"},
            "colorway": list(PLOT_COLORS),
            "title": {"x": 0.01, "xanchor": "left", "font": {"size": 17}},
            "margin": {"t": TOP_MARGIN, "l": 70, "r": 30, "b": 60},
            "hoverlabel": {"font": {"family": PLOT_FONT, "size": 12}},
            "legend": {"orientation": "h", "y": -0.18, "x": 0},
            "xaxis": {"gridcolor": "#e5e7eb", "zeroline": False},
            "yaxis": {"gridcolor": "#e5e7eb", "zeroline": False},
            "separators": ".,",
        }
    )


def safe_text(value: object, max_chars: int = TEXT_MAX_CHARS) -> str:
    """User content (titles, tags, names) as literal text for plotly.

    plotly.js reads a subset of HTML in labels (`<b>`, `<a href>`...); escaping makes a
    `<script>` in a title show as text, and long titles are shortened for axes.
    """
    text = "" if value is None or value is pd.NA else str(value)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return html.escape(text, quote=False)


def title(frame: pd.DataFrame, what: str) -> dict[str, object]:
    """ "What · filters · period" from `frame.attrs`, e.g. "Read rate by week · All Hands ·
    Oct 2026", with the full period, timezone and comparison below."""
    attrs = frame.attrs
    parts = [what, *filter_words(attrs.get("filters"))]
    short = attrs.get("period_short") or attrs.get("period_label")
    if short:
        parts.append(str(short))
    details = []
    label = attrs.get("period_label")
    if label and label != short:
        details.append(str(label))
    tz = attrs.get("tz")
    if tz and (not label or str(tz) not in str(label)):
        details.append(f"times in {tz}")
    if attrs.get("complete") is False:
        details.append("incomplete: runs past the synced data")
    head = " · ".join(safe_text(part, 80) for part in parts)
    subtitle = f"<br><sup>{safe_text(' · '.join(details), 200)}</sup>" if details else ""
    return {"text": f"{head}{subtitle}"}


def filter_words(filters: object) -> list[str]:
    """The filters of `attrs["filters"]` as short words for a title: "All Hands", "#launch"."""
    if not isinstance(filters, dict):
        return []
    words: list[str] = []
    for key, values in filters.items():
        items = values if isinstance(values, list | tuple) else [values]
        text = ", ".join(str(v) for v in items)
        if key == "channel":
            words.append(text)
        elif key == "tag":
            words.append(", ".join(f"#{v}" for v in items))
        else:
            words.append(f"{key} {text}")
    return words


def local_wall_time(values: pd.Series) -> pd.Series:
    """tz-aware instants as naive local wall times: plotly.js has no timezones."""
    if not isinstance(values.dtype, pd.DatetimeTZDtype):
        return values
    naive: pd.Series = values.dt.tz_localize(None)
    return naive


def round_axis(top: float, *, percent: bool = False, most: int = 5) -> dict[str, object]:
    """An axis from 0 with ticks at round values (a 1, 2, 2.5 or 5 step), at most `most`
    steps: 0.79 as a rate gives 0%, 20%, ... 80% rather than plotly's 0/18/35/53/70%."""
    if not top > 0 or math.isinf(top):
        top = 1.0
    raw = top / most
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * 0.999)
    axis: dict[str, object] = {
        "range": [0, math.ceil(top / step - 1e-9) * step * 1.02],
        "tick0": 0,
        "dtick": step,
    }
    if percent:
        axis["tickformat"] = ".0%" if step >= 0.01 else ".1%"
    return axis


def top_of(values: pd.Series) -> float:
    """The largest finite value of `values` (0 when there is none), for `round_axis`."""
    finite = pd.to_numeric(values, errors="coerce").astype("float64")
    largest = finite[finite.abs() != math.inf].max()
    return 0.0 if pd.isna(largest) else float(largest)


def base_figure(frame: pd.DataFrame, what: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(template=TEMPLATE, title=title(frame, what), height=HEIGHT)
    return fig


# A period only partly covered by synced data (its `complete` column False) is drawn apart:
# a hollow marker, a hatched, paler bar, so a short last week never reads as a fall.
def partial(frame: pd.DataFrame) -> list[bool]:
    """Per row, whether its period is only partly covered (False without `complete`)."""
    if "complete" not in frame.columns:
        return [False] * len(frame)
    return [not bool(value) if not pd.isna(value) else True for value in frame["complete"]]


def point_marker(frame: pd.DataFrame) -> dict[str, object]:
    """Markers of a line: hollow where the period is partial."""
    return {"symbol": ["circle-open" if p else "circle" for p in partial(frame)], "size": 8}


def bar_marker(frame: pd.DataFrame) -> dict[str, object]:
    """Bars: hatched and paler where the period is partial."""
    marks = partial(frame)
    return {
        "pattern": {"shape": ["/" if p else "" for p in marks]},
        "opacity": [0.45 if p else 1.0 for p in marks],
    }
