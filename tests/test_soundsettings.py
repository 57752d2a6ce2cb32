"""The one parser of sound settings (timekeeper/soundtrack/settings.py), as the command line and the page use it."""

from __future__ import annotations

import click
import pytest

from timekeeper.environment import Environment, using
from timekeeper.errors import RenderError
from timekeeper.model import MAX_PLAYERS
from timekeeper.soundtrack.mix import MixSettings
from timekeeper.soundtrack.settings import SettingProblem, SoundSettings, sound_settings, spoken_language


@pytest.fixture
def greek_pack(tmp_path):
    """A voice pack whose manifest says it speaks Greek, in the current environment's pack folder."""
    folder = tmp_path / "packs" / "kyveRnitis"
    folder.mkdir(parents=True)
    (folder / "pack.yaml").write_text("name: Kyvernitis\nlanguage: el\n", encoding="utf-8")
    with using(Environment.from_mapping({"HOME": str(tmp_path), "TIMEKEEPER_VOICES": str(tmp_path / "packs"),
                                         "TIMEKEEPER_DEFAULT_VOICE": "synthesized"})):
        yield folder


def test_defaults():
    assert sound_settings({}) == SoundSettings(MixSettings(language="en", players=MAX_PLAYERS), 1.0)


def test_the_language_asked_for_then_the_voice_s_then_the_scenario_s_then_english(greek_pack):
    assert spoken_language("de", greek_pack.name, "fr") == "de"
    assert spoken_language(None, greek_pack.name, "fr") == "el"
    assert spoken_language(None, "en-gb", "fr") == "fr"  # a TTS voice does not say
    assert spoken_language(None, None, None) == "en"
    assert sound_settings({"voice": str(greek_pack)}, "fr").mix.language == "el"
    assert sound_settings({"language": " DE"}, "fr").mix.language == "de"


@pytest.mark.parametrize("raw, field, expected", [
    ({"players": 0}, "players", "players 0: expected a whole number from 1 to 5"),
    ({"players": True}, "players", "players True: expected a whole number from 1 to 5"),
    ({"players": "4"}, "players", "players '4': expected a whole number from 1 to 5"),
    ({"pace": 3}, "pace", "pace 3 is out of range (expected 1 to 2; 1 is the normal pace)"),
    ({"pace": "fast"}, "pace", "pace 'fast': expected a number from 1 to 2"),
    ({"language": "not a language"}, "language", "language 'not a language': expected a language code"),
])
def test_each_problem_names_its_field_and_what_was_expected(raw, field, expected):
    with pytest.raises(SettingProblem) as caught:
        sound_settings(raw)
    assert caught.value.field == field and str(caught.value).startswith(expected)


def test_a_music_file_that_cannot_be_read_is_refused_unless_there_is_no_background(tmp_path):
    with pytest.raises(RenderError, match="no such file"):
        sound_settings({"music": tmp_path / "missing.ogg"})
    assert sound_settings({"music": tmp_path / "missing.ogg", "background": False}).mix.music == tmp_path / "missing.ogg"


def test_as_json_is_what_a_game_stores(tmp_path):
    music = tmp_path / "bed.ogg"
    music.write_bytes(b"x")
    stored = sound_settings({"players": 4, "solo": 1, "music": music, "pace": 1.5, "computer_voice": True}, "de").as_json()
    assert stored == {"language": "de", "voice": None, "players": 4, "solo": True, "background": True,
                      "music": str(music), "computer_voice": True, "pace": 1.5}


def test_the_command_line_reports_a_problem_as_a_usage_error_naming_the_option():
    from timekeeper.commands.options import mix_settings
    from timekeeper.scenario.catalog import load_scenario

    with pytest.raises(click.BadParameter) as caught:
        mix_settings(load_scenario("mission-1"), None, None, 9, False)
    assert caught.value.exit_code == 2 and caught.value.param_hint == "--players"
    assert "expected a whole number from 1 to 5" in caught.value.format_message()


def test_both_front_doors_give_the_same_settings(greek_pack, tmp_path):
    from timekeeper.commands.options import mix_settings
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.serve.server import ServeConfig, ServerState

    scenario = load_scenario("mission-1")
    state = ServerState(ServeConfig(state=tmp_path / "state"))
    state.__dict__["voices"] = [{"id": "", "name": None, "language": None},
                                {"id": f"pack:{greek_pack.name}", "name": "Kyvernitis", "language": "el"}]
    page = state.mix_settings({"voice": f"pack:{greek_pack.name}", "players": 3, "solo": True}, scenario.language)
    command_line = mix_settings(scenario, None, str(greek_pack), 3, True)
    assert page["language"] == command_line.language == "el"  # the page used to take the scenario's (en)
    assert {key: page[key] for key in ("voice", "players", "solo")} == {"voice": command_line.voice, "players": 3,
                                                                         "solo": True}


def test_the_page_keeps_its_own_checks(tmp_path):
    from timekeeper.serve.server import ServeConfig, ServerState, SettingsError

    state = ServerState(ServeConfig(state=tmp_path / "state"))
    state.__dict__["voices"] = [{"id": "", "name": None, "language": None}]
    for raw, field, message in (({"language": "xx"}, "language", "language 'xx': expected one of en, de"),
                                ({"voice": "tts:en-gb"}, "voice", "is not offered here"),
                                ({"music": "bed.ogg"}, "music", "music 'bed.ogg' is not offered here"),
                                ({"players": 7}, "players", "players 7: expected a whole number from 1 to 5"),
                                ({"pace": 0.5}, "pace", "pace 0.5 is out of range")):
        with pytest.raises(SettingsError) as caught:
            state.mix_settings(raw, "en")
        assert caught.value.field == field and caught.value.status == 400 and message in str(caught.value)
    assert state.mix_settings({}, "de")["language"] == "de"
