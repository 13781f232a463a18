"""A metric frame as an HTML table people read: labelled columns, formatted numbers, caption.

Frames a `Warehouse` method returned carry `attrs["metric"]` and `attrs["period"]` (the
marker) and their columns' kinds (`attrs["kinds"]`) through any selection, slice or sort; a
merge drops attrs, so a frame with columns whose names say a rate or a ratio
(`display.columns`) is shown by their kinds too. Each column shows as its kind says
(`kind_of`), a value beside its `_low` and `_high` as one interval cell, and the caption
says the period, the filters and what a ranking rests on (`attrs["basis"]`). The frame
itself is never changed; code gets the numbers.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from channelkit._constants import DISPLAY_MAX_ROWS
from channelkit._labels import METRIC_LABELS
from channelkit.display import numbers
from channelkit.display.columns import has_kinds, interval_of, kind_of, row_kinds
from channelkit.display.kinds import CHANGE, NUMBER, Kind
from channelkit.display.notes import kpi_notes, provisional_line, usual_range

if TYPE_CHECKING:
    import pandas as pd

STYLE = (
    "<style>.ck-frame{border-collapse:collapse;font-size:90%}"
    ".ck-frame caption{caption-side:top;text-align:left;padding:4px 0;color:#333}"
    ".ck-frame th,.ck-frame td{padding:2px 10px;border-bottom:1px solid #ddd}"
    ".ck-frame th{text-align:left}.ck-frame td.ck-num{text-align:right;"
    "font-variant-numeric:tabular-nums}.ck-frame .ck-note,.ck-note{color:#8a5a00}"
    ".ck-frame .ck-basis{color:#555}.ck-frame .ck-cut td{color:#777;text-align:center}</style>"
)
_KPI_HEADERS = {
    "channel": "Channel",
    "label": "Metric",
    "metric": "Metric",
    "value": "Value",
    "previous": "Previous",
    "delta": "Change",
    "delta_pct": "Change %",
    "usual": "Usual range",
    "small_base": "Note",
}
_HEADERS = {
    "adjusted_read_rate": "Adjusted read rate",
    "adjusted_engagement_rate": "Adjusted engagement rate",
    "vs_expected": "Readers vs expected",
    "adjusted_vs_expected": "Adjusted readers vs expected",
    "vs_rest": "Readers vs the rest",
    "relative_read_rate": "Read rate vs channel median",
    "channel_median": "Channel median read rate",
    "expected_readers": "Expected readers",
    "weekday_name": "Day",
    "distinct": "Reliably",
}
# The interval beside a column, in its header ("Read rate (95% interval)").
_INTERVAL_WORDS = {"vs_rest": "interval for all slots at once"}
_TITLES = {"kpis": "Headline numbers", "top_posts": "Top posts", "low_reach": "Low reach"}
_UNKNOWN_ROWS = (
    "values of different kinds (rates and counts) without `label` or `metric` beside them "
    "are shown as plain numbers: select `label` too"
)

Cell = tuple[str, bool]  # the text, and whether it is a number (right-aligned)


@dataclass
class Shown:
    """A frame's table as shown: headers and the rows of cells shown, and notes."""

    headers: list[str]
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)


def is_metric_frame(frame: object) -> bool:
    """Whether `frame` is a DataFrame returned by a `Warehouse` metric method (or a
    selection, slice or sort of one: pandas keeps its attrs)."""
    attrs = getattr(frame, "attrs", None)
    return isinstance(attrs, dict) and "metric" in attrs and "period" in attrs


def shows_kinds(frame: object) -> bool:
    """Whether `frame` is shown formatted: a metric frame, or a frame with columns whose
    names say a rate or a ratio (a metric frame merged with another loses its attrs)."""
    import pandas as pd

    return is_metric_frame(frame) or (isinstance(frame, pd.DataFrame) and has_kinds(frame))


def caption(attrs: Mapping[Any, Any]) -> str:
    """The period, its comparison and the filters, in one line: what the table is about."""
    if "period" not in attrs:
        return ""
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


