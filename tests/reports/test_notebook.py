"""`channelkit report --notebook`: the shipped example notebook run for a month and channel
in a real kernel (papermill/nbclient, ipykernel) and rendered by nbconvert."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.warehouse import Warehouse
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
    cells = [
        {
            "cell_type": "code",
            "metadata": {"tags": ["parameters"]},
            "source": 'db = ""\nperiod = "month"',
            "outputs": [],
            "execution_count": None,
        }
    ] + [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in sources
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def test_the_page_shows_what_the_notebook_computed_for_the_period_without_code(
    long_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "page.html"
    result = report(
        "--notebook", EXAMPLE, "--db", long_db, "--period", "2026-10",
        "--tz", "Europe/Berlin", "--channel", "All Hands", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
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
    # no code, no prompts, no parameters cell; the chart is there and draws offline
    assert "ck.Warehouse(db)" not in page and "import channelkit" not in page
    assert "jp-InputPrompt" not in re.sub(r"<style.*?</style>", "", page, flags=re.S)
    assert "injected" not in page.lower()
    assert page.count('class="plotly-graph-div"') == 1
    assert not re.findall(r"<(?:script|link|img)[^>]+(?:src|href)=\"https?:", page)


def test_a_failing_cell_is_named_in_one_line_and_no_page_is_written(
    long_db: Path, tmp_path: Path
) -> None:
    notebook = _notebook(
        tmp_path / "broken.ipynb",
        "import channelkit as ck\nwh = ck.Warehouse(db)",
        "\n# readers of the month\nreaders = wh.kpis(period=period).loc['readers']",
    )
    out = tmp_path / "page.html"
    result = report("--notebook", notebook, "--db", long_db, "--period", "2026-10", "--out", out)
    assert result.exit_code == 1, (result.output, result.exception)
    assert result.stderr.splitlines()[-1] == (
        "Error: broken.ipynb: cell 3 (`# readers of the month`) failed: KeyError: 'readers'"
    )
    assert "Traceback" not in result.output
    assert not out.exists() and list(tmp_path.iterdir()) == [notebook]


def test_notebook_options_are_checked_before_anything_runs(long_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    missing = report("--notebook", tmp_path / "nope.ipynb", "--db", long_db, "--out", out)
    assert missing.exit_code == 2 and "nope.ipynb: no such file" in missing.stderr
    mixed = report("--notebook", EXAMPLE, "--db", long_db, "--format", "pdf", "--out", out)
    assert mixed.exit_code == 2 and "not --format" in mixed.stderr
    assert not out.exists()
