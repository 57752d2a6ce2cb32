"""Voice packs made for tests: an English pack whose bundled announcements are spoken much slower
than the synthesized voice, so that generated missions overlap when it speaks them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from timekeeper.voice.export import export_pack
from timekeeper.voice.tts import decode_file, finish_phrase
from timekeeper.wavcache import write_wav

BUNDLE_WORDS = {
    "data_transfer": "Data transfer. Repeat, data transfer. Data transfer in five, four, three, two, one.",
    "first_phase_ends": "First phase ends in five, four, three, two, one.",
    "operation_ends": "Operation ends in five, four, three, two, one.",
}


def slow_clip(path: Path, text: str, rate_wpm: int = 80) -> None:
    """`text` spoken slowly by espeak-ng, trimmed so the clip is loud from its first millisecond."""
    raw = path.with_suffix(".raw.wav")
    subprocess.run(["espeak-ng", "-v", "en-gb", "-s", str(rate_wpm), "-w", str(raw), text], check=True)
    write_wav(path, finish_phrase([decode_file(raw)]))
    raw.unlink()


def slow_bundle_pack(folder: Path) -> Path:
    """The English pack in `folder`, its bundles (BUNDLE_WORDS) recorded slowly."""
    export_pack("en", folder)
    for name, words in BUNDLE_WORDS.items():
        slow_clip(folder / f"{name}.wav", words)
    return folder
