"""Choosing plotly's renderer so figures show in JupyterLab, VS Code and exported HTML.

Inside a Jupyter kernel plotly picks `plotly_mimetype` (or `vscode`), which JupyterLab
and VS Code draw but `nbconvert` HTML export drops. `plotly_mimetype+notebook` adds an
HTML output with plotly.js embedded (once per notebook), which renders offline; the
`*_connected` renderers would fetch plotly.js from a CDN instead.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

import plotly.io as pio

from channelkit._constants import PLOT_RENDERER

# What plotly picks by itself inside a kernel; anything else was chosen by someone.
_PLOTLY_KERNEL_DEFAULTS = frozenset({"plotly_mimetype", "vscode"})


def choose_renderer(
    current: str | None, *, env_renderer: str | None, in_kernel: bool
) -> str | None:
    """The renderer to switch to, or None to leave the user's (or plotly's) choice alone."""
    if env_renderer or not in_kernel or current not in _PLOTLY_KERNEL_DEFAULTS:
        return None
    return PLOT_RENDERER


def _in_kernel() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and type(shell).__module__.startswith("ipykernel.")


def configure_renderer() -> None:
    """Apply `choose_renderer` to `plotly.io.renderers.default` inside a Jupyter kernel, as
    soon as plotly loads its renderers.

    Loading them imports nbformat and jsonschema (4 s on a quiet machine): a notebook pays
    that at its first figure shown through plotly, not at `import channelkit.plots`, so a
    first `ck.widgets.Explorer(wh)` (whose chart needs no renderer) shows at once. Outside
    a kernel there is nothing to change, and a `channelkit report` run never loads them.
    """
    if not _in_kernel():
        return
    if _RENDERERS in sys.modules:
        _choose(pio.renderers)
    elif not any(isinstance(finder, _ChooseOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ChooseOnImport())


_RENDERERS = "plotly.io._renderers"


def _choose(renderers: Any) -> None:
    chosen = choose_renderer(
        renderers.default, env_renderer=os.environ.get("PLOTLY_RENDERER"), in_kernel=True
    )
    if chosen is not None:
        renderers.default = chosen


class _ChooseOnImport(importlib.abc.MetaPathFinder):
    """Finds `plotly.io._renderers` as the other finders do, once, and chooses the renderer
    right after the module has run (every way plotly displays a figure imports it first)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _RENDERERS:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenChoose(spec.loader)
        return spec


class _ThenChoose(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:  # get_source, is_package...: the file's loader's
        return getattr(self._loader, name)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _choose(module.renderers)
