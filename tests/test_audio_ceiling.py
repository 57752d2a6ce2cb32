"""The peaks of a stream held under a ceiling before a lossy encoder (timekeeper/audio/ceiling.py)."""

from __future__ import annotations

import numpy as np

from timekeeper.audio.ceiling import BLOCK, held_under

RATE = 44_100


def _speechlike(seconds: float, seed: int = 1) -> np.ndarray:
    """Noise under a syllable-rate envelope whose loudest moments reach 0 dBFS."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    envelope = np.abs(np.sin(2 * np.pi * 4 * np.arange(n) / RATE)) ** 3
    noise = rng.standard_normal(n) * envelope
    return (noise / np.abs(noise).max()).astype(np.float32)


def test_every_sample_stays_under_the_ceiling_and_quiet_stretches_are_untouched() -> None:
    sound = _speechlike(3.0)
    sound[: RATE // 2] *= 0.1  # a quiet half second
    held = np.concatenate(list(held_under(np.split(sound, 6), -4.5)))
    assert len(held) == len(sound) and np.abs(held).max() <= 10 ** (-4.5 / 20) + 1e-7
    assert np.array_equal(held[: RATE // 2 - 4 * BLOCK], sound[: RATE // 2 - 4 * BLOCK])  # nothing to hold there
    gain = held[np.abs(sound) > 0.01] / sound[np.abs(sound) > 0.01]
    assert gain.min() > 0.5 and np.abs(np.diff(gain)).max() < 0.2  # turned down smoothly, not cut


def test_any_cut_into_chunks_gives_the_same_samples() -> None:
    sound = _speechlike(2.0, seed=7)
    whole = np.concatenate(list(held_under([sound], -3.0)))
    cuts = np.sort(np.random.default_rng(3).integers(0, len(sound), 40))
    chunked = np.concatenate(list(held_under(np.split(sound, cuts), -3.0)))
    assert np.array_equal(whole, chunked)


def test_a_stream_under_the_ceiling_passes_as_it_is() -> None:
    parts = np.split(0.3 * _speechlike(1.0), 4)
    assert all(held is part for held, part in zip(held_under(parts, -4.5), parts))
