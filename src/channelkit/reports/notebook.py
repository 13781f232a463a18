"""Your notebook as the report: run it with the report's parameters, render it as a page.

The parameters are injected after the cell tagged `parameters` (papermill's convention),
as `db`, `period`, `tz`, `channel` and `compare`; the notebook runs in a fresh kernel in its
own folder; the page is nbconvert's, without code cells or prompts, images embedded, titled
with the period in words. A failing cell is named in one line (its number in the notebook,
its first line and its error) and no page is written.

    from channelkit.reports.notebook import notebook_report
    notebook_report("my-report.ipynb", "warehouse.duckdb", period="2026-10", out="oct.html")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from channelkit._constants import (
    DEFAULT_TZ,
    NOTEBOOK_CELL_TIMEOUT_S,
    NOTEBOOK_EXTRA,
    NOTEBOOK_KERNEL,
    REPORT_COMPARE_DEFAULT,
    REPORT_PERIOD_DEFAULT,
)
from channelkit._optional import require
from channelkit._tz import checked_tz
from channelkit.errors import InvalidParameterError, ReportError
from channelkit.reports.files import write_atomic
from channelkit.reports.parameters import ReportPeriod, check_compare

_PURPOSE = "to run a notebook as the report"
_INJECTED_TAG = "injected-parameters"  # papermill's tag on the cell it adds
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")
_TEMPLATE = "channelkit-notebook.html.j2"
# JupyterLab's page without what it fetches from a CDN (require.js, MathJax, Mermaid): the
# page is sent by email and opened offline.
_OFFLINE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


@dataclass(frozen=True)
class NotebookPage:
    """A notebook run for one period, rendered: what `deliver` sends.

    page = run_notebook("my-report.ipynb", "warehouse.duckdb", period="month")
    page.title, len(page.html)
    """

    title: str
    period: ReportPeriod
    html: str


def notebook_report(
    notebook: str | Path,
    warehouse: str | Path,
    *,
    out: str | Path,
    period: str = REPORT_PERIOD_DEFAULT,
    tz: str = DEFAULT_TZ,
    channel: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
) -> Path:
    """Run `notebook` for `period` and write its page to `out` (atomically); return `out`."""
    page = run_notebook(notebook, warehouse, period=period, tz=tz, channel=channel, compare=compare)
    target = Path(out)
    write_atomic(target, page.html)
    return target


def run_notebook(
    notebook: str | Path,
    warehouse: str | Path,
    *,
    period: str = REPORT_PERIOD_DEFAULT,
    tz: str = DEFAULT_TZ,
    channel: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
) -> NotebookPage:
    """Execute `notebook` with the report's parameters and render it; nothing is written."""
    path = Path(notebook)
    if not path.is_file():
        raise InvalidParameterError("notebook", f"{path}: no such file")
    check_compare(compare)
    days = _period(Path(warehouse), period, checked_tz(tz))
    papermill = require("papermill", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    nbformat = require("nbformat", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    require("nbconvert", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    require("ipykernel", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    try:
        source = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several kinds for a file that is no notebook
        raise InvalidParameterError("notebook", f"{path}: not a notebook ({exc})") from None
    parameters = {
        "db": str(Path(warehouse).resolve()),
        "period": period,
        "tz": days.tz,
        "channel": channel,
        "compare": compare,
    }
    try:
        executed = papermill.execute_notebook(
            source,
            None,
            parameters=parameters,
            kernel_name=NOTEBOOK_KERNEL,
            language="python",
            progress_bar=False,
            log_output=False,
            cwd=str(path.parent.resolve()),
            execution_timeout=NOTEBOOK_CELL_TIMEOUT_S,
        )
    except papermill.PapermillExecutionError as exc:
        raise ReportError(_failure(path, exc, _injected_at(source.cells))) from None
    except (papermill.PapermillException, ValueError, RuntimeError, TimeoutError) as exc:
        # the kernel did not start or died, a cell ran out of time, a notebook without language
        raise ReportError(f"{path.name}: could not run it: {type(exc).__name__}: {exc}") from None
    title = f"{_heading(source.cells) or path.stem} \u00b7 {days.name}"
    scope = f" \u00b7 {channel}" if channel else ""
    return NotebookPage(title, days, _render(executed, title, f"{days.label}{scope}"))


def _period(warehouse: Path, period: str, tz: str) -> ReportPeriod:
    from channelkit.reports.generate import report_period
    from channelkit.warehouse import Warehouse

    wh = Warehouse(warehouse)
    with wh.session():
        return report_period(wh, period=period, tz=tz)


def _render(executed: Any, title: str, subtitle: str) -> str:
    """nbconvert's page of the outputs only, with the title and period on top."""
    nbconvert = require("nbconvert", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    nbformat = require("nbformat", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    executed.cells = [
        cell for cell in executed.cells if _INJECTED_TAG not in cell.metadata.get("tags", [])
    ]
    executed.cells.insert(_after_heading(executed.cells), nbformat.v4.new_markdown_cell(subtitle))
    exporter = nbconvert.HTMLExporter(
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
        extra_loaders=[jinja2.DictLoader({_TEMPLATE: _OFFLINE})],
        template_file=_TEMPLATE,
    )
    body, _ = exporter.from_notebook_node(executed, resources={"metadata": {"name": title}})
    return str(body)


def _after_heading(cells: Any) -> int:
    """Where the period goes: under the notebook's first heading, else on top."""
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and str(cell.source).lstrip().startswith("#"):
            return index + 1
    return 0


def _heading(cells: Any) -> str:
    """The notebook's first Markdown heading, as its name."""
    for cell in cells:
        if cell.cell_type == "markdown":
            for line in str(cell.source).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def _injected_at(cells: Any) -> int:
    """Where papermill puts its parameters cell: after the cell tagged `parameters`."""
    for index, cell in enumerate(cells):
        if "parameters" in cell.metadata.get("tags", []):
            return index + 1
    return 0


def _failure(path: Path, exc: Any, injected: int) -> str:
    """ "report.ipynb: cell 4 (`total = wh.kpis(...)`) failed: KeyError: 'readers'"."""
    first = next((line.strip() for line in str(exc.source).splitlines() if line.strip()), "")
    # papermill's cell index counts the parameters cell it injected; the user's does not
    number = exc.cell_index + (0 if exc.cell_index > injected else 1)
    error = _ANSI_RE.sub("", f"{exc.ename}: {exc.evalue}" if exc.evalue else exc.ename)
    return f"{path.name}: cell {number} (`{first[:80]}`) failed: {error}"
