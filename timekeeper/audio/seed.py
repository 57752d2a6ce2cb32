"""Clips shipped with timekeeper, so a first render makes no effect and synthesizes no phrase of a language's default voice.

Two kinds of clip are slow to make the first time: the sound effects (alert, beep, jump, static,
the three alarm beds: computed, then levelled to BS.1770 with scipy, whose import alone takes a
second) and the phrases of each language's default voice: in English, Piper's joe (CC0: free to
redistribute), which loads its model for a second or two and speaks at a fraction of a second per
phrase, differently each time (it draws its noise at random); in the other languages, espeak-ng
(TtsVoice, while their Piper voice is not installed), which speaks each sentence in a new process,
the same samples every time, and whose every phrase a first mix must draft before its timeline is
known (2-7 s on a loaded 2-core machine). `tools/seed_clips.py` makes them once,
exactly as a first render makes them, and ships them in voices/seed/ under the very key of the
clip cache (the path under the cache folder: for a phrase, the digest of format, model, model
fingerprint, pace and text, NeuralVoice.cache_path, or engine, voice, rate, volume and text,
TtsVoice.cache_path; for an effect, its version and name), as
lossless FLAC (half the size of the WAV), with the sha256 of their 16-bit samples in `index.json`.
A shipped clip that does not decode to exactly those samples is ignored (then made as before),
as is every clip that is not shipped (another voice, pace, model, text or effects version). A
clip taken from the seed is written to the clip cache, as a made one would be.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

import numpy as np

from timekeeper.audio.pcm import SAMPLE_RATE, Clip, from_pcm16
from timekeeper.files.paths import voices_dir

USE_SEED = True  # False: every clip is made (tools/seed_clips.py, and tests comparing with made clips)
INDEX = "index.json"
INDEX_LIMIT_BYTES = 1_000_000


def seed_dir() -> Path:
    return voices_dir() / "seed"


@cache
def seed_index(folder: Path) -> dict[str, tuple[int, str]]:
    """relative cache path (`piper/ab/abcd...wav`) -> (samples, sha256 of the 16-bit samples), of `folder`."""
    path = folder / INDEX
    if not path.is_file() or path.stat().st_size > INDEX_LIMIT_BYTES:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(key): (int(value["samples"]), str(value["sha256"])) for key, value in data["clips"].items()}
    except (ValueError, KeyError, TypeError):
        return {}


def seed_key(cache_file: Path, cache_base: Path) -> str | None:
    """The key of the clip cache's `cache_file` (under `cache_base`) in the seed: its relative path."""
    try:
        return cache_file.relative_to(cache_base).as_posix()
    except ValueError:
        return None


def seed_file(folder: Path, key: str) -> Path:
    return folder / Path(key).with_suffix(".flac")


def seed_clip(cache_file: Path, cache_base: Path, folder: Path | None = None) -> Clip | None:
    """The shipped clip that the clip cache would keep as `cache_file`, or None (not shipped, or not
    exactly the samples the index names)."""
    if not USE_SEED:
        return None
    folder = folder or seed_dir()
    key = seed_key(cache_file, cache_base)
    expected = seed_index(folder).get(key) if key is not None else None
    if key is None or expected is None:
        return None
    samples = decode_flac(seed_file(folder, key))
    if samples is None or len(samples) // 2 != expected[0] or hashlib.sha256(samples).hexdigest() != expected[1]:
        return None
    return from_pcm16(samples)


def decode_flac(path: Path) -> bytes | None:
    """The 16-bit mono samples of FLAC file `path` at SAMPLE_RATE, or None if it is not one."""
    import av

    try:
        with av.open(str(path)) as container:
            stream = container.streams.audio[0]
            if stream.rate != SAMPLE_RATE or stream.channels != 1:
                return None
            frames = [frame.to_ndarray() for frame in container.decode(stream)]
    except (av.error.FFmpegError, OSError, IndexError, ValueError):
        return None
    if not frames or any(frame.dtype != np.int16 for frame in frames):
        return None
    return np.concatenate([frame.reshape(-1) for frame in frames]).astype("<i2").tobytes()


def encode_flac(path: Path, samples: bytes) -> None:
    """16-bit mono `samples` at SAMPLE_RATE into FLAC file `path` (lossless: decode_flac gives them back)."""
    import av

    pcm = np.frombuffer(samples, dtype="<i2").reshape(1, -1)
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w", format="flac") as container:
        stream = container.add_stream("flac", rate=SAMPLE_RATE, layout="mono")
        frame = av.AudioFrame.from_ndarray(pcm, format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
