"""A voice for fast tests: every phrase is a tone exactly as long as the shipped table says the
default voice speaks it (voices/durations-<lang>.yaml; the text-length estimate for a phrase the
table lacks), so timelines, overlaps and mixes are laid out as with the real voice, without
synthesizing a word."""

from __future__ import annotations

import numpy as np
import pytest

from timekeeper.audio.pcm import SAMPLE_RATE, Clip, as_stored, ms_to_samples
from timekeeper.grammar.durations import default_measure
from timekeeper.voice.base import Voice

TONE_HZ = 440.0
TONE_PEAK = 0.25  # -12 dBFS: clearly heard in a decoded mix, never clipped by the effects under it
FADE_MS = 10


class MeasuredVoice(Voice):
    """Speaks `language` as tones of the measured phrase lengths; `asked` lists every (key, text) clipped."""

    def __init__(self, language: str) -> None:
        self.name = f"measured-{language}"
        self.language = language
        self._length_ms = default_measure(language)
        self._clips: dict[tuple[str, str], Clip] = {}
        self.asked: list[tuple[str, str]] = []

    def clip(self, key: str, text: str) -> Clip:
        self.asked.append((key, text))
        if (key, text) not in self._clips:
            self._clips[key, text] = tone(self._length_ms(key, text))
        return self._clips[key, text]


def tone(length_ms: int) -> Clip:
    """A TONE_HZ tone lasting `length_ms`, faded in and out, as 16-bit PCM stores it."""
    n = ms_to_samples(length_ms)
    samples = TONE_PEAK * np.sin(2 * np.pi * TONE_HZ * np.arange(n) / SAMPLE_RATE)
    fade = min(ms_to_samples(FADE_MS), n // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade)
        samples[:fade] *= ramp
        samples[n - fade:] *= ramp[::-1]
    return as_stored(samples.astype(np.float32))


def speak_measured(monkeypatch: pytest.MonkeyPatch) -> dict[str, MeasuredVoice]:
    """Every voice opened from now on in this test (by the mix, the CLI, the server) is a
    MeasuredVoice of the language asked for; returns them by language."""
    from timekeeper.voice import select

    opened: dict[str, MeasuredVoice] = {}

    def open_voice(language: str, spec: str | None = None) -> Voice:
        return opened.setdefault(language, MeasuredVoice(language))

    monkeypatch.setattr(select, "open_voice", open_voice)
    return opened
