"""PDF and PNG of a report, rendered by the system's Chromium (never a downloaded one).

The browser is driven over the DevTools protocol by choreographer, which comes with
kaleido in the `images` extra. Charts are drawn at the width they get on paper before the
PDF is printed, so nothing is cut at the margin.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import os
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from channelkit._constants import (
    REPORT_PDF_PAPER_DEFAULT,
    REPORT_PDF_PAPERS,
    REPORT_PDF_VIEWPORT_WIDTH,
    REPORT_PNG_VIEWPORT_WIDTH,
    REPORT_RENDER_TIMEOUT_S,
)
from channelkit.errors import ReportError
from channelkit.reports.files import write_atomic_bytes

T = TypeVar("T")
IMAGES_EXTRA = "pip install 'channelkit[images]'"
# Resolves once plotly has drawn every figure of the page.
_CHARTS_DRAWN = """new Promise((resolve) => {
  const done = () => document.querySelectorAll('.plotly-graph-div:not(.js-plotly-plot)')
    .length === 0 && document.readyState === 'complete';
  const wait = () => done() ? resolve(true) : setTimeout(wait, 50);
  wait();
})"""


def find_browser() -> str | None:
    """The Chromium to use: `BROWSER_PATH` (as for kaleido), else the system's."""
    from channelkit.plots.images import BROWSER_ENV, quiet_browser_driver, system_browser

    quiet_browser_driver()
    configured = os.environ.get(BROWSER_ENV)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return system_browser()


def check_browser() -> str:
    """The browser's path, or a `ReportError` naming what to install."""
    try:
        import choreographer  # noqa: F401
    except ImportError:
        raise ReportError(
            f"PDF and PNG reports need kaleido (and its choreographer): {IMAGES_EXTRA}"
        ) from None
    path = find_browser()
    if path is None:
        raise ReportError(
            "PDF and PNG reports need Chromium and none was found: install it with your "
            "system's packages (Debian: apt-get install chromium) or set BROWSER_PATH; "
            "channelkit never downloads a browser"
        )
    return path


def render_file(html: str, out: Path, fmt: str, paper: str = REPORT_PDF_PAPER_DEFAULT) -> None:
    """Render the page `html` to `out` as "pdf" (on `paper`: "a4" or "letter") or "png",
    all at once or not at all."""
    browser = check_browser()
    with tempfile.TemporaryDirectory(prefix="channelkit-report-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        data: bytes = run_async(_render(browser, page.as_uri(), fmt, REPORT_PDF_PAPERS[paper]))
    write_atomic_bytes(out, data)


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on its own event loop, also from inside Jupyter's running one."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(asyncio.run, coroutine).result()
        except TimeoutError:
            raise ReportError(
                f"Chromium did not finish within {REPORT_RENDER_TIMEOUT_S} s"
            ) from None


# The page's own print preparation (open every folded section, charts at the paper's
# width), awaited: Chromium's printToPDF does not wait for what `beforeprint` starts.
_PREPARE_PRINT = "window.channelkitBeforePrint ? window.channelkitBeforePrint() : null"


async def _render(browser_path: str, url: str, fmt: str, paper_mm: tuple[float, float]) -> bytes:
    import choreographer

    async with asyncio.timeout(REPORT_RENDER_TIMEOUT_S):
        try:
            async with choreographer.Browser(path=browser_path, headless=True) as browser:
                tab = browser.get_tab()
                if tab is None:
                    raise ReportError(f"{browser_path} opened no page")
                width = REPORT_PDF_VIEWPORT_WIDTH if fmt == "pdf" else REPORT_PNG_VIEWPORT_WIDTH
                await _command(
                    tab,
                    "Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                )
                await _command(tab, "Page.enable")
                loaded = tab.subscribe_once("Page.loadEventFired")
                await _command(tab, "Page.navigate", {"url": url})
                await loaded
                await _command(
                    tab,
                    "Runtime.evaluate",
                    {"expression": _CHARTS_DRAWN, "awaitPromise": True},
                )
                if fmt == "pdf":
                    await _command(
                        tab,
                        "Runtime.evaluate",
                        {"expression": _PREPARE_PRINT, "awaitPromise": True},
                    )
                    paper_width, paper_height = (mm / 25.4 for mm in paper_mm)
                    result = await _command(
                        tab,
                        "Page.printToPDF",
                        {
                            "printBackground": True,
                            "paperWidth": paper_width,
                            "paperHeight": paper_height,
                            "displayHeaderFooter": False,
                        },
                    )
                else:
                    metrics = await _command(tab, "Page.getLayoutMetrics")
                    size = metrics["cssContentSize"]
                    clip = {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1}
                    result = await _command(
                        tab,
                        "Page.captureScreenshot",
                        {"format": "png", "captureBeyondViewport": True, "clip": clip},
                    )
                return base64.b64decode(result["data"])
        except ReportError:
            raise
        except Exception as exc:  # the browser failed to start or crashed
            raise ReportError(
                f"Chromium ({browser_path}) could not render the report: "
                f"{type(exc).__name__}: {exc}"
            ) from None


async def _command(tab: Any, method: str, params: dict[str, Any] | None = None) -> Any:
    response = await tab.send_command(method, params or {})
    if "error" in response:
        raise ReportError(f"Chromium refused {method}: {response['error'].get('message')}")
    return response.get("result", {})
