"""Make the page's screenshots small enough to keep in docs/screenshots: each PNG scaled to its CSS
pixels (phones are shot at twice their size) and reduced to a 128-colour palette.

    TIMEKEEPER_SCREENSHOTS=/tmp/shots python -m pytest --full tests/test_serve_screen.py
    python tools/shrink_screenshots.py /tmp/shots docs/screenshots
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

MAX_WIDTH = 640  # CSS pixels kept: the laptop's 1280 px halved, a phone's 720 (at 2x) halved
COLOURS = 128


def shrink(source: Path, target: Path) -> int:
    with Image.open(source) as image:
        picture = image.convert("RGB")
        if picture.width > MAX_WIDTH:
            picture = picture.resize((picture.width // 2, picture.height // 2), Image.Resampling.LANCZOS)
        picture.quantize(COLOURS, method=Image.Quantize.FASTOCTREE).save(target, optimize=True)
    return target.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="example: python tools/shrink_screenshots.py /tmp/shots docs/screenshots")
    parser.add_argument("source", type=Path, help="folder of PNG screenshots")
    parser.add_argument("target", type=Path, help="folder to write the small PNGs to")
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    for path in sorted(args.source.glob("*.png")):
        size = shrink(path, args.target / path.name)
        print(f"{path.name}: {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
