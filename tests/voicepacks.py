"""Voice packs made for tests: an English pack whose bundled announcements are spoken much slower
than the synthesized voice, so that generated missions overlap when it speaks them."""

from __future__ import annotations

from pathlib import Path

from timekeeper.audio.clipcache import write_wav
from timekeeper.voice.engines import get_engine
from timekeeper.voice.export import export_pack
from timekeeper.voice.tts import decode_file, finish_phrase

BUNDLE_WORDS = {
    "data_transfer": "Data transfer. Repeat, data transfer. Data transfer in five, four, three, two, one.",
    "first_phase_ends": "First phase ends in five, four, three, two, one.",
    "operation_ends": "Operation ends in five, four, three, two, one.",
}


def espeak_wav(path: Path, text: str, voice: str, rate_wpm: int) -> Path:
    """`text` as espeak-ng (the engine timekeeper speaks with, no program) says it with `voice` at
    `rate_wpm`, untrimmed, into the WAV file `path`."""
    engine = get_engine("espeak-ng")
    engine.synthesize(text, engine.resolve(voice), rate_wpm, 1.0, path)
    return path


def spoken_clip(path: Path, text: str, voice: str = "en-gb", rate_wpm: int = 80) -> None:
    """`text` spoken by espeak-ng's `voice`, trimmed so the clip is loud from its first millisecond."""
    raw = espeak_wav(path.with_suffix(".raw.wav"), text, voice, rate_wpm)
    write_wav(path, finish_phrase([decode_file(raw)]))
    raw.unlink()


def slow_clip(path: Path, text: str, rate_wpm: int = 80) -> None:
    """`text` spoken slowly by espeak-ng, trimmed so the clip is loud from its first millisecond."""
    spoken_clip(path, text, "en-gb", rate_wpm)


def slow_bundle_pack(folder: Path) -> Path:
    """The English pack in `folder`, its bundles (BUNDLE_WORDS) recorded slowly."""
    export_pack("en", folder)
    for name, words in BUNDLE_WORDS.items():
        slow_clip(folder / f"{name}.wav", words)
    return folder
