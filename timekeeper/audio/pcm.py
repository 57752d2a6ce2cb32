"""Audio as timekeeper passes it around: a clip is a mono float32 numpy array at SAMPLE_RATE (full
scale = 1.0); on disk and to the encoder it travels as 16-bit PCM. The lowest layer: it imports
nothing else of timekeeper."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

SAMPLE_RATE = 44_100  # Hz; every clip, effect and the final mix use it
Clip = np.ndarray  # mono float32 samples at SAMPLE_RATE
FULL_SCALE = 32768.0  # a 16-bit sample of this value would be 1.0
Progress = Callable[[int, int], None]  # progress(done, total)


def ms_to_samples(ms: int) -> int:
    """The sample at `ms` milliseconds (rounded down)."""
    return ms * SAMPLE_RATE // 1000


def clip_ms(clip: Clip) -> int:
    """Length of `clip` in milliseconds (rounded up)."""
    return -(-len(clip) * 1000 // SAMPLE_RATE)


def pcm16(clip: Clip) -> bytes:
    """`clip` as 16-bit little-endian PCM; from_pcm16 reads it back to the very same samples."""
    return (np.clip(clip, -1.0, 32767 / FULL_SCALE) * FULL_SCALE).astype("<i2").tobytes()


def from_pcm16(data: bytes) -> Clip:
    """16-bit little-endian PCM as a clip."""
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / FULL_SCALE


def as_stored(clip: Clip) -> Clip:
    """`clip` as 16-bit PCM stores it, so a clip made now sounds exactly as one read from the cache."""
    return from_pcm16(pcm16(clip))
