"""Clip editing with pydub: reading and converting files, joining sentences, trimming silence,
fades and speeding up a tight cue. Clips travel as numpy float32 (see timekeeper.pcm); each
function converts to a pydub AudioSegment and back at its border.

These run once per phrase or effect (the results are cached); the streaming mix never calls
them. Levels are set in that float domain by timekeeper.loudness, which measures them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# pydub looks for the ffmpeg program when imported and warns when there is none; only its
# in-memory editing is used here (files are read and written by codec.py), which needs no ffmpeg.
warnings.filterwarnings("ignore", message="Couldn't find ffmpeg or avconv", category=RuntimeWarning)
from pydub import AudioSegment  # noqa: E402
from pydub.effects import speedup  # noqa: E402
from pydub.silence import detect_leading_silence  # noqa: E402

from timekeeper.pcm import SAMPLE_RATE, Clip, from_pcm16, pcm16  # noqa: E402

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
    start = detect_leading_silence(segment, silence_threshold=SILENCE_DBFS, chunk_size=1)
    if start >= len(segment):
        return clip[:0]
    end = len(segment) - detect_leading_silence(segment.reverse(), silence_threshold=SILENCE_DBFS, chunk_size=1)
    return to_clip(segment[max(0, start - lead_ms) : min(len(segment), end + tail_ms)])


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
