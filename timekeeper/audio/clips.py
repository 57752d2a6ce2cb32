"""Clip editing with pydub: reading and converting files, joining sentences, trimming silence,
fades and speeding up a tight cue. Clips travel as numpy float32 (see timekeeper.audio.pcm); each
function converts to a pydub AudioSegment and back at its border.

These run once per phrase or effect (the results are cached); the streaming mix never calls
them. Levels are set in that float domain by timekeeper.audio.loudness, which measures them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# pydub looks for the ffmpeg program when imported and warns when there is none; only its
# in-memory editing is used here (files are read and written by codec.py), which needs no ffmpeg.
warnings.filterwarnings("ignore", message="Couldn't find ffmpeg or avconv", category=RuntimeWarning)
from pydub import AudioSegment  # noqa: E402
from pydub.effects import speedup  # noqa: E402

from timekeeper.audio.pcm import SAMPLE_RATE, Clip, from_pcm16, pcm16  # noqa: E402

SAMPLE_WIDTH = 2  # bytes: pydub works on 16-bit samples here
SILENCE_DBFS = -40.0  # quieter than this counts as silence when trimming
SPEEDUP_TRIES = 4


def to_segment(clip: Clip) -> AudioSegment:
    """A mono 16-bit AudioSegment at SAMPLE_RATE holding `clip`."""
    return AudioSegment(pcm16(clip), frame_rate=SAMPLE_RATE, sample_width=SAMPLE_WIDTH, channels=1)


def to_clip(segment: AudioSegment) -> Clip:
    """`segment` converted to mono 16-bit at SAMPLE_RATE, as a float32 clip."""
    segment = segment.set_channels(1).set_frame_rate(SAMPLE_RATE).set_sample_width(SAMPLE_WIDTH)
    return from_pcm16(segment.raw_data)


def read_wav(path: Path) -> Clip:
    """A WAV file of any rate, width and channel count as a mono clip at SAMPLE_RATE."""
    return to_clip(AudioSegment.from_wav(str(path)))


def joined(clips: Sequence[Clip], gap_ms: int) -> Clip:
    """`clips` one after another with `gap_ms` of silence between them."""
    out = AudioSegment.empty()
    for index, clip in enumerate(clips):
        if index:
            out += AudioSegment.silent(duration=gap_ms, frame_rate=SAMPLE_RATE)
        out += to_segment(clip)
    return to_clip(out)


def trimmed(clip: Clip, lead_ms: int, tail_ms: int) -> Clip:
    """`clip` without the silence before and after the sound, keeping `lead_ms` / `tail_ms` of it."""
    segment = to_segment(clip)
    samples = np.frombuffer(segment.raw_data, dtype="<i2")
    start = leading_silence_ms(samples)
    if start >= len(segment):
        return clip[:0]
    end = len(segment) - leading_silence_ms(samples[::-1])
    return to_clip(segment[max(0, start - lead_ms) : min(len(segment), end + tail_ms)])


def leading_silence_ms(samples: np.ndarray, silence_dbfs: float = SILENCE_DBFS) -> int:
    """Where the leading silence of 16-bit mono `samples` at SAMPLE_RATE ends, in ms: the very number
    pydub's detect_leading_silence(segment, silence_dbfs, chunk_size=1) gives (1 ms windows cut at
    pydub's frame positions, audioop's integer RMS, pydub's dBFS), from running sums of squares
    instead of an AudioSegment per millisecond (a tenth of the time; tests/test_cold_render.py
    compares the two)."""
    frames = len(samples)
    length_ms = round(1000 * (float(frames) / SAMPLE_RATE))  # len(segment)
    per_ms = SAMPLE_RATE / 1000.0  # segment.frame_count(ms=1)
    squares = np.concatenate(([0], np.cumsum(samples.astype(np.int64) ** 2)))  # exact: far below 2**63
    trim_ms = 0
    while True:
        first = int(min(trim_ms, length_ms) * per_ms)
        last = int(min(trim_ms + 1, length_ms) * per_ms)
        present = max(0, min(last, frames) - first)
        count = last - first if present else 0  # pydub pads a short slice with silence, an empty one not
        rms = int(math.sqrt(int(squares[first + present] - squares[first]) / count)) if count else 0
        silent = rms == 0 or 20 * math.log(rms / 32768.0, 10) < silence_dbfs
        if not (silent and trim_ms < length_ms):
            return min(trim_ms, length_ms)
        trim_ms += 1


def faded(clip: Clip, in_ms: int, out_ms: int) -> Clip:
    """`clip` fading in over `in_ms` and out over `out_ms`, so it never clicks."""
    segment = to_segment(clip)
    return to_clip(segment.fade_in(min(in_ms, len(segment) // 2)).fade_out(min(out_ms, len(segment) // 2)))


def sped_up(clip: Clip, tempo: float) -> Clip:
    """`clip` spoken `tempo` times as fast (pitch kept: pydub drops short slices and crossfades
    the rest), at most ceil(length / tempo) long where pydub can slice it that finely; every
    word stays. Clips too short to slice come back as they are."""
    if tempo <= 1.0:
        return clip
    target = -(-len(clip) * 100 // round(tempo * 100))
    faster, speed = clip, tempo
    for _ in range(SPEEDUP_TRIES):  # pydub falls a little short of the speed it is asked for
        try:
            faster = to_clip(speedup(to_segment(clip), playback_speed=speed, chunk_size=120, crossfade=20))
        except Exception:  # pydub refuses clips shorter than two slices
            return faster
        if len(faster) <= target:
            return np.concatenate([faster, np.zeros(target - len(faster), dtype=np.float32)])
        speed *= len(faster) / target * 1.01
    return faster
