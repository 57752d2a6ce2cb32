"""Where the ffmpeg program is (it encodes every track and decodes music and clips)."""

from __future__ import annotations

import shutil

from timekeeper.errors import MissingToolError

FFMPEG_HINT = "install it with 'sudo apt-get install ffmpeg' (Debian/Ubuntu), 'brew install ffmpeg' (macOS) or from ffmpeg.org"


def find_ffmpeg() -> str:
    found = shutil.which("ffmpeg")
    if found is None:
        raise MissingToolError(f"ffmpeg is not installed; {FFMPEG_HINT}")
    return found
