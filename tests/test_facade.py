"""`ck.sync` is the function users call, whichever of its modules was imported first."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import channelkit as ck
from channelkit.sync.options import SyncOptions


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    "first",
    ["import channelkit.sync", "import channelkit.sync.runner", "from channelkit import sync"],
)
def test_ck_sync_is_the_function_after_its_package_was_imported_first(first: str) -> None:
    out = _run(
        f"{first}\n"
        "import inspect, types, channelkit as ck\n"
        "import channelkit.sync\n"
        "print(isinstance(ck.sync, types.FunctionType), ck.sync.__module__,"
        " inspect.signature(ck.sync).parameters['client'].kind.name)\n"
    )
    assert out == "True channelkit._facade POSITIONAL_OR_KEYWORD"


def test_the_subpackage_stays_importable_by_name() -> None:
    out = _run(
        "import channelkit as ck\n"
        "from channelkit.sync import runner\n"
        "import channelkit.sync, channelkit._facade as facade\n"
        "print(runner.__name__, facade.sync is ck.sync)\n"
    )
    assert out == "channelkit.sync.runner True"


def test_signature_spells_out_the_options_that_sync_options_checks() -> None:
    params = inspect.signature(ck.sync).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params.values())
    # ck.sync hands every option to SyncOptions.check: the two lists must not drift apart
    expected = inspect.signature(SyncOptions.check).parameters
    options = {name: p for name, p in params.items() if name not in ("client", "path", "progress")}
    assert sorted((p.name, p.kind, p.default) for p in options.values()) == sorted(
        (p.name, p.kind, p.default) for p in expected.values()
    )


def test_help_documents_every_option() -> None:
    doc = inspect.getdoc(ck.sync) or ""
    for name in inspect.signature(ck.sync).parameters:
        if name != "client":
            assert f"`{name}`" in doc, name
