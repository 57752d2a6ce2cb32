"""Whether the shipped phrase lengths (measured once with one engine) hold on this machine."""

from __future__ import annotations

import re

from timekeeper.errors import TimekeeperError
from timekeeper.grammar.durations import measured_with
from timekeeper.voice.engines import engine_name
from timekeeper.voice.settings import TtsSettings


def timing_caveat(language: str, command: str) -> str | None:
    """A warning for `timekeeper COMMAND` when this machine's speech engine (or the default voice's
    settings) differs from what the shipped phrase lengths of `language` were measured with, so a
    render may be timed differently; None when they agree. Starts no speech engine (espeak-ng
    --version only), so plan and validate stay fast."""
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
