"""The clip cache: where it lives, and its WAV files, written atomically with a checksum and
verified when read, so a damaged clip is made again instead of played."""

from __future__ import annotations

import contextlib
import hashlib
import struct
from pathlib import Path

from timekeeper.audio.pcm import SAMPLE_RATE, Clip, from_pcm16, pcm16
from timekeeper.environment import current
from timekeeper.files.atomicfile import replacing


def cache_dir() -> Path:
    """$TIMEKEEPER_CACHE, else $XDG_CACHE_HOME/timekeeper, else ~/.cache/timekeeper (environment.py)."""
    return current().cache


class DamagedClip(ValueError):
    """A cached clip that is not exactly what write_wav wrote (truncated, re-encoded, edited)."""


def read_wav(path: Path) -> Clip:
    """A cached clip written by write_wav, verified: 16-bit mono PCM at SAMPLE_RATE, at least one
    frame, sizes that add up, and the checksum chunk matching the samples. DamagedClip otherwise,
    so a truncated, empty, 8-bit or stereo file is never played as if it were right."""
    data = path.read_bytes()
    if len(data) > MAX_CACHED_CLIP_BYTES:
        raise DamagedClip("too large")
    if len(data) < _HEADER.size or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise DamagedClip("not a RIFF WAVE file")
    (_riff, riff_size, _wave, fmt_id, fmt_size, audio_format, channels, rate, _byte_rate, _align, bits,
     data_id, data_size) = _HEADER.unpack_from(data)
    if (fmt_id, fmt_size, audio_format, channels, rate, bits) != (b"fmt ", 16, 1, 1, SAMPLE_RATE, 16):
        raise DamagedClip("not 16-bit mono PCM at the cache's sample rate")
    end = _HEADER.size + data_size
    if data_id != b"data" or data_size == 0 or data_size % 2 or riff_size != len(data) - 8:
        raise DamagedClip("sizes do not add up")
    if data[end : end + 8] != _CHECK_ID + _CHECK_SIZE or len(data) != end + 8 + _DIGEST_BYTES:
        raise DamagedClip("no checksum")
    samples = data[_HEADER.size : end]
    if hashlib.sha256(samples).digest()[:_DIGEST_BYTES] != data[end + 8 :]:
        raise DamagedClip("checksum does not match")
    return from_pcm16(samples)


def read_cached(path: Path) -> Clip | None:
    """The clip the cache keeps as `path`, or None when there is none; a damaged one is removed
    (so it is made again, never played)."""
    if not path.is_file():
        return None
    try:
        return read_wav(path)
    except (DamagedClip, OSError):
        with contextlib.suppress(OSError):
            path.unlink()
        return None


def write_wav(path: Path, clip: Clip) -> None:
    """Write `clip` as 16-bit mono WAV at SAMPLE_RATE, atomically, with a checksum chunk after the
    samples (players skip it; read_wav checks it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    samples = pcm16(clip)
    check = _CHECK_ID + _CHECK_SIZE + hashlib.sha256(samples).digest()[:_DIGEST_BYTES]
    header = _HEADER.pack(b"RIFF", _HEADER.size - 8 + len(samples) + len(check), b"WAVE", b"fmt ", 16, 1, 1,
                          SAMPLE_RATE, SAMPLE_RATE * 2, 2, 16, b"data", len(samples))
    with replacing(path) as temp:
        temp.write_bytes(header + samples + check)


_HEADER = struct.Struct("<4sI4s4sIHHIIHH4sI")  # RIFF, size, WAVE, fmt chunk (16 bytes), data chunk header
_CHECK_ID = b"tkck"  # a private chunk: the first bytes of the samples' sha256
_DIGEST_BYTES = 16
_CHECK_SIZE = struct.pack("<I", _DIGEST_BYTES)
MAX_CACHED_CLIP_BYTES = 50_000_000