def basis(frame: pd.DataFrame) -> str:
    """What the frame's order and numbers rest on (`attrs["basis"]`), and whether the rows
    are still in rank order."""
    said = str(frame.attrs.get("basis") or "")
    if said and "rank" in frame.columns:
        ranks = frame["rank"].dropna()
        if not ranks.is_monotonic_increasing:
            said += " (rows now in another order than the rank)"
    return said


def frame_html(frame: pd.DataFrame, *, max_rows: int = DISPLAY_MAX_ROWS) -> str:
    """`frame` (a metric frame, or one with columns of known kinds) as an escaped HTML
    table with its caption, what it rests on, and its warnings."""
    attrs = frame.attrs
    metric = str(attrs.get("metric") or "")
    plain = _with_index(frame)
    part = _shown_rows(plain, max_rows)
    shown = _kpi_table(part) if _kpi_rows(plain) else _plain_table(part)
    title = f"{_title(metric)}: " if metric else ""
    notes = [str(w) for w in attrs.get("warnings") or ()] + shown.notes
    why = provisional_line(frame.to_dict("records")) if metric == "kpis" else None
    notes += [] if why is None else [why]
    about = (caption(attrs), basis(frame))
    return _html(shown, len(plain), title, about, notes, metric or "table", max_rows)


def titled_html(frame: pd.DataFrame, title: str, *, max_rows: int = DISPLAY_MAX_ROWS) -> str:
    """Any frame (a publishing plan's rows, say) as the same table, under `title`."""
    part = _plain_table(_shown_rows(frame, max_rows))
    return _html(part, len(frame), title, ("", ""), [], "table", max_rows)


def _shown_rows(frame: pd.DataFrame, max_rows: int) -> pd.DataFrame:
    """The first `max_rows` rows, and the rows past them that must be seen: best_times'
    distinct slots (a slot reliably worse ranks 105th). Only these are formatted."""
    if len(frame) <= max_rows:
        return frame
    must: list[int] = []
    if "distinct" in frame.columns:
        flags = frame["distinct"].iloc[max_rows:].to_numpy(dtype=bool, na_value=False)
        must = [max_rows + at for at, flag in enumerate(flags) if flag]
    return frame.iloc[[*range(max_rows), *must]]


