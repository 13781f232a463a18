"""`channelkit report --notebook`: the shipped example notebook run for a month and channel
in a real kernel (papermill/nbclient, ipykernel) and rendered by nbconvert."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.warehouse import Warehouse
from fixtures.notebooks import write_notebook
from fixtures.warehouse import build_long_warehouse

EXAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "04-my-report.ipynb"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def long_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_long_warehouse(tmp_path_factory.mktemp("notebook") / "long.duckdb")


def report(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["report", *map(str, args)])


def _notebook(path: Path, *sources: str) -> Path:
    """A notebook of a `parameters` cell and `sources` as code cells."""
    return write_notebook(path, *sources)


# A 1×1 PNG: an image output
_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
# What JupyterLab shows beside the example's Markdown and plotly express chart
_MORE_OUTPUTS = (
    "import plotly.graph_objects as go\n"
    "fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[2, 3, 1]))\n"
    'fig.update_layout(title="GO chart").show()',
    "ck.plots.engagement_over_time(daily)",
    'px.line(daily, x="period", y="readers", title="PX line")',
    'kpis.style.format(precision=1).set_caption("KPIs, styled")',
    f"import base64\nfrom IPython.display import HTML, Image\n"
    f'display(Image(data=base64.b64decode("{_PIXEL}")))\n'
    f"display(HTML(\"<p class='mine'>Raw HTML output</p>\"))",
)


def test_the_page_shows_every_output_as_jupyter_does_quietly_without_code(
    long_db: Path, tmp_path: Path
) -> None:
    notebook = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    notebook["cells"] += [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in _MORE_OUTPUTS
    ]
    mine = tmp_path / "mine.ipynb"
    mine.write_text(json.dumps(notebook), encoding="utf-8")
    out = tmp_path / "page.html"
    # a real process: the kernel writes to the file descriptors it inherits, not to sys.stderr
    run = subprocess.run(
        [sys.executable, "-m", "channelkit", "report", "--notebook", mine, "--db", long_db,
         "--period", "2026-10", "--tz", "Europe/Berlin", "--channel", "All Hands",
         "--out", out, "--quiet"],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    page = out.read_text(encoding="utf-8")

    # the parameters reached the notebook: its readers are the month's for the channel
    kpis = Warehouse(long_db).kpis(period="2026-10", tz="Europe/Berlin", channel="All Hands")
    readers = int(kpis.set_index("metric").loc["readers", "value"])
    everything = int(
        Warehouse(long_db).kpis(period="2026-10", tz="Europe/Berlin")
        .set_index("metric").loc["readers", "value"]
    )  # fmt: skip
    assert readers != everything  # so the channel filter is seen
    assert f"{readers:,} readers" in page
    # titled with the period in words, the channel under the heading
    assert re.search(r"<title>My monthly report · October 2026</title>", page)
    assert "October 2026 (2026-10-01 to 2026-10-31, Europe/Berlin) · All Hands" in page

    # every figure drawn by the page's one plotly.js, the built-in report's partial bundle
    assert page.count('class="plotly-graph-div"') == 4
    assert [page.count(f'id="figure-{n}"') for n in (1, 2, 3, 4)] == [1, 1, 1, 1]
    assert "Readers per day" in page and "GO chart" in page and "PX line" in page
    assert "application/vnd.plotly" not in page
    assert page.count("plotly.js (cartesian - minified) v") == 1
    assert page.count("* plotly.js") == 1
    assert len(page.encode()) <= 2_000_000
    # the Styler, the image, the HTML
    assert "<caption>KPIs, styled</caption>" in page
    assert f"data:image/png;base64,{_PIXEL}" in page
    assert '<p class="mine">Raw HTML output</p>' in page

    # no code, no prompts, no parameters (the warehouse's path is one)
    assert "ck.Warehouse(db)" not in page and "import channelkit" not in page
    assert "kpis.style" not in page and "go.Scatter" not in page
    assert "jp-InputPrompt" not in re.sub(r"<style.*?</style>", "", page, flags=re.S)
    assert "injected" not in page.lower() and str(long_db) not in page
    assert "# Parameters" not in page and "'All Hands'" not in page
    # opening it fetches nothing: no CDN script, stylesheet or image (MathJax, require.js)
    assert not re.findall(r"<(?:script|link|img)[^>]+(?:src|href)=[\"']?(?:https?:)?//", page)


def _kernel_pid(folder: Path) -> str:
    """A cell writing the kernel's process id into `folder` (the kernel runs in an empty
    folder of its own, so the path is absolute), then opening the warehouse."""
    pid_file = str(folder / "kernel.pid")
    return (
        f"import os, pathlib\npathlib.Path({pid_file!r}).write_text(str(os.getpid()))\n"
        "import channelkit as ck\nwh = ck.Warehouse(db)"
    )


@pytest.mark.parametrize(
    ("cell", "what"),
    [
        (
            "\n# readers of the month\nreaders = wh.kpis(period=period).loc['readers']",
            "(`# readers of the month`) failed: KeyError: 'readers'",
        ),
        (
            "# 100 MB\nprint('x' * 100_000_000)",
            "(`# 100 MB`) printed past the output limit of 10 MB",
        ),
    ],
    ids=["failing", "100 MB printed"],
)
def test_a_cell_that_fails_or_prints_too_much_is_named_in_one_line_and_no_page_is_written(
    long_db: Path, tmp_path: Path, cell: str, what: str
) -> None:
    notebook = _notebook(tmp_path / "mine.ipynb", _kernel_pid(tmp_path), cell)
    out = tmp_path / "page.html"
    result = report("--notebook", notebook, "--db", long_db, "--period", "2026-10", "--out", out)
    assert result.exit_code == 1, (result.output, result.exception)
    assert result.stderr.splitlines()[-1] == f"Error: mine.ipynb: cell 3 {what}"
    assert "Traceback" not in result.output
    assert not out.exists()
    assert {p.name for p in tmp_path.iterdir()} == {"mine.ipynb", "kernel.pid"}
    _assert_gone(tmp_path / "kernel.pid")


_STYLED = (
    "# the month, shaded\n"
    "kpis = wh.kpis(period=period)[['value', 'previous']]\n"
    "{show}kpis.style.background_gradient(cmap='Blues'){end}"
)


@pytest.mark.parametrize("show", ["", "display("], ids=["as the cell's result", "with display()"])
def test_a_result_that_fails_to_show_names_its_error_and_the_package_to_install(
    long_db: Path, tmp_path: Path, show: str
) -> None:
    # pandas' Styler shades with matplotlib, which the notebook extra does not carry (README)
    assert importlib.util.find_spec("matplotlib") is None, "this test needs it missing"
    cell = _STYLED.format(show=show, end=")" if show else "")
    notebook = _notebook(tmp_path / "styled.ipynb", _kernel_pid(tmp_path), cell, "print('after')")
    out = tmp_path / "page.html"
    result = report("--notebook", notebook, "--db", long_db, "--period", "2026-10", "--out", out)
    assert result.exit_code == 1, (result.output, result.exception)
    *frames, line = result.stderr.splitlines()[-4:]
    # not "failed: NoneType: None": the ImportError pandas raised while drawing the table
    assert line.startswith(
        "Error: styled.ipynb: cell 3 (`# the month, shaded`) failed while showing its result: "
        "ImportError: `Import matplotlib` failed. Styler.background_gradient requires matplotlib"
    ), line
    assert line.endswith("; install it with: pip install matplotlib")
    # then where: the last frames of its traceback, ending where the import failed
    assert [f.startswith("  File ") for f in frames] == [True, True, True], frames
    assert "import_optional_dependency" in frames[-1]
    assert "Traceback" not in result.output and "\x1b" not in result.output
    assert not out.exists()
    _assert_gone(tmp_path / "kernel.pid")


def test_a_failing_cell_names_its_frames_by_the_users_cell_numbers(
    long_db: Path, tmp_path: Path
) -> None:
    helper = (
        "import channelkit as ck\nwh = ck.Warehouse(db)\n\n"
        "def readers(month):\n    return wh.kpis(period=month).loc['readers']"
    )
    notebook = _notebook(tmp_path / "mine.ipynb", helper, "import sklearn", "readers(period)")
    result = report("--notebook", notebook, "--db", long_db, "--period", "2026-10", "--out",
                    tmp_path / "page.html")  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-2:] == [
        "  cell 3, line 1",
        "Error: mine.ipynb: cell 3 (`import sklearn`) failed: ModuleNotFoundError: "
        "No module named 'sklearn'; install it with: pip install scikit-learn",
    ]
    notebook = _notebook(tmp_path / "mine.ipynb", helper, "readers(period)")
    result = report("--notebook", notebook, "--db", long_db, "--period", "2026-10", "--out",
                    tmp_path / "page.html")  # fmt: skip
    # IPython says "Cell In[3]" (its runs count the injected parameters): the user's numbers;
    # the line of the user's code first, then the last frames, in pandas, where it was raised
    frames = result.stderr.splitlines()[-4:-1]
    assert frames[0] == "  cell 2, line 5, in readers(month)", frames
    assert all(f.startswith("  File ") and "pandas" in f for f in frames[1:]), frames
    assert result.stderr.splitlines()[-1].startswith(
        "Error: mine.ipynb: cell 3 (`readers(period)`) failed: KeyError: "
    )


def test_a_notebook_past_its_time_limit_is_stopped_named_and_leaves_the_last_page(
    long_db: Path, tmp_path: Path
) -> None:
    notebook = _notebook(
        tmp_path / "endless.ipynb",
        _kernel_pid(tmp_path),
        "import time\nwhile True:\n    time.sleep(0.2)",
    )
    out = tmp_path / "page.html"
    out.write_text("last week's page", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "channelkit", "report", "--notebook", notebook, "--db", long_db,
         "--period", "2026-10", "--out", out, "--timeout", "20", "--quiet"],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "Error: endless.ipynb: cell 3 (`import time`) was still running at the 20 s time limit"
    ]
    assert out.read_text(encoding="utf-8") == "last week's page"
    assert {p.name for p in tmp_path.iterdir()} == {"endless.ipynb", "kernel.pid", "page.html"}
    _assert_gone(tmp_path / "kernel.pid")


def _assert_gone(pid_file: Path) -> None:
    """No kernel left running: the process whose id the notebook wrote is gone."""
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_notebook_options_are_checked_before_anything_runs(long_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    missing = report("--notebook", tmp_path / "nope.ipynb", "--db", long_db, "--out", out)
    assert missing.exit_code == 2 and "nope.ipynb: no such file" in missing.stderr
    mixed = report("--notebook", EXAMPLE, "--db", long_db, "--format", "pdf", "--out", out)
    assert mixed.exit_code == 2 and "not --format" in mixed.stderr
    limited = report("--db", long_db, "--timeout", "20", "--out", out)
    assert limited.exit_code == 2 and "--timeout limits a --notebook run" in limited.stderr
    assert not out.exists()
