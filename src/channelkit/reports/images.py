"""Static PNGs of a report's charts (for email), drawn by kaleido in the system's Chromium.

kaleido (the `images` extra) renders plotly figures in a headless browser; it is given the
browser `channelkit.reports.browser` finds and MathJax off, so nothing is downloaded or
fetched from a CDN.
"""

from __future__ import annotations

import struct
import zlib
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
                images.append(smaller_png(await renderer.calc_fig(figure, opts=opts)))
        return images

    try:
        return run_async(render())
    except ReportError:
        raise
    except Exception as exc:
        raise ReportError(
            f"kaleido could not draw the chart images: {type(exc).__name__}: {exc}"
        ) from None


_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def smaller_png(png: bytes) -> bytes:
    """The same PNG, pixel for pixel, its image data deflated again at zlib's best level:
    Chromium writes its PNGs fast, and the email carries four (measured on the demo's
    weekly charts: a fifth smaller, room for the report attached beside them).

    A PNG is its signature, then chunks of a 4-byte length, a 4-byte type, the data and a
    CRC-32 of type and data; the IDAT chunks' data, joined, are one zlib stream (W3C PNG
    specification, "Chunk layout" and "IDAT Image data")."""
    if not png.startswith(_SIGNATURE):
        return png
    chunks: list[tuple[bytes, bytes]] = []
    at = len(_SIGNATURE)
    while at + 8 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        chunks.append((png[at + 4 : at + 8], png[at + 8 : at + 8 + length]))
        at += 12 + length
    image = b"".join(data for kind, data in chunks if kind == b"IDAT")
    try:
        deflated = zlib.compress(zlib.decompress(image), 9)
    except zlib.error:
        return png
    if len(deflated) >= len(image):
        return png
    out, placed = [_SIGNATURE], False
    for kind, data in chunks:
        if kind == b"IDAT":
            if placed:
                continue
            data, placed = deflated, True
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        out.append(struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc))
    return b"".join(out)
