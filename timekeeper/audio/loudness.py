"""Loudness and peaks of clips, measured to ITU-R BS.1770 with pyloudnorm (never estimated here).

Every level in the mix is set in LUFS: each phrase and effect is normalized to its target once,
when it is synthesized or loaded, and kept in the cache, so the streaming mix only adds samples.
The measuring libraries (scipy and pyloudnorm: about 2 s to import) are loaded on the first
measurement (`libraries`), so a run whose clips are all cached never loads them; the targets
below cost nothing to read.
"""

from __future__ import annotations

import functools
import types

import numpy as np

from timekeeper.audio.pcm import SAMPLE_RATE, Clip

SPEECH_LUFS = -12.0  # every phrase (evened out by a compressor first); with the pauses between
# phrases and the bed between announcements a mission lands at -16 LUFS integrated
CLIP_CEILING_DBTP = -2.5  # true-peak ceiling of every normalized clip (the mix stays under -1 dBTP)
MIN_MEASURE_S = 1.2  # shorter clips are looped to this length: BS.1770 gates 400 ms blocks
OVERSAMPLE = 4  # true peak: the peak of the 4x oversampled signal (BS.1770 annex 2)
LOOKAHEAD_MS = 3  # the limiter turns the gain down this long before a peak, and back up after it
COMPRESS_RATIO = 4.0  # levels above a clip's median level rise a quarter as fast
COMPRESS_WINDOW_MS = 10  # the compressor's level window (its attack and release are this short)
LEVEL_TOLERANCE_LU = 0.25
LEVEL_OVERSHOOT = 1.5
LEVEL_PASSES = 8  # gain + limit, repeated: limiting lowers the loudness a little each time (a peaky phrase needs 8)


@functools.cache
def libraries() -> types.SimpleNamespace:
    """scipy's signal and ndimage, and a BS.1770 meter at SAMPLE_RATE, imported on first use."""
    import pyloudnorm
    from scipy import ndimage, signal

    return types.SimpleNamespace(meter=pyloudnorm.Meter(SAMPLE_RATE), signal=signal, ndimage=ndimage)


def integrated_lufs(clip: Clip) -> float:
    """Integrated loudness of `clip` in LUFS (-inf for silence); short clips are measured looped."""
    samples = np.asarray(clip, dtype=np.float64)
    if len(samples) == 0 or not np.any(samples):
        return float("-inf")
    minimum = int(MIN_MEASURE_S * SAMPLE_RATE)
    if len(samples) < minimum:
        samples = np.tile(samples, -(-minimum // len(samples)))
    return float(libraries().meter.integrated_loudness(samples))


def true_peak_dbtp(clip: Clip) -> float:
    """The true peak of `clip` in dBTP (dB of full scale, between samples included)."""
    if len(clip) == 0:
        return float("-inf")
    peak = float(np.max(np.abs(libraries().signal.resample_poly(np.asarray(clip, dtype=np.float64), OVERSAMPLE, 1))))
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def limited(clip: Clip, ceiling_dbtp: float = CLIP_CEILING_DBTP) -> Clip:
    """`clip` with its true peaks held under `ceiling_dbtp`: a look-ahead gain that dips smoothly
    around each peak above the ceiling and leaves everything else untouched."""
    samples = np.asarray(clip, dtype=np.float64)
    if len(samples) == 0:
        return np.asarray(clip, dtype=np.float32)
    ceiling = 10 ** (ceiling_dbtp / 20)
    envelope = _peak_envelope(libraries().signal.resample_poly(samples, OVERSAMPLE, 1), len(samples))
    needed = np.minimum(1.0, ceiling / np.maximum(envelope, 1e-12))
    if needed.min() >= 1.0:
        return samples.astype(np.float32)
    width = max(1, LOOKAHEAD_MS * SAMPLE_RATE // 1000)
    ndimage = libraries().ndimage
    held = ndimage.minimum_filter1d(needed, size=2 * width + 1, mode="nearest")
    gain = ndimage.uniform_filter1d(held, size=width, mode="nearest")  # never above `needed`
    out = samples * np.minimum(gain, needed)
    return out.astype(np.float32)


def _peak_envelope(oversampled: np.ndarray, n: int) -> np.ndarray:
    """The largest |sample| of each run of OVERSAMPLE oversampled samples (n runs): the same
    values as reshape(n, OVERSAMPLE).max(axis=1), ten times faster (numpy reduces a short inner
    axis slowly; max is exact, so the order of comparisons changes nothing)."""
    head = np.abs(oversampled[: n * OVERSAMPLE])
    envelope = head[0::OVERSAMPLE].copy()
    for phase in range(1, OVERSAMPLE):
        np.maximum(envelope, head[phase::OVERSAMPLE], out=envelope)
    return envelope


def compressed(clip: Clip, ratio: float = COMPRESS_RATIO) -> Clip:
    """`clip` with its louder moments brought closer to its median level (a fast RMS compressor),
    so a loud voice needs little limiting."""
    samples = np.asarray(clip, dtype=np.float64)
    width = max(1, COMPRESS_WINDOW_MS * SAMPLE_RATE // 1000)
    level_db = 10 * np.log10(libraries().ndimage.uniform_filter1d(samples**2, size=width, mode="nearest") + 1e-12)
    active = level_db > level_db.max() - 30
    if not np.any(active):
        return samples.astype(np.float32)
    threshold_db = float(np.median(level_db[active]))
    gain_db = -(1 - 1 / ratio) * np.maximum(0.0, level_db - threshold_db)
    ndimage = libraries().ndimage
    gain_db = ndimage.uniform_filter1d(ndimage.minimum_filter1d(gain_db, size=width), size=width)
    return (samples * 10 ** (gain_db / 20)).astype(np.float32)


def normalized(
    clip: Clip, target_lufs: float, ceiling_dbtp: float = CLIP_CEILING_DBTP, compress: bool = False
) -> Clip:
    """`clip` at `target_lufs` integrated loudness (within about 0.2 LU), true peaks limited to
    `ceiling_dbtp`; `compress` evens it out first (speech)."""
    out = compressed(clip) if compress else np.asarray(clip, dtype=np.float32)
    for step in range(LEVEL_PASSES):
        measured = integrated_lufs(out)
        at_level = abs(measured - target_lufs) < LEVEL_TOLERANCE_LU
        if not np.isfinite(measured) or at_level and (step or true_peak_dbtp(out) <= ceiling_dbtp):
            break  # (at the level from the start, the peaks are still held: limited below, then levelled)
        # after the first pass the limiter has shown how much it takes back: ask for a bit more
        aim = target_lufs + (target_lufs - measured) * (LEVEL_OVERSHOOT - 1.0) if step else target_lufs
        # the gain pyloudnorm.normalize.loudness applies, without its clipping warning (the limiter
        # below takes care of peaks, and warnings filters are not safe in the synthesis threads)
        louder = np.asarray(out, dtype=np.float64) * 10 ** ((aim - measured) / 20)
        out = limited(louder, ceiling_dbtp)
    return out
