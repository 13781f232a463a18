"""The email's chart PNGs deflated again: the same pixels, fewer bytes, anything else as
it came."""

from __future__ import annotations

import struct
import zlib

from channelkit.reports.images import smaller_png
from fixtures.png import png_pixels


def _png(width: int, height: int, level: int) -> bytes:
    """An RGB PNG of stripes and a gradient, its data deflated at `level` in three IDAT
    chunks (as Chromium writes several)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 7 % 256, (y // 4) * 16 % 256, 200)) for x in range(width))
        for y in range(height)
    )
    data = zlib.compress(rows, level)
    cut = len(data) // 3
    thirds = [data[:cut], data[cut : 2 * cut], data[2 * cut :]]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + b"".join(chunk(b"IDAT", part) for part in thirds)
        + chunk(b"IEND", b"")
    )


def test_the_same_pixels_in_fewer_bytes() -> None:
    fast = _png(120, 80, 1)
    small = smaller_png(fast)
    assert len(small) < len(fast)
    assert png_pixels(small) == png_pixels(fast)
    assert small.count(b"IDAT") == 1 and small.endswith(b"IEND\xaeB`\x82")


def test_what_is_not_a_png_or_already_small_comes_back_as_it_was() -> None:
    assert smaller_png(b"GIF89a...") == b"GIF89a..."
    best = _png(40, 30, 9)
    assert smaller_png(best) == best
