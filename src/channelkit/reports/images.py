"""Static PNGs of a report's charts (for email), drawn by kaleido in the system's Chromium.

kaleido (the `images` extra) renders plotly figures in a headless browser; it is given the
browser `channelkit.reports.browser` finds and MathJax off, so nothing is downloaded or
fetched from a CDN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channelkit._constants import (
    REPORT_EMAIL_CHART_SCALE,
    REPORT_EMAIL_CHART_SIZE,
    REPORT_RENDER_TIMEOUT_S,
)
from channelkit.errors import ReportError
from channelkit.reports.browser import IMAGES_EXTRA, check_browser, run_async


def chart_images(figures: Sequence[Any]) -> list[bytes]:
    """One PNG per plotly figure, in order, from one browser session: REPORT_EMAIL_CHART_SIZE
    CSS px at REPORT_EMAIL_CHART_SCALE pixels per px."""
    if not figures:
        return []
    browser = check_browser()
    try:
        import kaleido
    except ImportError:
        raise ReportError(f"chart images need kaleido: {IMAGES_EXTRA}") from None
    width, height = REPORT_EMAIL_CHART_SIZE

    async def render() -> list[bytes]:
        images: list[bytes] = []
        async with kaleido.Kaleido(
            path=browser, mathjax=False, timeout=REPORT_RENDER_TIMEOUT_S
        ) as renderer:
            for figure in figures:
                opts = {
                    "format": "png",
                    "width": width,
                    "height": height,
                    "scale": REPORT_EMAIL_CHART_SCALE,
                }
                images.append(await renderer.calc_fig(figure, opts=opts))
        return images

    try:
        return run_async(render())
    except ReportError:
        raise
    except Exception as exc:
        raise ReportError(
            f"kaleido could not draw the chart images: {type(exc).__name__}: {exc}"
        ) from None
