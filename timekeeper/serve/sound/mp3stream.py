"""The mission's sound as the page plays it: a constant-bit-rate mp3 whose every byte's place is
known before it is encoded, so a player can ask for any range while the file is still being made.

Mono, 48 kbit/s at 48 kHz: every frame is exactly 144 bytes (no padding slots at 48 kHz) and
lasts 24 ms, so a byte offset is a time: 3.6 MB per 10-minute mission. The voices are
synthesized at 22.05 kHz (nothing above 11 kHz) and LAME keeps up to about 11.5 kHz at this
rate; `benchmarks/bench_stream.py` measures the speech band against the mix. Every browser plays
mp3 from an <audio> element.

Timing: decoders give a frame's samples at the frame's own place (frame k from k x 1152), and
browsers seek a constant-bit-rate mp3 by its byte offset and time it by that place. LAME's
samples come out LAME_DELAY + DECODER_DELAY samples after they went in, so the mix (resampled to
48 kHz by FFmpeg's resampler, aligned and a third of the CPU time LAME's own takes) is fed that
much ahead: the decoded sound is the mix, sample for sample, from the file's first frame (the
mix's first 23 ms, silence before the first announcement, are dropped). The "Info" frame in
front says the frame and byte counts (the length, and constant bit rate: seek by offset) and
has no LAME delay fields: Chromium's FFmpeg trims those from the very start only, so with them
the sound would be on time until the first seek and 23 ms late after every one. The length is
whole frames: up to 48 ms of silence after the mix.

Peaks: at 48 kbit/s LAME raises a mission's true peak by up to 2.6 dB (the mix, under -1.95 dBTP,
peaked at +0.68 dBTP: a phone's speaker clips). The mix's sample peaks are held under CEILING_DBFS
first, as every rendered lossy format is (audio/ceiling.py, codec.Format.ceiling_dbfs), so the
stream keeps the renders' promise of -1 dBTP; only the loudest milliseconds of a word are turned
down (`benchmarks/bench_stream.py --peaks` measures both figures).

The file: the Info frame, then exactly `audio_frames(n)` audio frames (the encoder's last frames
trimmed, or silent frames added), then a 128-byte ID3v1 tag, the same in every file: a player
that reads the end first (FFmpeg may, for that tag) is answered at once.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from typing import Any

from timekeeper.audio.codec import LAME_DELAY, LAME_QUALITY, MP3_FRAME_SAMPLES
from timekeeper.audio.pcm import SAMPLE_RATE
from timekeeper.errors import RenderError

RATE = 48_000  # Hz of the mp3
KBPS = 48
FRAME_BYTES = 144_000 * KBPS // RATE  # 144
DECODER_DELAY = 529  # samples an mp3 decoder's output lags the encoder's frames (the MDCT overlap)
LEAD = LAME_DELAY + DECODER_DELAY  # samples (at RATE) the mix is fed ahead: 1105
CEILING_DBFS = -5.0  # the mix's sample peaks held under this before LAME (audio/ceiling.py): see below
FORMAT = f"mp3-{RATE}-{KBPS}k-mono-lead{LEAD}-ceiling{-CEILING_DBFS:g}-3"  # changes whenever the bytes made for the same mix would
CONTENT_TYPE = "audio/mpeg"
# MPEG-1 layer III, no CRC; 48 kbit/s (index 3), 48 kHz (index 1), no padding; mono, original.
HEADER = bytes([0xFF, 0xFB, 0x3 << 4 | 0x1 << 2, 0b11 << 6 | 0b100])
SIDE_INFO = 17  # bytes of a mono frame's side information; all zero: no bits, a silent frame
TRAILER = b"TAG" + b"timekeeper".ljust(30, b"\0") + bytes(30 + 30 + 4 + 30) + bytes([255])  # ID3v1, genre none
SILENT_FRAME = HEADER + bytes(FRAME_BYTES - len(HEADER))


def stream_samples(n_samples: int) -> int:
    """The samples at RATE of a mix of `n_samples` at the mix's rate."""
    return n_samples * RATE // SAMPLE_RATE


def audio_frames(n_samples: int) -> int:
    """Audio frames of the stream of a mix of `n_samples`: every sample, and one more frame."""
    return -(-stream_samples(n_samples) // MP3_FRAME_SAMPLES) + 1


def stream_size(n_samples: int) -> int:
    """Bytes of the whole file."""
    return (audio_frames(n_samples) + 1) * FRAME_BYTES + len(TRAILER)


def head(n_samples: int) -> bytes:
    """The Info frame (the file's first FRAME_BYTES bytes): a silent frame with the Xing tag
    "Info" (constant bit rate) and the counts of audio frames and of bytes (this frame included)."""
    frames = audio_frames(n_samples)
    tag = b"Info" + struct.pack(">III", 0x03, frames, (frames + 1) * FRAME_BYTES)
    return (HEADER + bytes(SIDE_INFO) + tag).ljust(FRAME_BYTES, b"\0")


def encoded(pcm: Iterable[bytes], n_samples: int) -> Iterator[bytes]:
    """The whole file, piece by piece as LAME makes it, from the mix's 16-bit mono PCM `pcm`
    (`n_samples` samples in all; its peaks held under CEILING_DBFS first, by
    PreparedMix.pcm(ceiling_dbfs=...)). RenderError if LAME makes frames of another kind."""
    import lameenc

    encoder = lameenc.Encoder()
    encoder.set_bit_rate(KBPS)
    encoder.set_in_sample_rate(RATE)
    encoder.set_out_sample_rate(RATE)
    encoder.set_channels(1)
    encoder.set_quality(LAME_QUALITY)
    encoder.silence()
    yield head(n_samples)
    wanted = audio_frames(n_samples) * FRAME_BYTES
    made = 0
    for chunk in _frames(_ahead(at_rate(pcm), LEAD * 2), encoder):
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


def at_rate(pcm: Iterable[bytes]) -> Iterator[bytes]:
    """`pcm` (16-bit mono at the mix's rate) at RATE, by FFmpeg's resampler (in the PyAV wheel:
    a third of the time LAME's own takes; its output is aligned with its input, no delay)."""
    import av
    import numpy as np

    resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
    for chunk in pcm:
        frame = av.AudioFrame.from_ndarray(np.frombuffer(chunk, dtype="<i2").reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        for out in resampler.resample(frame):
            yield out.to_ndarray().tobytes()
    for out in resampler.resample(None):
        yield out.to_ndarray().tobytes()


def _ahead(pcm: Iterable[bytes], skip: int) -> Iterator[bytes]:
    """`pcm` without its first `skip` bytes."""
    for chunk in pcm:
        if skip >= len(chunk):
            skip -= len(chunk)
            continue
        yield chunk[skip:]
        skip = 0


def _frames(pcm: Iterable[bytes], encoder: Any) -> Iterator[bytes]:
    for chunk in pcm:
        yield bytes(encoder.encode(chunk))
    yield bytes(encoder.flush())
