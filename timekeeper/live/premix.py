"""The whole soundtrack mixed into memory before the clock starts (nothing is mixed while playing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from timekeeper.grammar.script import Timeline

if TYPE_CHECKING:
    from timekeeper.live.session import Mix

Progress = Callable[[int, int], None]
CHUNK_MS = 1000


@dataclass(frozen=True)
class PremixedMix:
    """16-bit PCM of a mix from `start_ms` to its end; `pcm(at_ms)` streams it from any later point."""

    timeline: Timeline
    sample_rate: int
    channels: int
    sample_width: int
    start_ms: int
    audio: bytes = field(repr=False)

    @property
    def duration_ms(self) -> int:
        return self.timeline.duration_ms

    def pcm(self, start_ms: int = 0, chunk_ms: int = CHUNK_MS) -> Iterator[bytes]:
        if start_ms < self.start_ms:
            raise ValueError(f"the mix was prepared from {self.start_ms} ms, not {start_ms} ms")
        frame_bytes = self.channels * self.sample_width
        offset = (start_ms - self.start_ms) * self.sample_rate // 1000 * frame_bytes
        step = max(1, chunk_ms * self.sample_rate // 1000) * frame_bytes
        view = memoryview(self.audio)
        for begin in range(offset, len(self.audio), step):
            yield bytes(view[begin : begin + step])


def premix(mix: Mix, start_ms: int, progress: Progress | None = None) -> PremixedMix:
    """Mix `mix` (a timekeeper.soundtrack.mix.PreparedMix) from `start_ms` to the end, reporting progress(done, total)."""
    total = max(1, -(-(mix.duration_ms - start_ms) // CHUNK_MS))
    parts = []
    for done, chunk in enumerate(mix.pcm(start_ms, CHUNK_MS), start=1):
        parts.append(chunk)
        if progress is not None:
            progress(min(done, total), total)
    return PremixedMix(
        timeline=mix.timeline,
        sample_rate=mix.sample_rate,
        channels=mix.channels,
        sample_width=mix.sample_width,
        start_ms=start_ms,
        audio=b"".join(parts),
    )
