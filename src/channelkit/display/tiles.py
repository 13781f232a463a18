"""The KPI tiles over a `wh.kpis()` frame: each metric's value and its change. Pure."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from channelkit.display import numbers
from channelkit.display.columns import kpi_kind
from channelkit.display.notes import kpi_notes, provisional_line

if TYPE_CHECKING:
    import pandas as pd

_STYLE = (
    "<style>.ck-tiles{display:flex;flex-wrap:wrap;gap:8px}.ck-tile{border:1px solid #ccd;"
    "border-radius:6px;padding:6px 10px;min-width:9em}.ck-tile.ck-chosen{border-color:#1a6fb5;"
    "box-shadow:0 0 0 1px #1a6fb5}.ck-tile-label{color:#555;font-size:85%}"
    ".ck-tile-value{font-size:140%;font-weight:600}.ck-up{color:#1b7f3b}"
    ".ck-down{color:#b00020}.ck-tile-note,.ck-tiles-note{color:#8a5a00;font-size:85%}</style>"
)


def tiles_html(frame: pd.DataFrame, *, chosen: str | None = None) -> str:
    """One tile per KPI row (the totals: a `by="channel"` frame is not for tiles)."""
    tiles = []
    for record in frame.to_dict("records"):
        value = kpi_kind(record).text(record["value"])
        change: Any = record.get("delta_pct")
        css = {"up": "ck-up", "down": "ck-down"}.get(numbers.news(record), "")
        chosen_css = " ck-chosen" if record["metric"] == chosen else ""
        said = "".join(
            f'<div class="ck-tile-note">{html.escape(note)}</div>' for note in kpi_notes(record)
        )
        tiles.append(
            f'<div class="ck-tile{chosen_css}" data-ck-metric="{html.escape(record["metric"])}">'
            f'<div class="ck-tile-label">{html.escape(str(record["label"]))}</div>'
            f'<div class="ck-tile-value">{html.escape(value)}</div>'
            f'<div class="ck-tile-change {css}">{html.escape(numbers.signed_percent(change))}'
            f"</div>{said}</div>"
        )
    lines = [str(frame.attrs["comparison"])] if frame.attrs.get("comparison") else []
    why = provisional_line(frame.to_dict("records"))
    lines += [] if why is None else [why]
    footer = "".join(f'<div class="ck-tiles-note">{html.escape(line)}</div>' for line in lines)
    return f'<div class="ck-tiles">{_STYLE}{"".join(tiles)}</div>{footer}'
