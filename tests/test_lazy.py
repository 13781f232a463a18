"""`import channelkit` stays light; public names load their modules on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_channelkit_loads_no_heavy_library() -> None:
    loaded = _run(
        "import sys, channelkit, channelkit.reports, channelkit.storage\n"
        "print(sorted(m for m in ('pandas', 'duckdb', 'plotly', 'uvicorn', 'httpx')"
        " if m in sys.modules))"
    )
    assert loaded == "[]"


def test_public_names_resolve_to_their_objects() -> None:
    out = _run(
        "import channelkit as ck, channelkit.reports as r, channelkit.warehouse as w\n"
        "from channelkit.client import Client\n"
        "from channelkit.reports.generate import generate_report\n"
        "print(ck.Client is Client, r.generate_report is generate_report,"
        " w.Warehouse.__name__, ck.plots.__name__, 'Warehouse' in dir(ck))"
    )
    assert out == "True True Warehouse channelkit.plots True"


def test_unknown_name_is_an_attribute_error() -> None:
    import channelkit

    with pytest.raises(AttributeError, match="has no attribute 'Clinet'"):
        _ = channelkit.Clinet  # type: ignore[attr-defined]
