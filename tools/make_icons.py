"""Draw the page's app icons (timekeeper/serve/assets/icon-192.png and icon-512.png): the clock of
icon.svg on the page's dark background, full bleed so phones may mask it round ("maskable").

    python tools/make_icons.py          # writes both PNGs (a few KB each)
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

import numpy as np

ASSETS = Path(__file__).resolve().parent.parent / "timekeeper" / "serve" / "assets"
BACKGROUND = (7, 11, 22)
DISC, RING, HAND, DOT = (13, 24, 48), (79, 209, 255), (255, 204, 51), (255, 77, 94)


def _segment_distance(x, y, a, b):
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = np.clip(((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy), 0, 1)
    return np.hypot(x - (ax + t * dx), y - (ay + t * dy))


def draw(size: int) -> np.ndarray:
    """RGB pixels of the icon; shapes in icon.svg's 32-unit box, scaled into the safe middle 80 %."""
    unit = size * 0.8 / 32
    centre = size / 2
    y, x = np.mgrid[0:size, 0:size] + 0.5
    x, y = (x - centre) / unit + 16, (y - centre) / unit + 16
    image = np.empty((size, size, 3))
    image[:] = BACKGROUND
    aa = 1 / unit  # one pixel, in icon units: soft edges

    def paint(distance, colour):
        cover = np.clip(0.5 - distance / aa, 0, 1)[..., None]
        image[:] = image * (1 - cover) + np.array(colour) * cover

    radius = np.hypot(x - 16, y - 16)
    paint(radius - 14, DISC)
    paint(np.abs(radius - 14) - 1, RING)
    paint(_segment_distance(x, y, (16, 6), (16, 16)) - 1.5, HAND)
    paint(_segment_distance(x, y, (16, 16), (23, 20)) - 1.5, HAND)
    paint(radius - 2.5, DOT)
    return np.round(image).astype(np.uint8)


def png(pixels: np.ndarray) -> bytes:
    height, width, _ = pixels.shape
    raw = b"".join(b"\0" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> int:
    for size in (192, 512):
        path = ASSETS / f"icon-{size}.png"
        path.write_bytes(png(draw(size)))
        print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
