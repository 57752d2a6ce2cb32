"""The synthesized voice: real espeak-ng and pyttsx3, the clip cache, and its errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from timekeeper.audio.clipcache import cache_dir
from timekeeper.audio.clips import trimmed
from timekeeper.errors import MissingToolError, VoiceError
from timekeeper.voice import engines
from timekeeper.voice.tts import LEAD_PAD_MS, TAIL_PAD_MS, TtsVoice


def test_synthesizes_trimmed_speech_and_caches_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    voice = TtsVoice("en", folder=tmp_path)
    clip = voice.clip("threat", "Threat.")
    assert 200 < voice.measure("threat", "Threat.") < 1500
    assert np.argmax(np.abs(clip) > 0.05 * np.abs(clip).max()) < 0.03 * 44_100  # starts at the word, not before
    assert len(clip) < 0.8 * 44_100  # trimmed: "Threat." alone
    assert len(list((tmp_path / "tts").rglob("*.wav"))) == 1

    def no_engine(*args: object) -> None:
        raise AssertionError("a cached phrase must not start the engine")

    again = TtsVoice("en", folder=tmp_path)
    monkeypatch.setattr(again, "_synthesize", no_engine)
    assert np.array_equal(again.clip("threat", "Threat."), clip)


def test_cache_key_changes_with_voice_and_text(tmp_path: Path) -> None:
    english = TtsVoice("en", folder=tmp_path)
    british = TtsVoice("en", voice="en-gb", folder=tmp_path)
    assert english.cache_path("Threat.") != british.cache_path("Threat.")
    assert english.cache_path("Threat.") != english.cache_path("Threat!")


def test_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TIMEKEEPER_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "timekeeper"
    monkeypatch.setenv("TIMEKEEPER_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def test_unknown_voice_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(VoiceError, match="unknown TTS voice 'no-such-voice'"):
        TtsVoice("en", voice="no-such-voice", folder=tmp_path).clip("threat", "Threat.")


PYTTSX3_CHECKS = """
import sys
from pathlib import Path
from timekeeper.errors import VoiceError
from timekeeper.voice import engines
from timekeeper.voice.tts import TtsVoice
folder = Path(sys.argv[1])
voice = TtsVoice("de", folder=folder, engine="pyttsx3")
length = voice.measure("threat", "Bedrohung.")
assert 200 < length < 1500, length
for attempt in (lambda: TtsVoice("de", voice="no-such-voice", folder=folder, engine="pyttsx3").clip("threat", "Bedrohung."),
                lambda: engines.get_engine("pyttsx3").synthesize("Hallo.", "no/such-voice", 200, 1.0, folder / "x.wav")):
    try:
        attempt()
    except VoiceError as error:
        print(error.message)
"""


def test_pyttsx3_engine_speaks_quietly_and_refuses_unknown_voices(tmp_path: Path) -> None:
    """In its own process: pyttsx3's espeak driver loads the system's libespeak-ng, which must not
    meet the wheel's library that this test process already started (one soname, one library)."""
    done = subprocess.run([sys.executable, "-c", PYTTSX3_CHECKS, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    unknown, ignored = done.stdout.splitlines()  # pyttsx3's "Audio saved to ..." is silenced: only our lines
    assert "unknown TTS voice" in unknown
    assert "ignored voice" in ignored  # a voice pyttsx3 accepts silently but does not use


def test_missing_engine_gives_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(engines, "espeak_wheel", lambda: None)
    real_import = builtins.__import__

    def no_pyttsx3(name: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if name == "pyttsx3":
            raise ImportError("No module named 'pyttsx3'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyttsx3)
    engines.get_engine.cache_clear()
    try:
        with pytest.raises(MissingToolError, match="pip install espeakng-loader"):
            engines.get_engine()
        with pytest.raises(MissingToolError, match="espeak-ng is not installed"):
            engines.get_engine("espeak-ng")
    finally:
        engines.get_engine.cache_clear()


def test_trim_keeps_a_short_pad() -> None:
    clip = np.zeros(44_100, dtype=np.float32)
    clip[20_000:21_000] = 0.5
    kept = trimmed(clip, LEAD_PAD_MS, TAIL_PAD_MS)
    assert 1_000 < len(kept) < 1_000 + 44_100 * 50 // 1000


def test_espeak_ng_skips_the_sentences_without_words(tmp_path: Path) -> None:
    """A lone "..." or "-" between sentences is not spoken (it would be a blip or a pause of its own)."""
    voice = TtsVoice("en", voice="en-us", folder=tmp_path)
    assert len(voice.clip("announce", "Zone red. ... - Zone blue!")) == len(voice.clip("announce", "Zone red. Zone blue!"))
    assert len(voice.clip("announce", " ... ")) == 0
