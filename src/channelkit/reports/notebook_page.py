"""A report notebook's page: its outputs as JupyterLab shows them, in one offline HTML file.

nbconvert's JupyterLab template renders the outputs (tables, Stylers, images, Markdown, HTML)
without code or prompts, images embedded. It cannot draw plotly's own output type, what a
figure shows in JupyterLab: each becomes a `<div>` and a `Plotly.newPlot` call here, and the
page carries one plotly.js in its head, the built-in report's partial bundle when it has every
trace type the figures use, else plotly's full one. A copy of plotly.js inside an HTML output
(`fig.to_html(include_plotlyjs=True)`) is taken out: the page's one draws that figure too.
Opening the page fetches nothing: no require.js, MathJax, Mermaid or widgets script.

    html = notebook_html(executed, "My report · October 2026", "October 2026 (...)")
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from channelkit._constants import NOTEBOOK_EXTRA
from channelkit._optional import require
from channelkit.reports.render import figure_html, plotlyjs

_PURPOSE = "to run a notebook as the report"
_PLOTLY_MIME = "application/vnd.plotly.v1+json"
_FIGURE_HEIGHT = 450  # px, plotly.js's own default: a figure whose layout sets none
_PLOTLYJS_COPY = re.compile(r"<script[^>]*>\s*/\*\*?\s*\*\s*plotly\.js v.*?</script>", re.S)
# plotly's HTML of a figure: `Plotly.newPlot("id", [traces], {layout}, {config})`
_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"[^"]*",\s*')
_BUNDLED_TRACE = re.compile(r'moduleType:"trace",name:"(\w+)"')
_TEMPLATE = "channelkit-notebook.html.j2"
# JupyterLab's page with the one plotly.js, without what it would fetch from a CDN: the page
# is sent by email and opened offline.
_OFFLINE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}
{%- if resources.plotlyjs -%}<script>{{ resources.plotlyjs }}</script>{%- endif -%}
{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


def notebook_html(executed: Any, title: str, subtitle: str) -> str:
    """The page of `executed`'s outputs (its code cells' inputs are never written), with
    `title` as the page's title and `subtitle` (Markdown) under the notebook's first heading."""
    nbconvert = require("nbconvert", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    nbformat = require("nbformat", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    period = nbformat.v4.new_markdown_cell(subtitle, id="channelkit-period")  # not a random one
    executed.cells.insert(_after_heading(executed.cells), period)
    charts = _draw_figures(executed.cells)
    exporter = nbconvert.HTMLExporter(
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
        extra_loaders=[jinja2.DictLoader({_TEMPLATE: _OFFLINE})],
        template_file=_TEMPLATE,
    )
    resources = {"metadata": {"name": title}, "plotlyjs": _bundle(charts) if charts else ""}
    body, _ = exporter.from_notebook_node(executed, resources=resources)
    return str(body)


def _draw_figures(cells: Any) -> list[str]:
    """Turn every plotly output into HTML drawn by the page's plotly.js (in place); return the
    HTML of every output that draws a figure."""
    charts: list[str] = []
    for cell in cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if _PLOTLY_MIME in data:
                # ids in order: the same notebook gives the same page
                div_id = f"figure-{len(charts) + 1}"
                html = str(figure_html(data[_PLOTLY_MIME], div_id, default_height=_FIGURE_HEIGHT))
                output["data"] = {"text/html": html}
                output["metadata"] = {}
            elif "text/html" in data:
                # a copy of plotly.js (the "notebook" renderer's first output has nothing else)
                html = data["text/html"] = _PLOTLYJS_COPY.sub("", _text(data["text/html"]))
                if not _NEW_PLOT.search(html):
                    continue
            else:
                continue
            charts.append(html)
    return charts


def _bundle(charts: list[str]) -> Markup:
    """The one plotly.js of the page: the partial bundle, unless a figure needs a trace type
    it lacks (a map, a 3-D scatter, a Sankey diagram)."""
    from plotly.offline import get_plotlyjs

    bundled = plotlyjs()
    used = {name for html in charts for name in _trace_types_drawn(html)}
    if used & (_trace_types(get_plotlyjs()) - _trace_types(str(bundled))):
        return Markup(get_plotlyjs())
    return bundled


def _trace_types_drawn(html: str) -> set[str]:
    """The trace types of the figures `html` draws (not its template's, which names all)."""
    found: set[str] = set()
    for call in _NEW_PLOT.finditer(html):
        try:
            traces, _ = json.JSONDecoder().raw_decode(html, call.end())
        except ValueError:
            continue
        if isinstance(traces, list):
            found |= {str(t.get("type", "scatter")) for t in traces if isinstance(t, dict)}
    return found


@cache
def _trace_types(script: str) -> frozenset[str]:
    return frozenset(_BUNDLED_TRACE.findall(script))


def _text(value: Any) -> str:
    """An output's text, which a notebook file may hold as a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value)


def _after_heading(cells: Any) -> int:
    """Where the period goes: under the notebook's first heading, else on top."""
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and str(cell.source).lstrip().startswith("#"):
            return index + 1
    return 0
