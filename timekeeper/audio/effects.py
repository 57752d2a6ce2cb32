"""Every sound effect, synthesized here (no recordings): alert klaxon, transfer beep, radio
static, the alarm bed that grows phase by phase, the hyperspace jump, the "ship computer"
voice effect, and a user's music file streamed as a bed.

Clips are mono float32 at SAMPLE_RATE. Tones are built from sines below BAND_LIMIT_HZ (no
square waves, so nothing aliases) and noise is shaped in the frequency domain. Each effect is
normalized to its loudness target (LUFS, measured by timekeeper.audio.loudness) once and kept in the
clip cache, so a render neither synthesizes nor measures it again. Continuous sounds (static,
bed, music) are looped per chunk from the absolute sample position, so a track of any length
streams in constant memory.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from timekeeper.audio.pcm import SAMPLE_RATE, Clip
from timekeeper.errors import RenderError
from timekeeper.grammar.script import ALERT_MS, BEEP_MS, JUMP_MS, LEAD_IN_MS

EFFECTS_VERSION = 11  # bump when an effect or its level changes, so cached effects are remade
# Loudness of each effect over its own length, LUFS; the voice speaks at loudness.SPEECH_LUFS (-12).
ALERT_LUFS = -18.0
BEEP_LUFS = -18.0
JUMP_LUFS = -18.0
STATIC_LUFS = -18.5
BED_LUFS = (-18.5, -17.0, -15.5)  # alarm bed in phase 1, 2, 3 (and later), not ducked
EFFECT_LUFS = {"alert": ALERT_LUFS, "beep": BEEP_LUFS, "jump": JUMP_LUFS, "white_noise": STATIC_LUFS}
EFFECT_CEILING_DBTP = -6.0  # effects peak well under the voice, so a bed and a sound together stay under -1 dBTP
STATIC_CEILING_DBTP = -9.0  # radio static peaks lower still: it plays over the bed, and under words
SAFETY_KNEE = 0.7  # the mix's samples above this bend softly towards SAFETY_CEILING (rare peaks
SAFETY_CEILING = 0.8  # where the voice, a bed and static meet), so the track stays under -1 dBTP
MUSIC_LUFS = -19.0  # a user's music is brought to the level of the phase-1 bed
MUSIC_MEASURE_S = 30  # ... judged by its first 30 seconds
DUCK_GAIN = 0.15  # the bed and music drop to this fraction (-16.5 dB) while the voice speaks
STATIC_DUCK_GAIN = 0.3  # the static drops to this (-10.5 dB) under an announcement
DUCK_ATTACK_MS = 120
DUCK_RELEASE_MS = 400
FADE_MS = 8
STATIC_FADE_MS = 60  # the static fades in and out, like a radio losing its carrier
BED_FADE_IN_MS = LEAD_IN_MS
BED_FADE_OUT_MS = 2500  # the bed fades out after the mission's end
BAND_LIMIT_HZ = 7000.0  # no tone of an effect has partials above this
STATIC_BAND_HZ = (350.0, 3400.0)  # radio static: a telephone-like band
STATIC_LOOP_S = 6
BED_LOOP_S = 4  # the bed repeats every 4 s (whole cycles of every tone and pulse in it)


def _times(n_samples: int, start_sample: int = 0) -> np.ndarray:
    return (np.arange(n_samples, dtype=np.float64) + start_sample) / SAMPLE_RATE


def _samples(ms: int) -> int:
    return ms * SAMPLE_RATE // 1000


def _fade(clip: Clip, fade_ms: int = FADE_MS) -> Clip:
    """Short linear fade in and out, so a clip never clicks."""
    n = min(len(clip) // 2, fade_ms * SAMPLE_RATE // 1000)
    if n:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        clip[:n] *= ramp
        clip[-n:] *= ramp[::-1]
    return clip


def harmonics(freq_hz: np.ndarray, amplitudes: dict[int, float]) -> np.ndarray:
    """A tone following `freq_hz` (per sample) with partial k at amplitude `amplitudes[k]`;
    a partial fades out as it nears BAND_LIMIT_HZ, so nothing is synthesized above it."""
    phase = 2 * np.pi * np.cumsum(freq_hz) / SAMPLE_RATE
    out = np.zeros(len(freq_hz), dtype=np.float64)
    for k, amplitude in amplitudes.items():
        partial_hz = k * freq_hz
        fold = np.clip((BAND_LIMIT_HZ - partial_hz) / (0.15 * BAND_LIMIT_HZ), 0.0, 1.0)
        out += amplitude * fold * np.sin(k * phase)
    return out


def band_noise(n_samples: int, low_hz: float, high_hz: float, seed: int, order: int = 4) -> np.ndarray:
    """Noise with a Butterworth-shaped band from `low_hz` to `high_hz` (made in the frequency
    domain, so it loops seamlessly over `n_samples`), at unit RMS."""
    spectrum = np.fft.rfft(np.random.default_rng(seed).standard_normal(n_samples))
    freq = np.fft.rfftfreq(n_samples, 1 / SAMPLE_RATE)
    with np.errstate(divide="ignore"):
        high_pass = 1 / np.sqrt(1 + (low_hz / np.maximum(freq, 1e-9)) ** (2 * order))
    low_pass = 1 / np.sqrt(1 + (freq / high_hz) ** (2 * order))
    noise = np.fft.irfft(spectrum * high_pass * low_pass, n_samples)
    return noise / np.sqrt(np.mean(noise**2))


_EFFECTS: dict[str, Clip] = {}


def _cached_effect(
    name: str, make: Callable[[], Clip], target_lufs: float, ceiling_dbtp: float = EFFECT_CEILING_DBTP
) -> Clip:
    """Effect `name` from the clip cache, or made, normalized to `target_lufs` and cached."""
    if name in _EFFECTS:
        return _EFFECTS[name]
    from timekeeper.audio.clipcache import cache_dir, read_wav, write_wav
    from timekeeper.audio.pcm import as_stored
    from timekeeper.errors import TimekeeperError

    path = cache_dir() / "effects" / f"v{EFFECTS_VERSION}-{name}.wav"
    clip: Clip | None = None
    if path.is_file():
        try:
            clip = read_wav(path)
        except (OSError, EOFError, ValueError):
            clip = None
    if clip is None or len(clip) == 0:
        from timekeeper.audio.seed import seed_clip

        clip = seed_clip(path, cache_dir())  # shipped with timekeeper: the samples made below (tests/test_seed.py)
        if clip is None:
            from timekeeper.audio.loudness import normalized

            clip = as_stored(normalized(make(), target_lufs, ceiling_dbtp))  # as a later run reads it
        try:
            write_wav(path, clip)
        except (OSError, TimekeeperError):
            pass  # an unwritable cache costs time, not sound
    _EFFECTS[name] = clip
    return clip


def _alert_tone(duration_ms: int) -> Clip:
    t = _times(_samples(duration_ms))
    whoop_s = duration_ms / 1000 / 3
    within = (t % whoop_s) / whoop_s  # 0..1 inside each whoop
    freq_hz = 380.0 + 420.0 * within
    # a buzzy klaxon: the odd partials of a square wave (1/k), and a little of the even ones
    tone = harmonics(freq_hz, {k: (1.0 / k if k % 2 else 0.25 / k) for k in range(1, 16)})
    envelope = np.minimum(1.0, within * 12) * np.minimum(1.0, (1 - within) * 20)
    return _fade((tone * envelope).astype(np.float32))


def alert(duration_ms: int = ALERT_MS) -> Clip:
    """The klaxon before a threat: three rising whoops of a buzzy tone, `duration_ms` long."""
    return _cached_effect(f"alert-{duration_ms}", lambda: _alert_tone(duration_ms), ALERT_LUFS)


def beep(duration_ms: int = BEEP_MS) -> Clip:
    """The data-transfer beep: a clean 1 kHz tone `duration_ms` long."""

    def make() -> Clip:
        tone = harmonics(np.full(_samples(duration_ms), 1000.0), {1: 1.0, 2: 0.2})
        return _fade(tone.astype(np.float32), 5)

    return _cached_effect(f"beep-{duration_ms}", make, BEEP_LUFS)


def jump(duration_ms: int = JUMP_MS) -> Clip:
    """The jump to hyperspace: a rising sweep over a swelling rush of noise that dies away."""

    def make() -> Clip:
        n = _samples(duration_ms)
        t = np.linspace(0.0, 1.0, n)
        sweep = harmonics(120.0 * 12.0 ** (t**1.5), {1: 1.0, 2: 0.5, 3: 0.3, 4: 0.15})
        rush = band_noise(n, 150.0, 2500.0, seed=7, order=8) * 0.6
        envelope = np.minimum(1.0, 0.3 + t / 0.4) * np.minimum(1.0, (1 - t) / 0.45) ** 1.5
        return _fade(((sweep + rush) * envelope).astype(np.float32), 20)

    return _cached_effect(f"jump-{duration_ms}", make, JUMP_LUFS)


def static_loop() -> Clip:
    """STATIC_LOOP_S of radio static: band-limited noise that flutters, with a few crackles."""

    def make() -> Clip:
        n = STATIC_LOOP_S * SAMPLE_RATE
        t = _times(n)
        hiss = band_noise(n, *STATIC_BAND_HZ, seed=1)
        flutter = 0.75 + 0.25 * np.sin(2 * np.pi * 3.0 * t) * np.sin(2 * np.pi * (2 / STATIC_LOOP_S) * t)
        rng = np.random.default_rng(2)
        clicks = np.zeros(n)
        clicks[rng.integers(0, n, 40)] = rng.standard_normal(40) * 30
        crackle = np.fft.irfft(np.fft.rfft(clicks) * np.fft.rfft(band_noise(n, *STATIC_BAND_HZ, seed=3)) / n, n)
        return (hiss * flutter + crackle).astype(np.float32)

    return _cached_effect("static", make, STATIC_LUFS, STATIC_CEILING_DBTP)


def outage_static(loop: Clip, span: tuple[int, int], start_sample: int, n_samples: int) -> Clip:
    """Samples [start, start + n) of `loop` played over the outage `span` (start, end samples),
    fading in and out over STATIC_FADE_MS at its edges."""
    lo, hi = span
    index = np.arange(start_sample, start_sample + n_samples, dtype=np.float64)
    fade = max(1, _samples(STATIC_FADE_MS))
    envelope = np.clip(np.minimum(index - lo, hi - index) / fade, 0.0, 1.0).astype(np.float32)
    return loop_slice(loop, start_sample - lo, n_samples) * envelope


BED_TONES = (  # per phase: (base Hz, {partial: amplitude}, pulses per loop)
    (330.0, {1: 1.0, 2: 0.35, 3: 0.2}, 2),
    (392.0, {1: 1.0, 2: 0.45, 3: 0.3, 4: 0.15}, 3),
    (440.0, {1: 1.0, 2: 0.55, 3: 0.4, 4: 0.25, 5: 0.15}, 5),
)


def _bed_tone(phase: int) -> Clip:
    """One loop of the alarm bed in 0-based `phase`: a pulsing two-tone alarm over a low hum,
    faster, brighter and louder phase by phase; most of its energy lies above 300 Hz, so a
    phone speaker plays it."""
    base_hz, partials, pulses = BED_TONES[phase]
    n = BED_LOOP_S * SAMPLE_RATE
    t = _times(n)
    base_hz = round(base_hz * BED_LOOP_S) / BED_LOOP_S  # whole cycles in the loop
    second_hz = round(base_hz * 1.5 * BED_LOOP_S) / BED_LOOP_S
    within = (t * pulses / BED_LOOP_S) % 1.0
    high = within >= 0.5  # the alarm alternates between two pitches
    smooth = 0.5 - 0.5 * np.cos(2 * np.pi * (within * 2 % 1.0))  # each half swells and fades
    low = harmonics(np.full(n, base_hz), partials)
    upper = harmonics(np.full(n, second_hz), partials)
    alarm = np.where(high, upper, low) * smooth
    hum = 0.25 * np.sin(2 * np.pi * 110.0 * t)
    return (alarm + hum).astype(np.float32)


def bed_loop(phase: int) -> Clip:
    phase = min(phase, len(BED_TONES) - 1)
    return _cached_effect(f"bed-{phase + 1}", lambda: _bed_tone(phase), BED_LUFS[phase])


def loop_slice(loop: Clip, start_sample: int, n_samples: int) -> Clip:
    """Samples [start, start + n) of `loop` repeated forever."""
    offset = start_sample % len(loop)
    reps = -(-(offset + n_samples) // len(loop))
    source = loop if reps == 1 else np.tile(loop, reps)
    return source[offset : offset + n_samples]


def alarm_bed(start_sample: int, n_samples: int, phase_ends_ms: tuple[int, ...]) -> Clip:
    """The background alarm for samples [start, start + n) of a track with these phase ends:
    it fades in over the lead-in and out after the last phase end, then stays silent."""
    out = np.zeros(n_samples, dtype=np.float32)
    bounds = [_samples(end_ms) for end_ms in phase_ends_ms]
    stop_sample = bounds[-1] + _samples(BED_FADE_OUT_MS)
    position = start_sample
    while position < min(start_sample + n_samples, stop_sample):
        phase = bisect.bisect_right(bounds, position)
        stop = min(start_sample + n_samples, stop_sample, bounds[phase] if phase < len(bounds) else stop_sample)
        out[position - start_sample : stop - start_sample] = loop_slice(bed_loop(phase), position, stop - position)
        position = stop
    fade_in_end, fade_out_start = _samples(BED_FADE_IN_MS), bounds[-1]
    if start_sample < fade_in_end or start_sample + n_samples > fade_out_start:  # only the edges fade
        index = np.arange(start_sample, start_sample + n_samples, dtype=np.float64)
        fade_in = np.clip(index / max(1, fade_in_end), 0.0, 1.0)
        fade_out = np.clip((stop_sample - index) / max(1, _samples(BED_FADE_OUT_MS)), 0.0, 1.0)
        out *= (fade_in * fade_out**2).astype(np.float32)
    return out


def duck_gain(
    start_sample: int, n_samples: int, speech_spans: list[tuple[int, int]], depth: float = DUCK_GAIN
) -> np.ndarray:
    """Gain (1 = full, `depth` = ducked) over [start, start + n), given the (start_sample,
    end_sample) spans where the voice speaks; ramps in before and out after."""
    gain = np.ones(n_samples, dtype=np.float32)
    attack = DUCK_ATTACK_MS * SAMPLE_RATE // 1000
    release = DUCK_RELEASE_MS * SAMPLE_RATE // 1000
    index: np.ndarray | None = None
    for begin, end in speech_spans:
        if end + release < start_sample or begin - attack > start_sample + n_samples:
            continue
        if index is None:
            index = np.arange(start_sample, start_sample + n_samples, dtype=np.float64)
        rise = np.clip((index - (begin - attack)) / attack, 0.0, 1.0)
        fall = np.clip(((end + release) - index) / release, 0.0, 1.0)
        depth_now = np.minimum(rise, fall).astype(np.float32)
        np.minimum(gain, 1.0 - (1.0 - depth) * depth_now, out=gain)
    return gain


def soft_clip(samples: Clip) -> Clip:
    """`samples` with every |sample| above SAFETY_KNEE bent smoothly towards SAFETY_CEILING, in
    place (memoryless, so any chunk of the mix gives the same samples)."""
    loud = np.abs(samples) > SAFETY_KNEE
    if np.any(loud):
        room = SAFETY_CEILING - SAFETY_KNEE
        over = np.abs(samples[loud]) - SAFETY_KNEE
        samples[loud] = np.sign(samples[loud]) * (SAFETY_KNEE + room * np.tanh(over / room))
    return samples


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
            raise RenderError(f"not a readable music file (wav, mp3, ogg or flac): {error}", path=str(path)) from error
        self.n_samples = int(info.num_frames * SAMPLE_RATE / info.sample_rate) if info.sample_rate else 0
        if self.n_samples <= 0:
            raise RenderError("the music file holds no audio", path=str(path))
        self.gain = self._gain()

    def _gain(self) -> float:
        """The gain that brings the music to MUSIC_LUFS (BS.1770 over its first seconds)."""
        from timekeeper.audio.loudness import integrated_lufs

        reader = MusicReader(self._stream(0), 1.0)
        opening = reader.read(min(self.n_samples, MUSIC_MEASURE_S * SAMPLE_RATE))
        measured = integrated_lufs(opening)
        return float(10 ** ((MUSIC_LUFS - measured) / 20)) if np.isfinite(measured) else 0.0

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
                raise RenderError("the music file holds no audio", path=str(self.path))
            offset = 0

    def _looped(self, start_sample: int) -> Iterator[np.ndarray]:
        """A short file (even one sample long) decoded once and repeated in half-second pieces, so
        looping it costs no more than playing a long one."""
        import miniaudio

        try:
            decoded = miniaudio.decode_file(str(self.path), output_format=miniaudio.SampleFormat.FLOAT32,
                                            nchannels=1, sample_rate=SAMPLE_RATE)
        except (miniaudio.MiniaudioError, OSError, ValueError) as error:
            raise RenderError(f"not a readable music file (wav, mp3, ogg or flac): {error}", path=str(self.path)) from error
        loop = np.asarray(decoded.samples, dtype=np.float32)
        if len(loop) == 0:
            raise RenderError("the music file holds no audio", path=str(self.path))
        piece = np.tile(loop, -(-(SAMPLE_RATE // 2) // len(loop)) + 1)
        offset = start_sample % len(loop)
        while True:
            yield piece[offset : offset + len(piece) - len(loop)]
            offset = (offset + len(piece) - len(loop)) % len(loop)

    def chunks(self, start_sample: int) -> MusicReader:
        return MusicReader(self._stream(start_sample), self.gain)


class MusicReader:
    """Hands out exactly n samples at a time from a stream of pieces, times `gain`."""

    def __init__(self, pieces: Iterator[np.ndarray], gain: float) -> None:
        self._pieces = pieces
        self._gain = gain
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
        return joined[:n_samples] * np.float32(self._gain)
