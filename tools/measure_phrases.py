"""Measure every phrase of the default synthesized voice and write voices/durations-<lang>.yaml.

Validation and the generator time cues from these tables without synthesizing anything.
Run it after changing a phrase, a TTS rate or the engine:

    python tools/measure_phrases.py            # all languages
    python tools/measure_phrases.py de es      # some
    python tools/measure_phrases.py --pace piper:en_US-joe-medium   # fit a Piper voice's pace, ship it

The pace of a Piper voice installed with timekeeper is fitted here once (timekeeper.voice.pace)
and shipped as voices/pace-*.json, so a user's first render with it does not fit.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from timekeeper.files.paths import voices_dir
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.voice.engines import get_engine
from timekeeper.voice.tts import TtsVoice


def measure_language(language: str) -> dict[str, int]:
    """key -> ms of every spoken phrase of `language`, freshly synthesized (no cache reuse)."""
    book = phrase_book(language)
    with tempfile.TemporaryDirectory() as scratch:
        voice = TtsVoice(language, folder=Path(scratch))
        voice.prepare(book.spoken.items())
        return {key: voice.measure(key, text) for key, text in book.spoken.items()}


def table_text(language: str, durations: dict[str, int]) -> str:
    settings = TtsVoice(language).settings
    lines = [
        f"# Phrase lengths of the default {language} voice, written by tools/measure_phrases.py.",
        f"# engine: {get_engine().name}, voice: {settings.voice}, rate: {settings.rate_wpm} wpm,"
        f" volume: {settings.volume} (silence trimmed)",
        "durations_ms:",
    ]
    lines += [f"  {key}: {ms}" for key, ms in durations.items()]
    return "\n".join(lines) + "\n"


def write_table(language: str) -> Path:
    path = voices_dir() / f"durations-{language}.yaml"
    text = table_text(language, measure_language(language))
    fd, temp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, path)
    return path


def ship_pace(spec: str) -> Path:
    """Fit the pace of the Piper voice `spec` (every official track without overlaps) into voices/."""
    from timekeeper.voice.neural import NeuralVoice, find_model
    from timekeeper.voice.pace import fitted_scale

    model = find_model(spec)
    path = voices_dir() / NeuralVoice(model.language, model).pace_file
    path.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        fitted_scale(lambda scale: NeuralVoice(model.language, model, scale, Path(scratch)), model.language, path)
    return path


def main(argv: list[str]) -> int:
    if argv[:1] == ["--pace"]:
        print(f"wrote {ship_pace(argv[1])}")
        return 0
    for language in argv or LANGUAGES:
        print(f"wrote {write_table(language)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