def _html(
    table: Shown,
    total: int,
    title: str,
    about: tuple[str, str],
    notes: list[str],
    kind: str,
    max_rows: int,
) -> str:
    rows = table.rows
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join(_row(row) for row in rows[:max_rows])
    extra = rows[max_rows:]
    if extra:  # rows past the cut that must be seen follow a marker
        width = len(table.headers)
        body += (
            f'<tr class="ck-cut"><td colspan="{width}">\u22ef rows {max_rows + 1:,} to '
            f"{total:,}: only the {len(extra):,} marked below are shown \u22ef</td></tr>"
        )
        body += "".join(_row(row) for row in extra)
    period, rests_on = (html.escape(part) for part in about)
    said = f'<br><span class="ck-basis">{rests_on}</span>' if rests_on else ""
    table_html = (
        f'<table class="ck-frame" data-ck-metric="{html.escape(kind)}">'
        f"<caption><b>{html.escape(title)}</b>{period}{said}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    if total > len(rows):
        notes.append(f"showing {len(rows):,} of {total:,} rows (the frame has them all)")
    notes_html = "".join(f'<div class="ck-note">⚠ {html.escape(n)}</div>' for n in notes)
    return f"<div>{STYLE}{table_html}{notes_html}</div>"


def _row(cells: list[Cell]) -> str:
    return (
        "<tr>"
        + "".join(
            f'<td class="ck-num">{html.escape(text)}</td>'
            if num
            else f"<td>{html.escape(text)}</td>"
            for text, num in cells
        )
        + "</tr>"
    )


def _kpi_rows(frame: pd.DataFrame) -> bool:
    """Whether the rows are KPIs (each row a metric of its own kind)."""
    if frame.attrs.get("metric") == "kpis":
        return "value" in frame.columns or "previous" in frame.columns
    return "value" in frame.columns and row_kinds(frame) is not None


# A KPI row's numbers, each as its row's kind says (a rate's change in points).
_KPI_CELLS: dict[str, Callable[[Kind, Any], str]] = {
    "value": lambda kind, value: kind.text(value),
    "previous": lambda kind, value: kind.text(value),
    "delta": lambda kind, value: kind.change(value),
    "delta_pct": lambda _, value: CHANGE.text(value),
}


def _kpi_table(frame: pd.DataFrame) -> Shown:
    named = "label" if "label" in frame.columns else "metric"
    columns = [c for c in ("channel", named, *_KPI_CELLS) if c in frame.columns]
    usual = "usual_low" in frame and "usual_high" in frame
    headers = [_KPI_HEADERS[c] for c in (*columns, *(("usual",) if usual else ()))]
    kinds = row_kinds(frame) or [None] * len(frame)
    records = frame.to_dict("records")
    rows = [
        _kpi_cells(record, kind or NUMBER, columns, usual)
        for record, kind in zip(records, kinds, strict=True)
    ]
    said = [
        kpi_notes({**record, "kind": (kind or NUMBER).name})
        for record, kind in zip(records, kinds, strict=True)
    ]
    if any(said):
        headers.append(_KPI_HEADERS["small_base"])
        for cells, words in zip(rows, said, strict=True):
            cells.append(("; ".join(words), False))
    unknown = None in kinds and bool(len(frame))
    return Shown(headers, rows, notes=[_UNKNOWN_ROWS] if unknown else [])


def _kpi_cells(
    record: Mapping[Any, Any], kind: Kind, columns: list[str], usual: bool
) -> list[Cell]:
    """One KPI row's cells: its name words, its numbers as `kind`, its usual range."""
    cells = [
        (_KPI_CELLS[c](kind, record[c]), _right(kind))
        if c in _KPI_CELLS
        else (_text(record[c]), False)
        for c in columns
    ]
    if usual:
        cells.append((usual_range(record, kind) or numbers.MISSING, _right(kind)))
    return cells


def _right(kind: Kind) -> bool:
    return kind.align == "right"


def _with_index(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a named index (`set_index("channel")`) as its first columns; row
    numbers (also those a sort or a filter leaves) are not shown."""
    if all(name is None for name in frame.index.names):
        return frame
    try:
        return frame.reset_index()
    except ValueError:  # an index named like a column: shown without it
        return frame


def _plain_table(frame: pd.DataFrame) -> Shown:
    columns: list[Hashable] = list(frame.columns)
    ends = {end for name in columns for end in interval_of(name, columns) or ()}
    shown = [name for name in columns if name not in ends]
    cells = [_cells(frame, name, interval_of(name, columns)) for name in shown]
    headers = [_header(name, interval_of(name, columns) is not None) for name in shown]
    rows = [list(row) for row in zip(*cells, strict=True)] if cells else []
    rows = rows or [[] for _ in range(len(frame))]
    return Shown(headers, rows)


def _header(name: Hashable, with_interval: bool) -> str:
    text = str(name)
    words = METRIC_LABELS.get(text) or _HEADERS.get(text) or _title(text)
    if with_interval:
        words += f" ({_INTERVAL_WORDS.get(text, '95% interval')})"
    return words


def _cells(frame: pd.DataFrame, name: Hashable, ends: tuple[str, str] | None) -> list[Cell]:
    """One column's cells, as its kind reads."""
    values = frame[name].tolist()
    if name == "distinct" and "vs_rest" in frame.columns:
        return [(_reliably(d, r), False) for d, r in zip(values, frame["vs_rest"], strict=True)]
    kind = kind_of(frame, name)
    if kind is None and frame[name].dtype.kind not in "iuf":
        return [(_text(value), False) for value in values]
    kind = kind or NUMBER  # a number of no declared kind: shown as it is
    right = _right(kind)
    if ends is None:
        return [(kind.text(value), right) for value in values]
    lows, highs = frame[ends[0]].tolist(), frame[ends[1]].tolist()
    return [
        (kind.interval(value, low, high), right)
        for value, low, high in zip(values, lows, highs, strict=True)
    ]


def _reliably(distinct: Any, ratio: Any) -> str:
    """A best_times slot's `distinct` in words: which way it differs from the rest."""
    if numbers.missing(distinct) or not distinct or numbers.missing(ratio):
        return ""
    return "reliably better" if float(ratio) > 1 else "reliably worse"


def _title(name: str) -> str:
    return _TITLES.get(name) or name.replace("_", " ").capitalize()


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
