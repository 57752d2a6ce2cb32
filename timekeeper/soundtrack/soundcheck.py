"""Measure a rendered soundtrack against the sound targets (issue "a soundtrack that carries").

The whole track is measured by FFmpeg's ebur128 filter (codec.py, in PyAV) on the rendered file (integrated
loudness, loudness range, true peak); each element (speech, klaxon, beep, static, bed) by
pyloudnorm over its own windows, from the mix's layers rendered alone. Timing targets come from
the timeline every output reads. Used by benchmarks/bench_sound.py and the tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from timekeeper.audio import effects
from timekeeper.audio.codec import decode, ebur128
from timekeeper.audio.loudness import integrated_lufs
from timekeeper.audio.pcm import SAMPLE_RATE
from timekeeper.grammar.script import GAP_MS, Cue, Sound, Speech, Timeline
from timekeeper.soundtrack.mix import BED, EFFECTS, SPEECH, STATIC, PreparedMix

PHONE_LOW_HZ = 300.0  # a phone speaker plays little below this
STATIC_TOP_HZ = 8000.0
SILENCE_DBFS = -60.0
ATTACK_WINDOW_MS = 5
CHUNK_S = 10

# name -> (what is measured, the check); every check takes the figures and says True when met.
TARGETS: dict[str, str] = {
    "integrated": "integrated loudness -16 LUFS +/- 1",
    "true_peak": "true peak <= -1 dBTP",
    "lra": "loudness range <= 10 LU",
    "voice_loudest": "klaxon, beep and static each >= 3 LU below speech",
    "bed_under_speech": "the bed under speech >= 15 LU below it",
    "bed_on_phone": ">= half of the bed's energy above 300 Hz in every phase",
    "bed_grows": "the bed louder phase by phase",
    "static_band": "static: < 1 % of its energy above 8 kHz",
    "static_fades": "static fades in and out over >= 30 ms",
    "effects_band": "klaxon, beep and jump band-limited: < -50 dB of their energy above 7 kHz (no aliases)",
    "lead_in": ">= 500 ms before \"Alert\"",
    "ending": "bed faded out, a jump after the last words, the file ends in >= 1 s of silence",
    "pacing": ">= 500 ms between sentences and before \"Repeat\" in every cue not squeezed to fit",
    "no_overlap": "no two announcements overlap",
}


@dataclass
class SoundFigures:
    """Everything measured on one render (loudness in LUFS/LU, peaks in dBTP, times in ms)."""

    integrated_lufs: float = 0.0
    true_peak_dbtp: float = 0.0
    lra_lu: float = 0.0
    speech_lufs: float = 0.0
    element_lufs: dict[str, float] = field(default_factory=dict)  # alert, beep, static
    bed_under_speech_lufs: float = 0.0
    bed_phase_lufs: list[float] = field(default_factory=list)
    bed_phase_high_share: list[float] = field(default_factory=list)
    static_high_share: float = 0.0
    static_fade_ms: tuple[float, float] = (0.0, 0.0)  # in, out
    effects_alias_db: float = 0.0  # the largest share of an effect's energy above BAND_LIMIT_HZ, dB
    lead_in_ms: int = 0
    bed_left_at_end: float = 0.0  # peak of the bed in the last second
    jump_after_words_ms: int = -1
    tail_silence_ms: int = 0
    min_sentence_gap_ms: int = 0
    squeezed: list[str] = field(default_factory=list)  # "m:ss kind (gap ms, tempo)" of squeezed cues
    overlaps: int = 0

    def met(self) -> dict[str, bool]:
        loudest_other = max(self.element_lufs.values(), default=float("-inf"))
        return {
            "integrated": abs(self.integrated_lufs + 16.0) <= 1.0,
            "true_peak": self.true_peak_dbtp <= -1.0,
            "lra": self.lra_lu <= 10.0,
            "voice_loudest": self.speech_lufs - loudest_other >= 3.0,
            "bed_under_speech": self.speech_lufs - self.bed_under_speech_lufs >= 15.0,
            "bed_on_phone": min(self.bed_phase_high_share, default=0.0) >= 0.5,
            "bed_grows": all(a < b for a, b in zip(self.bed_phase_lufs, self.bed_phase_lufs[1:])),
            "static_band": self.static_high_share < 0.01,
            "static_fades": min(self.static_fade_ms) >= 30.0,
            "effects_band": self.effects_alias_db < -50.0,
            "lead_in": self.lead_in_ms >= 500,
            "ending": self.bed_left_at_end == 0.0 and self.jump_after_words_ms >= 0 and self.tail_silence_ms >= 1000,
            "pacing": self.min_sentence_gap_ms >= GAP_MS,
            "no_overlap": self.overlaps == 0,
        }

    def failures(self) -> list[str]:
        return [f"{name}: {TARGETS[name]}" for name, ok in self.met().items() if not ok]


def _samples(ms: int) -> int:
    return ms * SAMPLE_RATE // 1000


def layer(mix: PreparedMix, name: str) -> Iterator[tuple[int, np.ndarray]]:
    """(start sample, samples) chunks of one layer of the mix, alone."""
    step = CHUNK_S * SAMPLE_RATE
    for begin in range(0, mix.n_samples, step):
        yield begin, mix.mix_chunk(begin, min(step, mix.n_samples - begin), None, frozenset({name}))


def windows(mix: PreparedMix, name: str, spans: list[tuple[int, int]]) -> np.ndarray:
    """Layer `name` over the (start, end) sample spans, joined (spans sorted, not overlapping)."""
    pieces = []
    for begin, chunk in layer(mix, name):
        end = begin + len(chunk)
        for lo, hi in spans:
            lo, hi = max(lo, begin), min(hi, end)
            if lo < hi:
                pieces.append(chunk[lo - begin : hi - begin])
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _high_share(samples: np.ndarray, above_hz: float) -> float:
    """Share of the energy of `samples` above `above_hz` (1-second FFT blocks, summed)."""
    block = SAMPLE_RATE
    total = high = 0.0
    freq = np.fft.rfftfreq(block, 1 / SAMPLE_RATE)
    for start in range(0, len(samples) - block + 1, block):
        power = np.abs(np.fft.rfft(samples[start : start + block].astype(np.float64))) ** 2
        total += power.sum()
        high += power[freq > above_hz].sum()
    return high / total if total else 0.0


def _fade_ms(samples: np.ndarray) -> float:
    """How long `samples` take from their first sound to 90 % of their typical level (the
    level is the RMS over ATTACK_WINDOW_MS, timed at the middle of its window)."""
    width = _samples(ATTACK_WINDOW_MS)
    rms = np.sqrt(np.convolve(samples.astype(np.float64) ** 2, np.ones(width) / width, mode="valid"))
    start = int(np.argmax(np.abs(samples) > 0))
    steady = float(np.median(rms[start:])) if len(rms) > start else 0.0
    full = np.flatnonzero(rms[start:] >= 0.9 * steady)
    return ((int(full[0]) if len(full) else 0) + width / 2) * 1000 / SAMPLE_RATE


def _parts(cue: Cue, kind: type) -> list:
    return [part for part in cue.parts if isinstance(part, kind)]


def pacing(timeline: Timeline) -> tuple[int, list[str], int]:
    """(smallest gap between sentences in cues spoken at their natural pace, the squeezed cues,
    overlaps). Counts and the lead into them are timed by the grammar, not gaps."""
    from timekeeper.grammar.times import format_time

    smallest = 10**9
    squeezed = []
    for cue in timeline.cues:
        if not cue.pace.natural:
            squeezed.append(f"{format_time(cue.at_ms)} {cue.kind.value} (gap {cue.pace.gap_ms} ms, x{cue.pace.tempo})")
            continue
        spoken = [part for part in cue.parts if not (isinstance(part, Sound) and part.key == "jump")]
        for first, second in zip(spoken, spoken[1:]):
            keys = (getattr(first, "key", ""), getattr(second, "key", ""))
            if any(key.startswith("count_") or key.endswith("_ends_in") or key in ("data_transfer_in", "beep")
                   for key in keys):
                continue
            smallest = min(smallest, second.at_ms - first.end_ms)
    return smallest, squeezed, len(timeline.overlaps())


def measure(mix: PreparedMix, rendered: Path) -> SoundFigures:
    """Every figure of `rendered` (the file `mix` was encoded to)."""
    figures = SoundFigures()
    figures.integrated_lufs, figures.lra_lu, figures.true_peak_dbtp = ebur128(rendered)
    cues = mix.timeline.cues
    speech_spans = _merged([(_samples(p.at_ms), _samples(p.end_ms)) for c in cues for p in _parts(c, Speech)])
    figures.speech_lufs = integrated_lufs(windows(mix, SPEECH, speech_spans))
    for key in ("alert", "beep"):
        spans = _merged([(_samples(p.at_ms), _samples(p.end_ms)) for c in cues for p in _parts(c, Sound) if p.key == key])
        if spans:
            figures.element_lufs[key] = integrated_lufs(windows(mix, EFFECTS, spans))
    static_spans = [(_samples(bed.at_ms), _samples(bed.end_ms)) for bed in mix.timeline.beds]
    if static_spans:
        static = windows(mix, STATIC, static_spans)
        figures.element_lufs["static"] = integrated_lufs(static)
        figures.static_high_share = _high_share(static, STATIC_TOP_HZ)
        first = static[: static_spans[0][1] - static_spans[0][0]]
        figures.static_fade_ms = (_fade_ms(first), _fade_ms(first[::-1]))
    else:
        figures.static_fade_ms = (float("inf"), float("inf"))
    if mix.settings.background:
        figures.bed_under_speech_lufs = integrated_lufs(windows(mix, BED, speech_spans))
        ends = [0, *(_samples(end) for end in mix.timeline.phase_ends_ms)]
        for lo, hi in zip(ends, ends[1:]):
            bed = windows(mix, BED, [(lo, hi)])
            figures.bed_phase_lufs.append(integrated_lufs(bed))
            figures.bed_phase_high_share.append(_high_share(bed, PHONE_LOW_HZ))
        last_second = windows(mix, BED, [(mix.n_samples - SAMPLE_RATE, mix.n_samples)])
        figures.bed_left_at_end = float(np.abs(last_second).max()) if len(last_second) else 0.0
    else:
        figures.bed_under_speech_lufs = float("-inf")
    alias = max(_high_share(np.tile(clip, 3), effects.BAND_LIMIT_HZ) for clip in (effects.alert(), effects.beep(), effects.jump()))
    figures.effects_alias_db = 10 * np.log10(alias) if alias > 0 else float("-inf")
    speech_starts = [p.at_ms for c in cues for p in _parts(c, Speech)]
    figures.lead_in_ms = min(speech_starts)
    last_words = max(p.end_ms for c in cues for p in _parts(c, Speech))
    jumps = [p.at_ms for c in cues for p in _parts(c, Sound) if p.key == "jump"]
    figures.jump_after_words_ms = min(jumps) - last_words if jumps else -1
    decoded = decode(rendered)
    loud = np.flatnonzero(np.abs(decoded) > 10 ** (SILENCE_DBFS / 20))
    figures.tail_silence_ms = (len(decoded) - (int(loud[-1]) + 1 if len(loud) else 0)) * 1000 // SAMPLE_RATE
    figures.min_sentence_gap_ms, figures.squeezed, figures.overlaps = pacing(mix.timeline)
    return figures
