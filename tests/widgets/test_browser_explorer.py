"""The Explorer in JupyterLab, in Debian's Chromium, driven by Playwright.

A notebook made for the test opens the small warehouse and shows an Explorer; the test
picks a month and a channel in its dropdowns as a person would, sees the table change to
what `wh.kpis` returns for them, then evaluates `explorer.code` in the kernel and gets
the same frame as the one shown.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
import pytest

from channelkit.display import numbers
from channelkit.warehouse import Warehouse

if TYPE_CHECKING:
    from playwright.sync_api import Page

RUN_TIMEOUT_MS = 120_000
NOTEBOOK = "explorer.ipynb"
# Runs `code` in the notebook's kernel; resolves to what it printed (or its error).
_EXECUTE = """async (code) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const future = kernel.requestExecute({code});
    let out = "";
    future.onIOPub = (msg) => {
        if (msg.header.msg_type === "stream") out += msg.content.text;
        if (msg.header.msg_type === "error") out += msg.content.ename + ": " + msg.content.evalue;
    };
    await future.done;
    return out;
}"""


def _readers_row(frame: Any) -> str:
    readers = frame.set_index("metric").loc["readers"]
    return f"Readers{numbers.count(readers['value'])}{numbers.count(readers['previous'])}"


@pytest.mark.browser
@pytest.mark.slow
def test_explorer_in_jupyterlab_answers_clicks_with_what_its_code_returns(
    browser_page: Page,
    start_jupyter_lab: Callable[..., Any],
    small_warehouse: Path,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(small_warehouse, root / "small.duckdb")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import channelkit as ck\nwh = ck.Warehouse('small.duckdb')\n"
            "explorer = ck.widgets.Explorer(wh, period='2026-W13')\nexplorer"
        )
    ]
    # A kernel named in the file: otherwise JupyterLab asks which one, in a dialog.
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, root / NOTEBOOK)
    lab = start_jupyter_lab(root, {})
    page = browser_page
    lab.open_notebook(page, NOTEBOOK, timeout_ms=RUN_TIMEOUT_MS)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    explorer = page.locator(".ck-explorer")
    table = explorer.locator(".ck-explorer-table")
    wh = Warehouse(small_warehouse)
    expect(table).to_contain_text(_readers_row(wh.kpis(period="2026-W13")), timeout=RUN_TIMEOUT_MS)
    # the trend chart is drawn by plotly in the page, not left as a placeholder
    expect(explorer.locator(".ck-explorer-chart .js-plotly-plot")).to_have_count(1)

    explorer.locator(".ck-explorer-period select").select_option(label="March 2026")
    explorer.locator(".ck-explorer-channel select").select_option(label="Engineering")

    expected = wh.kpis(period="2026-03", channel="Engineering")
    # Each pick is answered by the kernel: on a busy machine that takes a few seconds.
    expect(table.locator("caption")).to_contain_text("Engineering", timeout=RUN_TIMEOUT_MS)
    expect(table).to_contain_text(_readers_row(expected))
    code = 'wh.kpis(period="March 2026", channel="Engineering")'
    expect(explorer.locator(".ck-explorer-code code")).to_have_text(code)
    expect(explorer.locator("button.ck-explorer-copy")).to_be_visible()

    printed = page.evaluate(
        _EXECUTE,
        "import pandas as pd\n"
        "same = eval(explorer.code)\n"
        "pd.testing.assert_frame_equal(same, explorer.frame)\n"
        "print(explorer.code)\n"
        "print(same[['metric', 'value', 'previous']].to_json(orient='records'))",
    )
    shown_code, records = printed.strip().splitlines()
    assert shown_code == code
    assert json.loads(records) == json.loads(
        expected[["metric", "value", "previous"]].to_json(orient="records")
    )
