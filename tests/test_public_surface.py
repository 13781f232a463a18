"""The top-level names: what `dir(ck)` shows is exactly `__all__`, and every name resolves."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import channelkit as ck
from channelkit.errors import ChannelkitError

# Errors that stay inside their part: the local service's own administration errors (its
# commands turn them into messages) and deliver's "not due yet" signal.
_NOT_EXPORTED = {
    "WorkspaceError",  # channelkit keys: shown as a message
    "ServiceDatabaseError",  # channelkit serve --db: shown as a message
    "NotDueError",  # channelkit deliver: a period not over yet, reported as "not due yet"
}


def test_dir_is_all_plus_dunders_in_a_fresh_interpreter() -> None:
    code = (
        "import channelkit as ck, channelkit.sync, channelkit.client, channelkit._tz\n"
        "dunders = [n for n in vars(ck) if n.startswith('__') and n.endswith('__')]\n"
        "print(dir(ck) == sorted({*ck.__all__, *dunders}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "True", result.stderr


def test_the_parts_are_reachable_from_the_package() -> None:
    code = (
        "import channelkit as ck\n"
        "print(ck.reports.generate_report.__name__, ck.plots.__name__, ck.widgets.__name__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["generate_report", "channelkit.plots", "channelkit.widgets"]


def test_every_public_name_resolves() -> None:
    for name in ck.__all__:
        assert getattr(ck, name) is not None, name
    assert set(ck.__all__) == {"__version__", *ck._LAZY}


def test_client_models_are_exported() -> None:
    from channelkit.client import models

    for name in ("Post", "Channel", "Author", "PostAnalyticsRow", "ChannelAnalyticsRow", "Page"):
        assert getattr(ck, name) is getattr(models, name)


def test_every_error_is_exported_at_top_level() -> None:
    for info in pkgutil.walk_packages(ck.__path__, "channelkit."):
        if not info.name.endswith("__main__"):  # that one runs the command line
            importlib.import_module(info.name)
    missing = sorted(
        f"{cls.__module__}.{cls.__name__}"
        for cls in _subclasses(ChannelkitError)
        if cls.__module__.startswith("channelkit.")
        and cls.__name__ not in _NOT_EXPORTED
        and getattr(ck, cls.__name__, None) is not cls
    )
    assert missing == [], "add these to channelkit/__init__.py's _LAZY and __all__"


def test_every_exception_is_defined_in_errors_py() -> None:
    # One tree in one module (its docstring draws it); a part's private control-flow
    # signals (a leading underscore) stay where they are used.
    for info in pkgutil.walk_packages(ck.__path__, "channelkit."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    elsewhere = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in _subclasses(BaseException)
        if cls.__module__.startswith("channelkit.")
        and cls.__module__ != "channelkit.errors"
        and not cls.__name__.startswith("_")
    )
    assert elsewhere == [], "define these in channelkit/errors.py"


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found
