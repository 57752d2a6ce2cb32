"""Synthesized effects: lengths, pitch, chunk-independent streaming, bed growth, ducking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from timekeeper.audio import effects
from timekeeper.errors import RenderError
from timekeeper.grammar.script import ALERT_MS, BEEP_MS

RATE = 44_100


def level(clip: np.ndarray) -> float:
    return float(np.sqrt(np.mean(clip.astype(np.float64) ** 2)))


def test_alert_and_beep_have_the_grammar_lengths() -> None:
    assert len(effects.alert()) == ALERT_MS * RATE // 1000
    beep = effects.beep()
    assert len(beep) == BEEP_MS * RATE // 1000
    peak_hz = np.argmax(np.abs(np.fft.rfft(beep))) * RATE / len(beep)
    assert abs(peak_hz - 1000) < 5
    assert level(effects.alert()) > 0.1 and np.abs(effects.alert()).max() <= 1.0


@pytest.mark.parametrize("maker", ["static", "bed"])
def test_streamed_sounds_do_not_depend_on_chunking(maker: str) -> None:
    ends = (3_000, 6_000, 9_000)

    def make(start: int, n: int) -> np.ndarray:
        if maker == "static":
            return effects.outage_static(effects.static_loop(), (RATE, 5 * RATE), start, n)
        return effects.alarm_bed(start, n, ends)

    whole = make(1_000, 5 * RATE)
    pieces = np.concatenate([make(1_000, 12_345), make(13_345, 5 * RATE - 12_345)])
    assert np.array_equal(whole, pieces)


def test_alarm_bed_grows_phase_by_phase() -> None:
    ends = (4_000, 8_000, 12_000)
    levels = [level(effects.alarm_bed(start_s * RATE, 4 * RATE, ends)) for start_s in (0, 4, 8)]
    assert levels[0] < levels[1] < levels[2]


def test_duck_gain_dips_under_speech_and_recovers() -> None:
    gain = effects.duck_gain(0, 3 * RATE, [(RATE, RATE + RATE // 2)])
    assert gain[0] == 1.0 and gain[-1] == 1.0
    assert gain[RATE + RATE // 4] == pytest.approx(effects.DUCK_GAIN)
    assert np.all(np.abs(np.diff(gain)) < 0.01)  # ramps, no clicks


def test_ship_computer_keeps_length_and_peak() -> None:
    t = np.arange(RATE // 2) / RATE
    voice = (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    processed = effects.ship_computer(voice)
    assert len(processed) == len(voice)
    assert np.abs(processed).max() == pytest.approx(0.5, rel=0.01)
    assert not np.allclose(processed, voice)


def test_music_loops_and_bad_music_is_refused(tmp_path: Path) -> None:
    import wave

    path = tmp_path / "tune.wav"
    tone = (0.5 * np.sin(2 * np.pi * 440 * np.arange(RATE // 2) / RATE) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(RATE)
        handle.writeframes(tone.tobytes())
    music = effects.Music(path)
    reader = music.chunks(0)
    first = reader.read(RATE * 2)  # four loops of a half-second file
    assert len(first) == RATE * 2 and level(first[-RATE // 4 :]) > 0.05
    junk = tmp_path / "junk.ogg"
    junk.write_bytes(b"not music")
    with pytest.raises(RenderError, match="junk.ogg"):
        effects.Music(junk)
