"""Notebooks 01 and 03 run headless against a demo service this module starts.

The kernel is `python3` from the venv's ipykernel (jupyter_client runs its `python` with
the interpreter running the tests), so nothing needs registering on a fresh machine. The
key reaches the kernel only through the environment; the tests check it appears in no
output, no executed notebook and no report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import openpyxl
import papermill
import pytest
from nbclient import NotebookClient

from channelkit.reports import report_period
from channelkit.service import LocalService
from channelkit.warehouse import Warehouse

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
KERNEL = "python3"
TIMEOUT = 240

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo() -> Iterator[LocalService]:
    # a 1 s rate window: the analyst key's 300 requests per window never slow the sync down
    with LocalService(seed="demo", rate_window=1.0) as svc:
        yield svc


@pytest.fixture
def kernel_env(demo: LocalService, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point the kernel (which inherits this environment) at the demo service."""
    key = demo.demo_keys["analyst"]
    monkeypatch.setenv("CHANNELKIT_BASE_URL", demo.base_url)
    monkeypatch.setenv("CHANNELKIT_API_KEY", key)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    return key


def outputs_text(nb: Any) -> str:
    """Every text output and error of an executed notebook, in order."""
    parts: list[str] = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", "".join(output.get("traceback", []))
            if output["output_type"] == "stream":
                parts.append(output["text"])
            else:
                parts.append(str(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def test_git_copies_carry_no_outputs() -> None:
    for name in ("01-explore-engagement.ipynb", "03-weekly-report.ipynb"):
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, name


def test_01_explore_from_nothing_to_insight(
    kernel_env: str, demo: LocalService, tmp_path: Path
) -> None:
    nb = nbformat.read(NOTEBOOKS / "01-explore-engagement.ipynb", as_version=4)
    NotebookClient(
        nb, kernel_name=KERNEL, timeout=TIMEOUT, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    text = outputs_text(nb)

    wh = Warehouse(tmp_path / "explore-warehouse.duckdb")
    posts = wh.posts()
    assert len(posts) > 1000  # the demo workspace as the analyst key sees it
    assert f"Posts in warehouse: {len(posts)}" in text
    assert f"Channels in warehouse: {len(wh.channels())}" in text
    assert re.search(rf"sync completed \(\w+\) from {re.escape(demo.base_url)}", text)
    # The notebook speaks of readers, read rate and opens, for a period said as "28d".
    kpis = wh.kpis(period="28d", tz="Europe/Berlin")
    assert f"Period: {kpis.attrs['period']} (vs {kpis.attrs['previous_period']})" in text
    rows = kpis.set_index("metric")
    assert f"Readers: {rows.loc['readers', 'value']:,.0f}" in text
    assert f"Read rate: {rows.loc['read_rate', 'value']:.1%}" in text
    assert f"Opens: {rows.loc['opens', 'value']:,.0f}" in text
    assert rows.loc["readers", "value"] > 0
    assert "Views" not in text
    book = openpyxl.load_workbook(tmp_path / "explore.xlsx")
    assert book.sheetnames == ["KPIs", "Top posts", "Channels"]
    assert book["KPIs"]["B1"].value == kpis.attrs["period"]
    assert kernel_env not in json.dumps(nb)


def test_03_weekly_report_uses_the_environments_service(
    kernel_env: str, demo: LocalService, tmp_path: Path
) -> None:
    warehouse = tmp_path / "weekly.duckdb"
    out = tmp_path / "site" / "weekly.html"
    executed = tmp_path / "executed.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOKS / "03-weekly-report.ipynb"),
        str(executed),
        # no base_url: CHANNELKIT_BASE_URL and CHANNELKIT_API_KEY of kernel_env decide
        parameters={
            "warehouse_path": str(warehouse),
            "period": "14d",
            "tz": "Europe/Berlin",
            "out_path": str(out),
            "channels": [],
        },
        kernel_name=KERNEL,
        cwd=str(tmp_path),
        progress_bar=False,
        execution_timeout=TIMEOUT,
    )
    nb = nbformat.read(executed, as_version=4)
    text = outputs_text(nb)
    assert f"Reporting on the service at {demo.base_url} (key from CHANNELKIT_API_KEY)" in text
    assert "demo workspace" not in text

    wh = Warehouse(warehouse)
    period = report_period(wh, period="14d", tz="Europe/Berlin")
    assert period.days == 14
    assert f"Period: {period.label}" in text
    kpis = wh.kpis(**period.query()).set_index("metric")
    readers = f"{kpis.loc['readers', 'value']:,.0f}"
    read_rate = f"{kpis.loc['read_rate', 'value']:.1%}"
    # formatted frames: thousands separators and percentages, no NumPy reprs
    assert re.search(rf"Readers\s+{re.escape(readers)}", text)
    assert re.search(rf"Read rate\s+{re.escape(read_rate)}", text)
    assert "np.float64" not in text and "np.int64" not in text
    assert "reached " + readers + " readers" in text  # the summary sentences
    html = out.read_text(encoding="utf-8")
    assert f'<p class="value">{readers}</p>' in html  # the report shows the same number
    assert period.label in html
    assert f"Report written to {out}" in text
    for artefact in (executed.read_text(encoding="utf-8"), html):
        assert kernel_env not in artefact


def test_03_parameters_cell_is_tagged() -> None:
    nb = nbformat.read(NOTEBOOKS / "03-weekly-report.ipynb", as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    names = set(re.findall(r"^(\w+) =", tagged[0].source, re.M))
    assert {"base_url", "warehouse_path", "period", "compare", "tz", "out_path"} <= names
    assert "api_key" not in names  # papermill records parameters in the output notebook


def test_03_without_a_service_starts_the_demo_in_the_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CHANNELKIT_BASE_URL", "CHANNELKIT_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    executed = tmp_path / "executed.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOKS / "03-weekly-report.ipynb"),
        str(executed),
        parameters={"out_path": "out/weekly.html"},
        kernel_name=KERNEL,
        cwd=str(tmp_path),
        progress_bar=False,
        execution_timeout=TIMEOUT,
    )
    text = outputs_text(nbformat.read(executed, as_version=4))
    assert "reporting on the local demo workspace, started in this kernel" in text
    wh = Warehouse(tmp_path / "weekly-warehouse.duckdb")
    period = report_period(wh, period="week", tz="Europe/Berlin")
    assert period.name.startswith("Week ")
    assert f"Period: {period.label}" in text
    assert (tmp_path / "out" / "weekly.html").stat().st_size > 1_000_000  # plotly.js inside
    # the demo keys were made inside the kernel: look for anything shaped like a key
    assert not re.search(r"ck_[A-Za-z0-9_-]{16,}", executed.read_text(encoding="utf-8"))
