"""Fit a neural voice's speaking pace so that none of the 34 official tracks overlaps.

Piper voices speak at their own pace, often slower than the brisk espeak-ng settings the game's
tight moments need (two data transfers 10 s apart in mission 3). `fitted_scale` measures every
phrase at the voice's own pace, finds the slowest pace (largest length scale, at most 1.0) at
which no official track overlaps, checks it with the real clips at that pace, and remembers the
result beside the clip cache, so the fit runs once per voice and language. The fit of a voice
installed with timekeeper (joe, English) ships in voices/ (`tools/measure_phrases.py --pace`),
so even the first render with it does not fit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from timekeeper.audio.pcm import Progress
from timekeeper.files.atomicfile import replacing
from timekeeper.grammar.phrases import phrase_book
from timekeeper.grammar.script import Measure, ScriptOptions, build_timeline
from timekeeper.voice.base import Voice

SCALES = tuple(round(1.0 - 0.04 * step, 2) for step in range(11))  # 1.0 down to 0.6
RETRY_STEP = 0.03
OPTIONS = (ScriptOptions(), ScriptOptions(players=4), ScriptOptions(solo=True))
# The espeak-ng rate of each language is the slowest from espeak-ng's own default (175 words per
# minute) up at which the official tracks fit with at most MAX_SQUEEZED_CUES squeezed cues
# (tools/measure_rates.py, docs/voices.md "How fast the synthesized voice speaks").
ESPEAK_DEFAULT_WPM = 175
MAX_SQUEEZED_CUES = 12  # of the 2,632 cues of the 34 tracks x (5 players, 4 players, solo): under 0.5 %


@dataclass(frozen=True)
class Pressure:
    """How the 34 official tracks (5 players, 4 players, solo) fare with one set of phrase lengths."""

    cues: int
    overlaps: int
    squeezed: int  # cues the grammar had to squeeze (shorter gaps, perhaps faster speech) to fit
    sped_up: int  # of those, the ones spoken faster


def official_pressure(language: str, measure: Measure) -> Pressure:
    """Cues, overlaps and squeezed cues over every official track with `measure`."""
    from timekeeper.scenario.catalog import builtin_paths, load_scenario

    book = phrase_book(language)
    names = sorted(name for name, path in builtin_paths().items() if path.parent.name == "official")
    cues = overlaps = squeezed = sped_up = 0
    for name in names:
        for options in OPTIONS:
            timeline = build_timeline(load_scenario(name), book, measure, options)
            cues += len(timeline.cues)
            overlaps += len(timeline.overlaps())
            squeezed += sum(1 for cue in timeline.cues if not cue.pace.natural)
            sped_up += sum(1 for cue in timeline.cues if cue.pace.tempo > 1.0)
    return Pressure(cues, overlaps, squeezed, sped_up)


def official_overlaps(language: str, measure: Measure) -> int:
    """How many cues overlap over the 34 official tracks (5 players, 4 players, solo) with `measure`."""
    return official_pressure(language, measure).overlaps


def shipped_scale(name: str) -> float | None:
    """The length scale kept in voices/`name` (a fit shipped with timekeeper), else None."""
    from timekeeper.files.paths import voices_dir

    try:
        return float(json.loads((voices_dir() / name).read_text(encoding="utf-8"))["length_scale"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def fitted_scale(voice_at: Callable[[float], Voice], language: str, remembered: Path,
                 progress: Progress | None = None) -> float:
    """The length scale (1.0 = the voice's own pace) at which no official track overlaps, for the
    voice `voice_at(scale)` speaking at each scale; the result is kept in the file `remembered`."""
    if remembered.is_file():
        try:
            return float(json.loads(remembered.read_text(encoding="utf-8"))["length_scale"])
        except (ValueError, KeyError, TypeError):
            remembered.unlink(missing_ok=True)
    phrases = list(phrase_book(language).spoken.items())
    natural = voice_at(1.0)
    natural.prepare(phrases, progress)
    lengths = {key: natural.measure(key, text) for key, text in phrases}
    def at_scale(scale: float) -> Measure:
        return lambda key, text: round(lengths[key] * scale)

    scale = next((s for s in SCALES if official_overlaps(language, at_scale(s)) == 0), SCALES[-1])
    while True:  # the real clips at that pace decide
        voice = voice_at(scale)
        voice.prepare(phrases, progress)
        overlaps = official_overlaps(language, voice.measure)
        if overlaps == 0 or scale <= SCALES[-1]:
            break
        scale = round(max(SCALES[-1], scale - RETRY_STEP), 3)
    remembered.parent.mkdir(parents=True, exist_ok=True)
    with replacing(remembered) as temp:
        temp.write_text(json.dumps({"length_scale": scale, "official_overlaps": overlaps}), encoding="utf-8")
    return scale
