"""Long test tones written straight through PyAV (the test's own encoder, not timekeeper's)."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np


def write_tone(path: Path, seconds: int, rate: int, bit_rate: int | None = None, hz: float = 300.0) -> Path:
    """A sine of `hz` lasting `seconds` at `rate` into `path` (format from its extension), a
    second at a time."""
    codec = {".mp3": "libmp3lame", ".wav": "pcm_s16le", ".flac": "flac"}[path.suffix]
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate, layout="mono")
        if bit_rate:
            stream.bit_rate = bit_rate
        for second in range(seconds):
            times = np.arange(second * rate, (second + 1) * rate) / rate
            samples = (np.sin(2 * np.pi * hz * times) * 16000).astype("<i2").reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
            frame.sample_rate = rate
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
    return path


def convert(source: Path, target: Path) -> Path:
    """`source` re-encoded by PyAV into `target` (format and codec from its extension: .m4a is
    AAC, .opus is Opus), as a phone's recorder would write it."""
    codec = {".m4a": "aac", ".opus": "libopus"}[target.suffix]
    with av.open(str(source)) as reading, av.open(str(target), "w") as writing:
        stream = writing.add_stream(codec, rate=48_000, layout="mono")
        for frame in reading.decode(audio=0):
            frame.pts = None
            writing.mux(stream.encode(frame))
        writing.mux(stream.encode(None))
    return target
