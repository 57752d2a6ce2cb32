"""The one parser of voice references (timekeeper/voice/reference.py), and the places that use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from timekeeper.environment import Environment, using
from timekeeper.errors import VoiceError
from timekeeper.voice.reference import VoiceReference, parse_voice


@pytest.fixture
def packs(tmp_path):
    """A voice-pack folder holding the pack "ship-ai", installed as the current environment's."""
    folder = tmp_path / "packs"
    (folder / "ship-ai").mkdir(parents=True)
    with using(Environment.from_mapping({"HOME": str(tmp_path), "TIMEKEEPER_VOICES": str(folder),
                                         "TIMEKEEPER_DEFAULT_VOICE": "synthesized"})):
        yield folder


@pytest.mark.parametrize("text, kind, target", [
    ("synthesized", "synthesized", ""),
    ("piper:en_US-joe-medium", "piper", "en_US-joe-medium"),
    ("tts:piper:en_US-joe-medium", "piper", "en_US-joe-medium"),  # how the page lists a Piper voice
    ("tts:en-gb", "tts", "en-gb"),
    ("en-gb", "tts", "en-gb"),
    ("no-such/folder", "pack", "no-such/folder"),
    ("./missing", "pack", "./missing"),
])
def test_forms(packs, text, kind, target):
    assert parse_voice(text) == VoiceReference(kind, target)


def test_model_files_and_packs(packs, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert parse_voice("~/voices/de_DE-thorsten-medium.ONNX") == VoiceReference(
        "model", str(tmp_path / "voices" / "de_DE-thorsten-medium.ONNX"))
    assert parse_voice("ship-ai") == VoiceReference("pack", str(packs / "ship-ai"))  # a name in the pack folder
    assert parse_voice("pack:ship-ai") == VoiceReference("pack", str(packs / "ship-ai"))  # the page's id
    assert parse_voice(str(packs / "ship-ai")).pack_folder == packs / "ship-ai"


def test_spec_is_what_voice_takes():
    assert parse_voice("synthesized").spec is None
    assert parse_voice("tts:piper:x").spec == "piper:x"
    assert parse_voice("tts:en-gb").spec == "en-gb"
    assert parse_voice("piper:x").neural and parse_voice("x.onnx").neural and not parse_voice("en-gb").neural


def test_open_voice_follows_the_reference(packs):
    from timekeeper.voice.select import open_voice

    with pytest.raises(VoiceError, match="no such voice pack folder"):
        open_voice("en", "./missing")
    assert open_voice("en", "synthesized").name == open_voice("en", None).name  # the default here: synthesized


def test_the_page_offers_ids_that_name_the_same_voice_as_voice_does(packs, tmp_path):
    from timekeeper.serve.server import ServeConfig, ServerState

    state = ServerState(ServeConfig(state=tmp_path / "state"))
    state.__dict__["voices"] = [{"id": "", "name": None, "language": None},
                                {"id": "pack:ship-ai", "name": "Ship AI", "language": "en"},
                                {"id": "tts:piper:en_US-joe-medium", "name": None, "language": "en"}]
    assert state.voice_spec("pack:ship-ai") == str(packs / "ship-ai")
    assert state.voice_spec("tts:piper:en_US-joe-medium") == "piper:en_US-joe-medium"
    assert state.voice_spec("") is None
    assert Path(state.voice_spec("pack:ship-ai")) == parse_voice("ship-ai").pack_folder
