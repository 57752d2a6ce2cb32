"""The mission's sound as the page plays it: a constant-bit-rate mp3 whose every byte's place is
known before it is encoded, so a player can ask for any range while the file is still being made.

Mono, 48 kbit/s at 48 kHz: every frame is exactly 144 bytes (no padding slots at 48 kHz) and
lasts 24 ms, so a byte offset is a time. The voices are synthesized at 22.05 kHz (nothing above
11 kHz), and LAME keeps up to about 11.5 kHz at this rate; `benchmarks/bench_stream.py` measures
the speech band against the mix. A 10-minute mission is 3.6 MB. Every browser plays mp3 from an
<audio> element, and the LAME "Info" frame in front tells it the length and the encoder's delay
and padding, so the decoded sound starts and ends on the mix's own samples (Chromium's FFmpeg
seeks a constant-bit-rate mp3 by the byte offset and times it by its frame count).

The file: the Info frame, then exactly `audio_frames(n)` audio frames (the encoder's last frames
trimmed, or silent frames added), then a 128-byte ID3v1 tag. The first and last bytes are known
at once: players read both before playing (FFmpeg looks for an ID3v1 tag at the end).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from timekeeper.codec import LAME_DELAY, LAME_QUALITY, MP3_FRAME_SAMPLES, info_frame
from timekeeper.errors import RenderError
from timekeeper.pcm import SAMPLE_RATE

RATE = 48_000  # Hz of the mp3
KBPS = 48
FRAME_BYTES = 144_000 * KBPS // RATE  # 144
FORMAT = f"mp3-{RATE}-{KBPS}k-mono-1"  # changes whenever the bytes made for the same mix would
CONTENT_TYPE = "audio/mpeg"
# MPEG-1 layer III, no CRC; 48 kbit/s (index 3), 48 kHz (index 1), no padding; mono, original.
HEADER = bytes([0xFF, 0xFB, 0x3 << 4 | 0x1 << 2, 0b11 << 6 | 0b100])
TRAILER = b"TAG" + b"timekeeper".ljust(30, b"\0") + bytes(30 + 30 + 4 + 30) + bytes([255])  # ID3v1, genre none
SILENT_FRAME = HEADER + bytes(FRAME_BYTES - len(HEADER))  # side info all zero: no bits, silence


def stream_samples(n_samples: int) -> int:
    """The samples at RATE of a mix of `n_samples` at the mix's rate."""
    return n_samples * RATE // SAMPLE_RATE


def audio_frames(n_samples: int) -> int:
    """Audio frames of the stream of a mix of `n_samples`: the encoder's delay and every sample,
    plus one frame for the decoder's overlap."""
    return -(-(stream_samples(n_samples) + LAME_DELAY) // MP3_FRAME_SAMPLES) + 1


def stream_size(n_samples: int) -> int:
    """Bytes of the whole file."""
    return (audio_frames(n_samples) + 1) * FRAME_BYTES + len(TRAILER)


def head(n_samples: int) -> bytes:
    """The Info frame: the file's first FRAME_BYTES bytes."""
    frames = audio_frames(n_samples)
    return info_frame(HEADER, frames, (frames + 1) * FRAME_BYTES, stream_samples(n_samples), KBPS, FRAME_BYTES)


def encoded(pcm: Iterable[bytes], n_samples: int) -> Iterator[bytes]:
    """The whole file, piece by piece as LAME makes it, from the mix's 16-bit mono PCM `pcm`
    (`n_samples` samples in all). RenderError if LAME makes frames of another size."""
    import lameenc

    encoder = lameenc.Encoder()
    encoder.set_bit_rate(KBPS)
    encoder.set_in_sample_rate(SAMPLE_RATE)
    encoder.set_out_sample_rate(RATE)
    encoder.set_channels(1)
    encoder.set_quality(LAME_QUALITY)
    encoder.silence()
    yield head(n_samples)
    wanted = audio_frames(n_samples) * FRAME_BYTES
    made = 0
    for chunk in _frames(pcm, encoder):
        if made == 0 and chunk[:2] and chunk[:3] != HEADER[:3]:
            raise RenderError(f"the mp3 encoder made frames of another kind (header {chunk[:4].hex()})")
        piece = chunk[: wanted - made]
        made += len(piece)
        if piece:
            yield piece
    if (wanted - made) % FRAME_BYTES:
        raise RenderError(f"the mp3 encoder made {made} bytes, not whole frames of {FRAME_BYTES}")
    yield SILENT_FRAME * ((wanted - made) // FRAME_BYTES)
    yield TRAILER


def _frames(pcm: Iterable[bytes], encoder: Any) -> Iterator[bytes]:
    for chunk in pcm:
        yield bytes(encoder.encode(chunk))
    yield bytes(encoder.flush())
