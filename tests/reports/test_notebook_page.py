"""A notebook's page (nbconvert, no kernel): plotly outputs drawn by the page's one plotly.js,
the partial bundle unless a trace type needs the full one."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from nbformat import v4
from plotly.offline import get_plotlyjs

from channelkit.reports.notebook_page import notebook_html
from channelkit.reports.render import PLOTLY_BUNDLE

pytestmark = pytest.mark.slow  # nbconvert's templates, plotly's full bundle read twice

_PARTIAL = PLOTLY_BUNDLE.read_text(encoding="utf-8")[:60]
_FULL = get_plotlyjs()[:30]


def _page(*figures: go.Figure, own_copy: go.Figure | None = None) -> str:
    outputs = [
        v4.new_output("display_data", {"application/vnd.plotly.v1+json": f.to_plotly_json()})
        for f in figures
    ]
    if own_copy is not None:  # what `display(HTML(fig.to_html(include_plotlyjs=True)))` shows
        html = own_copy.to_html(full_html=False, include_plotlyjs=True)
        outputs.append(v4.new_output("display_data", {"text/html": html}))
        # and the first output of plotly's "notebook" renderer: plotly.js alone
        init = f"<script>{get_plotlyjs()}</script>"
        outputs.append(v4.new_output("display_data", {"text/html": init}))
    notebook = v4.new_notebook(cells=[v4.new_markdown_cell("# Mine"), v4.new_code_cell("x")])
    notebook.cells[1].outputs = outputs
    return notebook_html(notebook, "Mine · October 2026", "October 2026")


def test_figures_share_the_partial_bundle_unless_a_trace_type_needs_the_full_one() -> None:
    bar = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    page = _page(bar, own_copy=go.Figure(go.Scatter(x=[1, 2], y=[2, 1])))
    assert page.count(_PARTIAL) == 1 and _FULL not in page  # the outputs' own copies are gone
    assert page.count('class="plotly-graph-div"') == 2
    assert 'id="figure-1"' in page and "October 2026" in page
    # the plotly template names every trace type; only the figures' own count
    assert "'type': 'surface'" in str(bar.layout.template.to_plotly_json())

    sankey = go.Figure(
        go.Sankey(node={"label": ["a", "b"]}, link={"source": [0], "target": [1], "value": [1]})
    )
    page = _page(bar, sankey)
    assert page.count(_FULL) == 1 and _PARTIAL not in page
