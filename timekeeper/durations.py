"""Phrase lengths of the default synthesized voice, measured once and shipped as a table.

Validation and the generator judge spacing with these lengths without synthesizing anything.
`tools/measure_phrases.py` rewrites voices/durations-<lang>.yaml from the real TTS voice; the
table's header names the engine and settings it was measured with, and `timing_caveat` says
when this machine would speak otherwise.
"""

from __future__ import annotations

import re
from functools import cache

import yaml

from timekeeper.errors import TimekeeperError
from timekeeper.paths import voices_dir
from timekeeper.script import Measure, estimate_ms

HEADER = re.compile(r"# engine: (?P<engine>[^,]+), voice: (?P<voice>[^,]+), rate: (?P<rate>\d+) wpm, volume: (?P<volume>[\d.]+)")


@cache
def shipped_durations(language: str) -> dict[str, int]:
    """key -> milliseconds for `language`, or {} if no table is shipped."""
    path = voices_dir() / f"durations-{language}.yaml"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    return {str(key): int(value) for key, value in (data.get("durations_ms") or {}).items()}


def default_measure(language: str) -> Measure:
    """Lengths of the default voice where measured, else a text-length estimate."""
    table = shipped_durations(language)

    def measure(key: str, text: str) -> int:
        return table.get(key) or estimate_ms(key, text)

    return measure


@cache
def measured_with(language: str) -> tuple[str, str, int, float] | None:
    """(engine, voice, rate in words/min, volume) that the shipped table of `language` was measured
    with, from its header; None without a table or header."""
    path = voices_dir() / f"durations-{language}.yaml"
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as handle:
        match = HEADER.search("".join(handle.readline() for _ in range(3)))
    if match is None:
        return None
    return match["engine"], match["voice"], int(match["rate"]), float(match["volume"])


def timing_caveat(language: str, command: str) -> str | None:
    """A warning for `timekeeper COMMAND` when this machine's speech engine (or the default voice's
    settings) differs from what the shipped phrase lengths of `language` were measured with, so a
    render may be timed differently; None when they agree. Starts no speech engine (espeak-ng
    --version only), so plan and validate stay fast."""
    from timekeeper.voice.engines import engine_name
    from timekeeper.voice.tts import TtsSettings

    table = measured_with(language)
    if table is None:
        return None
    settings = TtsSettings.default(language)
    try:
        engine = engine_name()
    except TimekeeperError as error:
        engine = f"no usable speech engine ({error.detail})"
    if (engine, settings.voice, settings.rate_wpm, settings.volume) == table:
        return None
    was, now = _named(table[0]), _named(engine)
    if engine == table[0]:
        was += f" (voice {table[1]}, {table[2]} wpm, volume {table[3]:g})"
        now += f" (voice {settings.voice}, {settings.rate_wpm} wpm, volume {settings.volume:g})"
    return (f"phrase lengths were measured with {was}; this machine has {now}, so the times may differ from the"
            f" render: run `timekeeper {command} ... --voice {settings.voice}` for exact timing (clips are cached)")


def _named(engine: str) -> str:
    """`espeak-ng-1.51` as `espeak-ng 1.51`, `pyttsx3-2.99-sapi5` as `pyttsx3 2.99 (sapi5)`."""
    return re.sub(r"^(espeak-ng|pyttsx3)-([^-]+)(?:-(.+))?$", lambda m: f"{m[1]} {m[2]}" + (f" ({m[3]})" if m[3] else ""),
                  engine)
