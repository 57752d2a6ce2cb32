"""A silent stand-in for `timekeeper.soundtrack.mix.PreparedMix`: the real timeline, zero-valued PCM.

Used by tests and benchmarks to run the live loop without synthesizing speech.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from timekeeper.grammar.phrases import phrase_book
from timekeeper.grammar.script import Measure, ScriptOptions, Timeline, build_timeline, estimate_ms
from timekeeper.model import Scenario


@dataclass(frozen=True)
class SilentMix:
    timeline: Timeline
    sample_rate: int = 22050
    channels: int = 1
    sample_width: int = 2

    @property
    def duration_ms(self) -> int:
        return self.timeline.duration_ms

    def pcm(self, start_ms: int = 0, chunk_ms: int = 1000) -> Iterator[bytes]:
        """Silence from `start_ms` to the end, in chunks of `chunk_ms`."""
        frame_bytes = self.channels * self.sample_width
        total = (self.duration_ms - start_ms) * self.sample_rate // 1000
        step = max(1, chunk_ms * self.sample_rate // 1000)
        for first in range(0, max(0, total), step):
            yield bytes(min(step, total - first) * frame_bytes)


def silent_mix(
    scenario: Scenario, language: str = "en", measure: Measure = estimate_ms, players: int = 5, solo: bool = False
) -> SilentMix:
    """The timeline of `scenario` (phrase lengths from `measure`) over silence."""
    return SilentMix(build_timeline(scenario, phrase_book(language), measure, ScriptOptions(players, solo)))
