"""Every sound effect, synthesized here (no recordings): alert klaxon, transfer beep, radio
static, the alarm bed that grows phase by phase, the "ship computer" voice effect, and a user's
music file streamed as a bed.

Clips are mono float32 at SAMPLE_RATE. Continuous sounds (static, bed, music) are generated per
chunk from the absolute sample position, so a track of any length streams in constant memory.
"""

from __future__ import annotations

import bisect
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import numpy as np

from timekeeper.errors import RenderError
from timekeeper.script import ALERT_MS, BEEP_MS
from timekeeper.voice.base import SAMPLE_RATE, Clip

ALERT_GAIN = 0.45
BEEP_GAIN = 0.55
STATIC_GAIN = 0.16
BED_GAIN = (0.035, 0.055, 0.08)  # alarm bed level in phase 1, 2, 3 (and later)
MUSIC_GAIN = 0.30
DUCK_GAIN = 0.25  # bed and music drop to this fraction while the voice speaks
DUCK_ATTACK_MS = 120
DUCK_RELEASE_MS = 400
FADE_MS = 8


def _times(n_samples: int, start_sample: int = 0) -> np.ndarray:
    return (np.arange(n_samples, dtype=np.float64) + start_sample) / SAMPLE_RATE


def _fade(clip: Clip, fade_ms: int = FADE_MS) -> Clip:
    """Short linear fade in and out, so a clip never clicks."""
    n = min(len(clip) // 2, fade_ms * SAMPLE_RATE // 1000)
    if n:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        clip[:n] *= ramp
        clip[-n:] *= ramp[::-1]
    return clip


def alert(duration_ms: int = ALERT_MS) -> Clip:
    """The klaxon before a threat: three rising whoops of a buzzy tone, `duration_ms` long."""
    t = _times(duration_ms * SAMPLE_RATE // 1000)
    whoop_s = duration_ms / 1000 / 3
    within = (t % whoop_s) / whoop_s  # 0..1 inside each whoop
    freq_hz = 380.0 + 420.0 * within
    phase = 2 * np.pi * np.cumsum(freq_hz) / SAMPLE_RATE
    tone = np.sign(np.sin(phase)) * 0.35 + np.sin(phase) * 0.5 + np.sin(2 * phase) * 0.15
    envelope = np.minimum(1.0, within * 12) * np.minimum(1.0, (1 - within) * 20)
    return _fade((tone * envelope * ALERT_GAIN).astype(np.float32))


def beep(duration_ms: int = BEEP_MS) -> Clip:
    """The data-transfer beep: a clean 1 kHz tone `duration_ms` long."""
    t = _times(duration_ms * SAMPLE_RATE // 1000)
    tone = np.sin(2 * np.pi * 1000.0 * t) + 0.2 * np.sin(2 * np.pi * 2000.0 * t)
    return _fade((tone * BEEP_GAIN / 1.2).astype(np.float32), 5)


def static(start_sample: int, n_samples: int) -> Clip:
    """Radio static for samples [start_sample, start_sample + n_samples) of the track.

    Band-limited noise with crackles; each block of noise is seeded by its position, so a
    chunk gives the same samples however the track is cut into chunks.
    """
    block = SAMPLE_RATE // 10
    begin = max(0, start_sample - 2)  # two samples of history for the smoothing
    first, last = begin // block, (start_sample + n_samples - 1) // block
    blocks = [np.random.default_rng(index).standard_normal(block) for index in range(first, last + 1)]
    history = np.concatenate(blocks)[begin - first * block :][: n_samples + start_sample - begin]
    history = np.concatenate([np.zeros(2 - (start_sample - begin)), history])
    noise = history[2:]
    smooth = (noise + history[1:-1] + history[:-2]) / 3  # soften the hiss a little
    t = _times(n_samples, start_sample)
    flutter = 0.75 + 0.25 * np.sin(2 * np.pi * 3.1 * t) * np.sin(2 * np.pi * 0.37 * t)
    crackle = np.where(np.abs(noise) > 2.6, noise * 1.5, 0.0)
    return ((smooth * flutter + crackle * 0.3) * STATIC_GAIN).astype(np.float32)


BED_LOOP_S = 4  # the bed repeats every 4 s (whole cycles of every tone and pulse in it)


@lru_cache(maxsize=None)
def _bed_loop(phase: int) -> Clip:
    """One loop of the alarm bed in 0-based `phase`: a pulsing low tone that gets faster,
    brighter and louder phase by phase."""
    phase = min(phase, len(BED_GAIN) - 1)
    t = _times(BED_LOOP_S * SAMPLE_RATE)
    base_hz = 110.0
    tone = np.sin(2 * np.pi * base_hz * t) + 0.5 * np.sin(2 * np.pi * base_hz * 1.5 * t)
    if phase >= 1:
        tone += 0.35 * np.sin(2 * np.pi * base_hz * 2.0 * t)
    if phase >= 2:
        tone += 0.2 * np.sign(np.sin(2 * np.pi * base_hz * 3.0 * t))
    pulse_hz = (0.5, 0.75, 1.25)[phase]  # whole cycles in BED_LOOP_S
    pulse = 0.5 + 0.5 * np.sin(np.pi * pulse_hz * t) ** 2
    return (tone * pulse * BED_GAIN[phase]).astype(np.float32)


def loop_slice(loop: Clip, start_sample: int, n_samples: int) -> Clip:
    """Samples [start, start + n) of `loop` repeated forever."""
    offset = start_sample % len(loop)
    reps = -(-(offset + n_samples) // len(loop))
    source = loop if reps == 1 else np.tile(loop, reps)
    return source[offset : offset + n_samples]


def alarm_bed(start_sample: int, n_samples: int, phase_ends_ms: tuple[int, ...]) -> Clip:
    """The background alarm for samples [start, start + n) of a track with these phase ends."""
    out = np.empty(n_samples, dtype=np.float32)
    bounds = [end_ms * SAMPLE_RATE // 1000 for end_ms in phase_ends_ms]
    position = start_sample
    while position < start_sample + n_samples:
        phase = bisect.bisect_right(bounds, position)
        stop = min(start_sample + n_samples, bounds[phase] if phase < len(bounds) else start_sample + n_samples)
        out[position - start_sample : stop - start_sample] = loop_slice(_bed_loop(phase), position, stop - position)
        position = stop
    return out


def duck_gain(start_sample: int, n_samples: int, speech_spans: list[tuple[int, int]]) -> np.ndarray:
    """Gain (1 = full, DUCK_GAIN = ducked) for the beds over [start, start + n), given the
    (start_sample, end_sample) spans where the voice speaks; ramps in before and out after."""
    gain = np.ones(n_samples, dtype=np.float32)
    attack = DUCK_ATTACK_MS * SAMPLE_RATE // 1000
    release = DUCK_RELEASE_MS * SAMPLE_RATE // 1000
    index = np.arange(start_sample, start_sample + n_samples, dtype=np.float64)
    for begin, end in speech_spans:
        if end + release < start_sample or begin - attack > start_sample + n_samples:
            continue
        rise = np.clip((index - (begin - attack)) / attack, 0.0, 1.0)
        fall = np.clip(((end + release) - index) / release, 0.0, 1.0)
        depth = np.minimum(rise, fall).astype(np.float32)
        np.minimum(gain, 1.0 - (1.0 - DUCK_GAIN) * depth, out=gain)
    return gain


def ship_computer(clip: Clip) -> Clip:
    """The optional "ship computer" voice: a touch of ring modulation and a short metallic echo."""
    t = _times(len(clip))
    ringed = clip * (0.7 + 0.3 * np.sin(2 * np.pi * 55.0 * t)).astype(np.float32)
    delay = 9 * SAMPLE_RATE // 1000
    out = np.copy(ringed)
    out[delay:] += 0.45 * ringed[:-delay]
    out[2 * delay :] += 0.2 * ringed[: -2 * delay]
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    source_peak = float(np.max(np.abs(clip))) if len(clip) else 0.0
    return (out * (source_peak / peak) if peak > 0 else out).astype(np.float32)


MUSIC_IN_MEMORY_SAMPLES = 30 * SAMPLE_RATE  # shorter music files are decoded once and looped in memory


class Music:
    """A user's music file as a looping bed, decoded in small pieces as the mix streams."""

    def __init__(self, path: Path) -> None:
        import miniaudio

        self.path = path
        try:
            info = miniaudio.get_file_info(str(path))
        except (miniaudio.MiniaudioError, OSError, ValueError) as error:
            raise RenderError(f"{path}: not a readable music file (wav, mp3, ogg or flac): {error}") from error
        self.n_samples = int(info.num_frames * SAMPLE_RATE / info.sample_rate) if info.sample_rate else 0
        if self.n_samples <= 0:
            raise RenderError(f"{path}: the music file holds no audio")

    def _stream(self, start_sample: int) -> Iterator[np.ndarray]:
        import miniaudio

        if self.n_samples <= MUSIC_IN_MEMORY_SAMPLES:
            yield from self._looped(start_sample)
            return
        offset = start_sample % self.n_samples
        while True:
            stream = miniaudio.stream_file(
                str(self.path),
                output_format=miniaudio.SampleFormat.FLOAT32,
                nchannels=1,
                sample_rate=SAMPLE_RATE,
                frames_to_read=SAMPLE_RATE // 2,
                seek_frame=offset,
            )
            produced = False
            for piece in stream:
                produced = True
                yield np.asarray(piece, dtype=np.float32)
            if not produced:
                raise RenderError(f"{self.path}: the music file holds no audio")
            offset = 0

    def _looped(self, start_sample: int) -> Iterator[np.ndarray]:
        """A short file (even one sample long) decoded once and repeated in half-second pieces, so
        looping it costs no more than playing a long one."""
        import miniaudio

        try:
            decoded = miniaudio.decode_file(str(self.path), output_format=miniaudio.SampleFormat.FLOAT32,
                                            nchannels=1, sample_rate=SAMPLE_RATE)
        except (miniaudio.MiniaudioError, OSError, ValueError) as error:
            raise RenderError(f"{self.path}: not a readable music file (wav, mp3, ogg or flac): {error}") from error
        loop = np.asarray(decoded.samples, dtype=np.float32)
        if len(loop) == 0:
            raise RenderError(f"{self.path}: the music file holds no audio")
        piece = np.tile(loop, -(-(SAMPLE_RATE // 2) // len(loop)) + 1)
        offset = start_sample % len(loop)
        while True:
            yield piece[offset : offset + len(piece) - len(loop)]
            offset = (offset + len(piece) - len(loop)) % len(loop)

    def chunks(self, start_sample: int) -> "MusicReader":
        return MusicReader(self._stream(start_sample))


class MusicReader:
    """Hands out exactly n samples at a time from a stream of pieces."""

    def __init__(self, pieces: Iterator[np.ndarray]) -> None:
        self._pieces = pieces
        self._buffer = np.zeros(0, dtype=np.float32)

    def read(self, n_samples: int) -> Clip:
        parts = [self._buffer]
        have = len(self._buffer)
        while have < n_samples:
            piece = next(self._pieces)
            parts.append(piece)
            have += len(piece)
        joined = np.concatenate(parts)
        self._buffer = joined[n_samples:]
        return joined[:n_samples] * MUSIC_GAIN
