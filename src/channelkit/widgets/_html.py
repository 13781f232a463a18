"""HTML fragments the widgets show: messages, tables and download links. Pure: no I/O.

Everything that comes from users (cell values, titles, error messages quoting them) is
escaped here, so a spreadsheet cannot inject markup into the notebook.
"""

from __future__ import annotations

import base64
import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

_COLOURS = {"error": "#b00020", "ok": "#1b7f3b", "info": "#444"}
_TABLE_STYLE = (
    "<style>.ck-table{border-collapse:collapse;font-size:90%}"
    ".ck-table th,.ck-table td{padding:2px 8px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}</style>"
)
_LINK_STYLE = "color:#1a6fb5;text-decoration:underline"


def message_html(text: str, *, kind: str = "info", css_class: str = "ck-message") -> str:
    """One escaped line of text, coloured by `kind` ("error", "ok" or "info")."""
    mark = {"error": "⚠ ", "ok": "✓ "}.get(kind, "")
    return (
        f'<div class="{css_class} ck-{kind}" style="color:{_COLOURS[kind]}">'
        f"{mark}{html.escape(text, quote=False)}</div>"
    )


def table_html(frame: pd.DataFrame, *, max_rows: int, css_class: str) -> str:
    """`frame` as an escaped HTML table of at most `max_rows` rows, saying what was left out."""
    first = frame.head(max_rows)
    shown = first.astype(object).where(first.notna(), None)
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in shown.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(value)}</td>" for value in row) + "</tr>"
        for row in shown.itertuples(index=False, name=None)
    )
    table = (
        f'<table class="{html.escape(css_class)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
    if len(frame) > len(shown):
        table += message_html(
            f"showing {len(shown):,} of {len(frame):,} rows; the file below has every row"
        )
    return f'<div style="max-height:28em;overflow:auto">{_TABLE_STYLE}{table}</div>'


def _cell(value: object) -> str:
    # Missing values (None, NaN, NA: all None by now) show blank, not as "None" or "nan".
    return "" if value is None else html.escape(str(value), quote=False)


def download_html(data: bytes, *, filename: str, label: str, css_class: str) -> str:
    """A link that saves `data` (an .xlsx file) as `filename` from the browser."""
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<a class="{css_class}" style="{_LINK_STYLE}" '
        f'download="{html.escape(filename, quote=True)}" '
        f'href="data:{XLSX_MIME};base64,{encoded}">{html.escape(label)}</a>'
    )
