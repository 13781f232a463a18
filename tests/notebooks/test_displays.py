"""A notebook, executed by nbclient in a real kernel, shows `wh`, `wh.kpis()` and an Explorer
as people read them: the card's posts, channels and days, the KPI table's value and
previous columns, and the Explorer's table (kept in the notebook's widget state)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from channelkit.display import numbers
from channelkit.warehouse import Warehouse
from fixtures.warehouse import FIRST_DAY, LAST_DAY

KERNEL = "python3"
TIMEOUT = 30  # per cell, a guard against a hung kernel: every cell here takes a few seconds
WEEK = "2026-W13"

pytestmark = pytest.mark.slow


class _Client(NotebookClient):  # type: ignore[misc]
    """Records each time the kernel's output is captured into an Output widget."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.captured: list[str] = []

    def register_output_hook(self, msg_id: str, hook: Any) -> None:
        self.captured.append(msg_id)
        super().register_output_hook(msg_id, hook)


def _html(cell: Any) -> str:
    shown = [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]
    errors = [o for o in cell.outputs if o["output_type"] == "error"]
    assert not errors, "".join(errors[0]["traceback"])
    assert len(shown) == 1, cell.outputs
    return str(shown[0])


def test_a_notebook_shows_the_card_the_kpis_and_an_explorer(
    small_warehouse: Path, tmp_path: Path
) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            f"import channelkit as ck\nwh = ck.Warehouse({str(small_warehouse)!r})\nwh"
        ),
        nbformat.v4.new_code_cell(f'wh.kpis(period="{WEEK}")'),
        nbformat.v4.new_code_cell(f'explorer = ck.widgets.Explorer(wh, period="{WEEK}")\nexplorer'),
        nbformat.v4.new_code_cell("import pandas as pd\npd.DataFrame({'x': [0.5]})"),
    ]
    client = _Client(
        nb,
        kernel_name=KERNEL,
        timeout=TIMEOUT,
        store_widget_state=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    # Output captured into an Output widget makes nbclient's stand-in for the frontend
    # write back on the shell channel while it awaits the cell's reply there, and it then
    # sees the reply only when the cell timeout runs out, without an error: the Explorer
    # must set its chart as the widget's outputs instead.
    assert client.captured == []
    wh = Warehouse(small_warehouse)

    card = _html(nb.cells[0])
    assert re.search(rf'class="ck-posts">{len(wh.posts()):,}<', card)
    assert re.search(rf'class="ck-channels">{len(wh.channels()):,}<', card)
    days = (LAST_DAY - FIRST_DAY).days + 1
    assert f'class="ck-days">{days} days, {FIRST_DAY} to {LAST_DAY}<' in card

    kpis = wh.kpis(period=WEEK)
    table = _html(nb.cells[1])
    headers = re.findall(r"<th>([^<]*)</th>", table)
    assert headers[:3] == ["Metric", "Value", "Previous"]
    for record in kpis.to_dict("records"):
        as_read = numbers.percent if record["kind"] == "rate" else numbers.count
        row = (
            f'<td>{record["label"]}</td><td class="ck-num">{as_read(record["value"])}</td>'
            f'<td class="ck-num">{as_read(record["previous"])}</td>'
        )
        assert row in table, row

    widget_view = [
        o
        for o in nb.cells[2].outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert len(widget_view) == 1
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value", "") for m in state.values()]
    shown = next(v for v in values if isinstance(v, str) and 'class="ck-frame"' in v)
    assert f'<td>Readers</td><td class="ck-num">{numbers.count(kpis["value"][1])}</td>' in shown
    assert any(f"wh.kpis(period=&quot;{WEEK}&quot;)" in str(v) for v in values)
    charts = [
        o
        for m in state.values()
        for o in m["state"].get("outputs", [])
        if "application/vnd.plotly.v1+json" in o.get("data", {})
    ]
    # the trend chart, in the notebook without a frontend too; then the chosen channel's
    # young posts with their forecast bands (the outlook), when it has young posts
    explorer = nb.cells[2].source
    assert 1 <= len(charts) <= 2, [
        c["data"]["application/vnd.plotly.v1+json"]["layout"] for c in charts
    ]
    if len(charts) == 2:
        layout = charts[1]["data"]["application/vnd.plotly.v1+json"]["layout"]
        assert layout["xaxis"]["title"]["text"].startswith("Readers"), (explorer, layout)

    plain = _html(nb.cells[3])  # any other DataFrame: pandas' own table, as before
    assert 'class="dataframe"' in plain and "ck-frame" not in plain
