"""Choosing plotly's renderer so figures show in JupyterLab, VS Code and exported HTML.

Inside a Jupyter kernel plotly picks `plotly_mimetype` (or `vscode`), which JupyterLab
and VS Code draw but `nbconvert` HTML export drops. `plotly_mimetype+notebook` adds an
HTML output with plotly.js embedded (once per notebook), which renders offline; the
`*_connected` renderers would fetch plotly.js from a CDN instead.
"""

from __future__ import annotations

import os
import sys

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
    """Apply `choose_renderer` to `plotly.io.renderers.default` inside a Jupyter kernel."""
    if not _in_kernel():
        # Outside a kernel there is nothing to change, and merely reading
        # `pio.renderers` imports nbformat and jsonschema: seconds that a
        # `channelkit report` run should not pay.
        return
    chosen = choose_renderer(
        pio.renderers.default,
        env_renderer=os.environ.get("PLOTLY_RENDERER"),
        in_kernel=True,
    )
    if chosen is not None:
        pio.renderers.default = chosen
