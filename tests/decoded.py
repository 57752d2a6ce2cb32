"""Rendered audio as a test reads it: any file decoded by PyAV (FFmpeg's decoders, not the
encoders that wrote it: LAME writes the mp3) to mono float samples at 44.1 kHz."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from timekeeper.audio.codec import decode as decode_file

RATE = 44_100  # samples per second of every decoded file


def decode(path: Path) -> np.ndarray:
    """Any audio file as mono float samples (-1..1) at RATE."""
    return decode_file(path, RATE).astype(np.float64)


def rms(samples: np.ndarray, start_ms: int, length_ms: int) -> float:
    """The loudness (root mean square) of `length_ms` of `samples` from `start_ms`; 0 past the end."""
    window = samples[start_ms * RATE // 1000 : (start_ms + length_ms) * RATE // 1000]
    return float(np.sqrt(np.mean(window**2))) if len(window) else 0.0
