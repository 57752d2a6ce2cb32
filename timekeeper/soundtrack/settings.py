"""The sound settings of a track, as either front door gives them (the command line's flags, the
page's JSON), checked and defaulted in one place into MixSettings and a training pace.

The language, when none is asked for, is the one players hear anyway: the voice's own (a voice
pack's manifest, a Piper voice's settings: a German pack speaks German), else the scenario's,
else English (`spoken_language`). Both front doors follow it.

Each problem is a SettingProblem naming the field and what was expected; the command line turns
it into a usage error (exit 2), the server into a 400 answer naming the field. What only one
front door knows stays there: the page offers a list of voices and music files, the command line
names files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import RenderError
from timekeeper.grammar.languages import LANGUAGES, language_code
from timekeeper.grammar.pace import NORMAL_PACE, pace_problem
from timekeeper.model import MAX_PLAYERS
from timekeeper.soundtrack.mix import MixSettings

MAX_MUSIC_BYTES = 500_000_000
DEFAULT_LANGUAGE = "en"


class SettingProblem(ValueError):
    """A sound setting that cannot be used: `field` names it, the message says what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class SoundSettings:
    """What to mix (MixSettings) and the training pace it is played at (1 to 2, timekeeper/grammar/pace.py)."""

    mix: MixSettings
    pace: float = NORMAL_PACE

    def as_json(self) -> dict:
        """The settings as a game stores them (the music file's path a string)."""
        mix = self.mix
        return {
            "language": mix.language,
            "voice": mix.voice,
            "players": mix.players,
            "solo": mix.solo,
            "background": mix.background,
            "music": str(mix.music) if mix.music else None,
            "computer_voice": mix.computer_voice,
            "pace": self.pace,
        }


def spoken_language(language: str | None, voice: str | None, scenario_language: str | None) -> str:
    """The language of the words: `language` if asked for, else the voice's, else the scenario's, else en."""
    from timekeeper.voice.select import voice_language

    return language or voice_language(voice) or scenario_language or DEFAULT_LANGUAGE


def sound_settings(raw: Mapping[str, object], scenario_language: str | None = None) -> SoundSettings:
    """Checked settings from `raw`: language (a language code, or empty), voice (a voice reference,
    voice/reference.py, or empty: the default voice), players (1 to MAX_PLAYERS), solo, background,
    music (a file, or empty), computer_voice and pace; a missing one takes its default.
    SettingProblem for a value that cannot be used; RenderError for a music file that cannot be read."""
    language = _language(raw.get("language"))
    voice = str(raw.get("voice") or "") or None
    players = raw.get("players", MAX_PLAYERS)
    if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= MAX_PLAYERS:
        raise SettingProblem("players", f"players {players!r}: expected a whole number from 1 to {MAX_PLAYERS}")
    pace = raw.get("pace", NORMAL_PACE)
    problem = pace_problem(pace)
    if problem:
        raise SettingProblem("pace", problem)
    background = bool(raw.get("background", True))
    music = Path(str(raw["music"])) if raw.get("music") else None
    if music is not None and background:
        from timekeeper.files.userfiles import check_input_file

        check_input_file(music, MAX_MUSIC_BYTES, what="a music file (wav, mp3, ogg or flac)", error=RenderError)
    mix = MixSettings(
        language=spoken_language(language, voice, scenario_language),
        voice=voice,
        players=players,
        solo=bool(raw.get("solo", False)) or players == 1,  # a crew of one plays solo
        background=background,
        music=music,
        computer_voice=bool(raw.get("computer_voice", False)),
    )
    return SoundSettings(mix, float(pace))  # type: ignore[arg-type]


def _language(value: object) -> str | None:
    """A language asked for as its code (None: not asked)."""
    if not value:
        return None
    code = language_code(str(value))
    if code is None:
        raise SettingProblem("language", f"language {value!r}: expected a language code (shipped: {', '.join(LANGUAGES)}; "
                                         "or a voice pack's, e.g. el)")
    return code
