"""Static images (PNG, SVG, PDF) of figures, through the optional `[images]` extra.

plotly renders static images with kaleido, which drives a Chrome-like browser. channelkit
never downloads one: importing `channelkit.plots` points kaleido at the system's Chromium
(`BROWSER_PATH`, unless already set), so `fig.write_image("chart.png")` works once
`pip install 'channelkit[images]'` is done; `save_image` says what is missing otherwise.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path

import plotly.graph_objects as go

from channelkit._constants import PLOT_BROWSER_CANDIDATES
from channelkit.errors import ImageExportError

BROWSER_ENV = "BROWSER_PATH"  # read by choreographer, kaleido's browser driver


class _IgnoredBrowserMessage(logging.Filter):
    """choreographer logs a message from the browser it cannot decode (a read cut short on a
    busy machine) with a whole traceback, then ignores it, as it says, and the image is
    drawn all the same: a traceback in a user's terminal or cron mail for nothing wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("JSONError decoding message. Ignoring")


_IGNORED = _IgnoredBrowserMessage()


def quiet_browser_driver() -> None:
    """Keep choreographer's ignored-message tracebacks out of the output (once), just before
    a browser is driven. choreographer is imported first: its logger must be the one it
    makes (logistro's, with levels a plain `logging.Logger` lacks), never one made here."""
    try:
        from choreographer.channels import pipe
    except ImportError:  # no driver, nothing to quiet (the caller says what to install)
        return
    logger = logging.getLogger(pipe.__name__)
    if _IGNORED not in logger.filters:
        logger.addFilter(_IGNORED)


def system_browser() -> str | None:
    """The path of the system's Chromium/Chrome, or None."""
    for name in PLOT_BROWSER_CANDIDATES:
        found = shutil.which(name) if "/" not in name else (name if Path(name).exists() else None)
        if found:
            return found
    return None


def configure_images() -> None:
    """Point kaleido at the system's browser, unless the user chose one."""
    if os.environ.get(BROWSER_ENV):
        return
    browser = system_browser()
    if browser is not None:
        os.environ[BROWSER_ENV] = browser


def save_image(fig: go.Figure, path: str | Path, **options: object) -> Path:
    """Write `fig` as an image (format from the suffix: .png, .svg, .pdf, .jpeg, .webp).

    ck.plots.save_image(fig, "read-rate.png", scale=2)
    """
    if importlib.util.find_spec("kaleido") is None:
        raise ImageExportError(
            "static images need the optional 'images' extra: pip install 'channelkit[images]'"
        )
    configure_images()
    if not os.environ.get(BROWSER_ENV):
        raise ImageExportError(
            "static images need Chromium or Chrome installed (e.g. apt install chromium), "
            f"or {BROWSER_ENV} set to a Chrome-like browser; channelkit never downloads one"
        )
    target = Path(path)
    quiet_browser_driver()
    fig.write_image(target, **options)
    return target
