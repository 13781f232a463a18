"""A metric frame as an HTML table people read: labelled columns, formatted numbers, caption.

Only frames a `Warehouse` method returned are formatted: they carry `attrs["metric"]` and
`attrs["period"]` (the marker). The frame itself is never changed; code gets the numbers.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from channelkit._constants import DISPLAY_MAX_ROWS
from channelkit._labels import METRIC_LABELS, RATES
from channelkit.display import numbers
from channelkit.display.notes import kpi_notes, provisional_line, usual_range

if TYPE_CHECKING:
    import pandas as pd

STYLE = (
    "<style>.ck-frame{border-collapse:collapse;font-size:90%}"
    ".ck-frame caption{caption-side:top;text-align:left;padding:4px 0;color:#333}"
    ".ck-frame th,.ck-frame td{padding:2px 10px;border-bottom:1px solid #ddd}"
    ".ck-frame th{text-align:left}.ck-frame td.ck-num{text-align:right;"
    "font-variant-numeric:tabular-nums}.ck-frame .ck-note{color:#8a5a00}</style>"
)
_KPI_HEADERS = {
    "channel": "Channel",
    "label": "Metric",
    "value": "Value",
    "previous": "Previous",
    "delta": "Change",
    "delta_pct": "Change %",
    "usual": "Usual range",
    "small_base": "Note",
}
_RATIOS = ("lift",)
_TITLES = {"kpis": "Headline numbers", "top_posts": "Top posts", "low_reach": "Low reach"}

Cell = tuple[str, bool]  # the text, and whether it is a number (right-aligned)


def is_metric_frame(frame: object) -> bool:
    """Whether `frame` is a DataFrame returned by a `Warehouse` metric method."""
    attrs = getattr(frame, "attrs", None)
    return isinstance(attrs, dict) and "metric" in attrs and "period" in attrs


def caption(attrs: Mapping[Any, Any]) -> str:
    """The period, its comparison and the filters, in one line: what the table is about."""
    parts = [str(attrs.get("period") or "all time")]
    if attrs.get("metric") == "kpis" and attrs.get("previous_period"):
        parts[0] += f" vs {attrs['previous_period']}"
        if attrs.get("comparison"):
            parts[0] += f", {attrs['comparison']}"
    filters = attrs.get("filters") or {}
    for name, value in filters.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        parts.append(f"{name}: {shown}")
    if attrs.get("tz"):
        parts.append(f"tz {attrs['tz']}")
    return " · ".join(parts)


def frame_html(frame: pd.DataFrame, *, max_rows: int = DISPLAY_MAX_ROWS) -> str:
    """`frame` (a metric frame) as an escaped HTML table with its caption and warnings."""
    attrs = frame.attrs
    table = _kpi_table(frame) if attrs.get("metric") == "kpis" else _plain_table(frame)
    title = f"{_title(str(attrs['metric']))}: "
    notes = [str(w) for w in attrs.get("warnings") or ()]
    why = provisional_line(frame.to_dict("records")) if attrs.get("metric") == "kpis" else None
    notes += [] if why is None else [why]
    return _html(table, title, caption(attrs), notes, str(attrs["metric"]), max_rows)


def titled_html(frame: pd.DataFrame, title: str, *, max_rows: int = DISPLAY_MAX_ROWS) -> str:
    """Any frame (a publishing plan's rows, say) as the same table, under `title`."""
    return _html(_plain_table(frame), title, "", [], "table", max_rows)


def _html(
    table: tuple[list[str], list[list[Cell]]],
    title: str,
    about: str,
    notes: list[str],
    kind: str,
    max_rows: int,
) -> str:
    headers, rows = table
    shown = rows[:max_rows]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="ck-num">{html.escape(text)}</td>'
            if num
            else f"<td>{html.escape(text)}</td>"
            for text, num in row
        )
        + "</tr>"
        for row in shown
    )
    table_html = (
        f'<table class="ck-frame" data-ck-metric="{html.escape(kind)}">'
        f"<caption><b>{html.escape(title)}</b>{html.escape(about)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    if len(rows) > len(shown):
        notes.append(f"showing {len(shown):,} of {len(rows):,} rows (the frame has them all)")
    notes_html = "".join(f'<div class="ck-note">⚠ {html.escape(n)}</div>' for n in notes)
    return f"<div>{STYLE}{table_html}{notes_html}</div>"


def _kpi_table(frame: pd.DataFrame) -> tuple[list[str], list[list[Cell]]]:
    columns = [
        c for c in ("channel", "label", "value", "previous", "delta", "delta_pct") if c in frame
    ]
    usual = "usual_low" in frame and "usual_high" in frame
    headers = [_KPI_HEADERS[c] for c in columns]
    if usual:
        headers.append(_KPI_HEADERS["usual"])
    headers.append(_KPI_HEADERS["small_base"])
    rows: list[list[Cell]] = []
    for record in frame.to_dict("records"):
        rate = record.get("kind") == "rate"
        amount: Callable[[Any], str] = numbers.percent if rate else numbers.count
        cells: list[Cell] = []
        for column in columns:
            value = record[column]
            if column in ("value", "previous"):
                cells.append((amount(value), True))
            elif column == "delta":
                cells.append((numbers.signed(value, rate=rate), True))
            elif column == "delta_pct":
                cells.append((numbers.signed_percent(value), True))
            else:
                cells.append((_text(value), False))
        if usual:
            cells.append((usual_range(record) or numbers.MISSING, True))
        cells.append(("; ".join(kpi_notes(record)), False))
        rows.append(cells)
    return headers, rows


def _plain_table(frame: pd.DataFrame) -> tuple[list[str], list[list[Cell]]]:
    columns = [str(c) for c in frame.columns]
    formats = [_formatter(column, frame[column].dtype.kind) for column in columns]
    headers = [METRIC_LABELS.get(column) or _title(column) for column in columns]
    rows = [
        [fmt(value) for fmt, value in zip(formats, record, strict=True)]
        for record in frame.itertuples(index=False, name=None)
    ]
    return headers, rows


def _title(name: str) -> str:
    return _TITLES.get(name) or name.replace("_", " ").capitalize()


def _formatter(column: str, kind: str) -> Callable[[Any], Cell]:
    if column in RATES or column.endswith("_rate"):
        return lambda value: (numbers.percent(value), True)
    if column in _RATIOS:
        return lambda value: (numbers.ratio(value), True)
    if kind in "iuf":
        return lambda value: (numbers.count(value), True)
    return lambda value: (_text(value), False)


def _text(value: Any) -> str:
    if isinstance(value, datetime | date):
        return numbers.moment(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return ", ".join(map(str, value))
    if hasattr(value, "tolist") and not isinstance(value, str):  # a numpy array of tags
        listed = value.tolist()
        return ", ".join(map(str, listed)) if isinstance(listed, list) else _text(listed)
    if isinstance(value, bool):
        return "yes" if value else ""
    return numbers.MISSING if numbers.missing(value) else str(value)
