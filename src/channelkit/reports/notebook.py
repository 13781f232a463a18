"""Your notebook as the report: run it with the report's parameters, render it as a page.

The parameters are injected as `db`, `period`, `tz`, `channel` and `compare` in a cell after
the one tagged `parameters` (papermill's convention); the notebook runs in a fresh kernel in
an empty folder, out of reach of this process's secrets (`notebook_isolation`), within a
time limit and an output budget (`notebook_kernel`); the page shows its outputs as
JupyterLab does, without code, titled with the period in words (`notebook_page`). A cell
that fails, runs out of time or outputs too much is named in one line (its number in the
notebook, its first line, what happened: the exception's type and message, also when it was
raised while showing a result) and no page is written; the last frames of its traceback come
with it (`NotebookCellError.trace`).

    from channelkit.reports.notebook import notebook_report
    notebook_report("my-report.ipynb", "warehouse.duckdb", period="2026-10", out="oct.html")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from channelkit._constants import (
    NOTEBOOK_EXTRA,
    NOTEBOOK_OUTPUT_MAX_CHARS,
    NOTEBOOK_TIMEOUT_S,
    REPORT_COMPARE_DEFAULT,
    REPORT_PERIOD_DEFAULT,
)
from channelkit._optional import require
from channelkit._tz import DEFAULT_ZONE
from channelkit.errors import InvalidParameterError, NotebookCellError, ReportError
from channelkit.reports.files import write_atomic
from channelkit.reports.parameters import ReportPeriod, check_compare

_PURPOSE = "to run a notebook as the report"
_INJECTED_TAG = "injected-parameters"  # papermill's tag on the cell it adds
_CELL_RUN_RE = re.compile(r"^Cell In\[(\d+)\]")


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
    tz: ZoneInfo = DEFAULT_ZONE,
    channel: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
    timeout: float = NOTEBOOK_TIMEOUT_S,
) -> Path:
    """Run `notebook` for `period` and write its page to `out` (atomically); return `out`."""
    page = run_notebook(
        notebook, warehouse, period=period, tz=tz, channel=channel, compare=compare,
        timeout=timeout,
    )  # fmt: skip
    target = Path(out)
    write_atomic(target, page.html)
    return target


def run_notebook(
    notebook: str | Path,
    warehouse: str | Path,
    *,
    period: str = REPORT_PERIOD_DEFAULT,
    tz: ZoneInfo = DEFAULT_ZONE,
    channel: str | None = None,
    compare: str = REPORT_COMPARE_DEFAULT,
    timeout: float = NOTEBOOK_TIMEOUT_S,
    max_output: int = NOTEBOOK_OUTPUT_MAX_CHARS,
) -> NotebookPage:
    """Execute `notebook` with the report's parameters, within `timeout` seconds in all and
    `max_output` characters of output, and render it; nothing is written."""
    path = Path(notebook)
    if not path.is_file():
        raise InvalidParameterError("notebook", f"{path}: no such file")
    if not timeout > 0:
        raise InvalidParameterError("timeout", f"expected seconds above 0, got {timeout!r}")
    check_compare(compare)
    days = _period(Path(warehouse), period, tz)
    nbformat = require("nbformat", extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    for library in ("nbclient", "nbconvert", "ipykernel"):
        require(library, extra=NOTEBOOK_EXTRA, purpose=_PURPOSE)
    from channelkit.reports.notebook_kernel import _CellStopped, _KernelFailed, execute
    from channelkit.reports.notebook_page import notebook_html

    source = _read(path, nbformat)
    parameters = {
        "db": str(Path(warehouse).resolve()),
        "period": period,
        "tz": days.tz.key,
        "channel": channel,
        "compare": compare,
    }
    injected, added = _inject(source, parameters, nbformat)
    try:
        execute(source, timeout=timeout, max_output=max_output)
    except _CellStopped as stop:

        def number(index: int) -> int:  # the user's numbers do not count a cell we added
            return index + (0 if added and index > injected else 1)

        line = _failure(path, number(stop.index), source.cells[stop.index], stop.why)
        # IPython names a cell by its run ("Cell In[3]"), which counts ours: use the user's
        runs = {c.get("execution_count"): number(i) for i, c in enumerate(source.cells)}
        trace = [
            _CELL_RUN_RE.sub(lambda m: f"cell {runs.get(int(m[1]), m[1])}", frame)
            for frame in stop.trace
        ]
        raise NotebookCellError(line, trace=trace) from None
    except _KernelFailed as exc:
        raise ReportError(f"{path.name}: could not run it: {exc}") from None
    # the parameters (a file path among them) never reach the page
    del source.cells[injected]
    title = f"{_heading(source.cells) or path.stem} \u00b7 {days.name}"
    scope = f" \u00b7 {channel}" if channel else ""
    return NotebookPage(title, days, notebook_html(source, title, f"{days.label}{scope}"))


def _period(warehouse: Path, period: str, tz: ZoneInfo) -> ReportPeriod:
    from channelkit.reports.generate import report_period
    from channelkit.warehouse import Warehouse

    wh = Warehouse(warehouse)
    with wh.session():
        return report_period(wh, period=period, tz=tz)


def _read(path: Path, nbformat: Any) -> Any:
    """The notebook at `path` in nbformat 4.5, every cell with an id: a file written without
    them (by hand, by a script) runs as JupyterLab would open it, without nbformat warning
    about it on stderr each run, as `nbformat.read` would."""
    try:
        notebook = nbformat.v4.upgrade(
            nbformat.convert(nbformat.reader.reads(path.read_text(encoding="utf-8")), 4)
        )
        for index, cell in enumerate(notebook.cells):
            # by position, not nbformat's random ids: the same notebook, the same page
            cell.setdefault("id", f"channelkit-{index}")
        nbformat.validate(notebook)
    except Exception as exc:  # nbformat raises several kinds for a file that is no notebook
        raise InvalidParameterError("notebook", f"{path}: not a notebook ({exc})") from None
    return notebook


def _inject(nb: Any, parameters: dict[str, str | None], nbformat: Any) -> tuple[int, bool]:
    """papermill's convention: the parameters in a cell tagged `injected-parameters` after the
    cell tagged `parameters` (on top without one), or instead of such a cell that a papermill
    run left in the file; return where it is and whether it was added."""
    lines = [f"{name} = {value!r}" for name, value in parameters.items()]
    cell = nbformat.v4.new_code_cell("# Parameters\n" + "\n".join(lines))
    cell.metadata["tags"] = [_INJECTED_TAG]
    for index, old in enumerate(nb.cells):
        if _INJECTED_TAG in old.metadata.get("tags", []):
            nb.cells[index] = cell
            return index, False
    at = _injected_at(nb.cells)
    nb.cells.insert(at, cell)
    return at, True


def _heading(cells: Any) -> str:
    """The notebook's first Markdown heading, as its name."""
    for cell in cells:
        if cell.cell_type == "markdown":
            for line in str(cell.source).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def _injected_at(cells: Any) -> int:
    """Where the parameters go: after the cell tagged `parameters`."""
    for index, cell in enumerate(cells):
        if "parameters" in cell.metadata.get("tags", []):
            return index + 1
    return 0


def _failure(path: Path, number: int, cell: Any, why: str) -> str:
    """ "report.ipynb: cell 4 (`total = wh.kpis(...)`) failed: KeyError: 'readers'"."""
    first = next((line.strip() for line in str(cell.source).splitlines() if line.strip()), "")
    return f"{path.name}: cell {number} (`{first[:80]}`) {why}"
