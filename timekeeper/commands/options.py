"""Options several commands share, declared once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from timekeeper.environment import current
from timekeeper.grammar.languages import LANGUAGES, language_code
from timekeeper.model import MAX_PLAYERS

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar as ClickProgressBar

    from timekeeper.model import Scenario
    from timekeeper.soundtrack.mix import MixSettings


class LanguageCode(click.ParamType):
    """A shipped language, or any other language code (spoken only by a voice pack in that language)."""

    name = "LANG"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        code = language_code(str(value))
        if code is None:
            self.fail(f"{value!r} is not a language code (shipped: {', '.join(LANGUAGES)}; or a voice pack's, e.g. el)", param, ctx)
        return code


class OneLineText(click.ParamType):
    """Free text on one line, checked as a scenario's field `field` is (its length limit, no control
    characters), so a title given on the command line is refused as clearly as one in a file."""

    name = "TEXT"

    def __init__(self, field: str = "title") -> None:
        self.field = field

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from timekeeper.scenario.load import text_problem

        problem = text_problem(str(value), self.field)
        if problem:
            self.fail(str(problem), param, ctx)
        return str(value)


language_option = click.option(
    "--lang",
    "language",
    type=LanguageCode(),
    default=None,
    help=f"Language of the words: {', '.join(LANGUAGES)}, or a voice pack's language"
    " (default: the voice's language, else the scenario's, else en).",
)

shipped_language_option = click.option(
    "--lang",
    "language",
    type=click.Choice(LANGUAGES, case_sensitive=False),
    default=None,
    help="Language of the words (default: the scenario's language, else en).",
)

voice_option = click.option(
    "--voice", default=None, metavar="NAME|DIR|piper:NAME|FILE.onnx",
    help="TTS voice name (en-gb), voice pack name or pack folder, installed Piper voice"
    " (piper:en_US-joe-medium) or Piper model file (~/voices/de_DE-thorsten-medium.onnx); see `timekeeper voices`.",
)
players_option = click.option(
    "--players", type=click.IntRange(1, MAX_PLAYERS), default=MAX_PLAYERS, show_default=True, help="Crew size; fewer than 5 drops unconfirmed reports, 1 is a solo game (as --solo)."
)
solo_option = click.option("--solo", is_flag=True, help="Solo game: no data transfers, incoming data or outages (also --players 1).")


class PaceFactor(click.ParamType):
    """A training pace: a number from 1 to 2 (also written 1.5x or 150%)."""

    name = "FACTOR"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from timekeeper.grammar.pace import pace_problem

        if isinstance(value, float):
            return value
        text = str(value).strip().lower()
        try:
            pace = float(text[:-1]) / 100 if text.endswith("%") else float(text.removesuffix("x").removesuffix("×"))
        except ValueError:
            pace = None
        problem = pace_problem(pace if pace is not None else str(value))
        if problem:
            self.fail(problem, param, ctx)
        return pace  # type: ignore[return-value]


pace_option = click.option(
    "--pace", type=PaceFactor(), default=1.0, show_default=True,
    help="Training pace: stretch the whole mission by FACTOR (1 to 2; 1.25 or 1.5 for beginners). Every event and "
    "phase end comes later, the announcements keep their natural speed.",
)


def paced(scenario: Scenario, pace: float) -> Scenario:
    """The loaded `scenario` at training pace `pace` (pace.py), before anything reads it."""
    from timekeeper.grammar.pace import stretched

    return stretched(scenario, pace)

F = TypeVar("F", bound=Callable[..., object])


def warn_voice_language(settings: MixSettings) -> None:
    """Print a warning when --voice names a TTS voice of another language than --lang."""
    from timekeeper.voice.select import language_mismatch

    warning = language_mismatch(settings.language, settings.voice)
    if warning:
        click.echo(f"Warning: {warning}", err=True)


def warn_shipped_timing(language: str, command: str) -> None:
    """Print a warning when the shipped phrase lengths of `language`, which time `command` without
    --voice, were measured with another speech engine or voice than this machine's."""
    from timekeeper.voice.caveat import timing_caveat

    warning = timing_caveat(language, command)
    if warning:
        click.echo(f"Warning: {warning}", err=True)


def sound_options(command: F) -> F:
    """--no-background, --music and --computer-voice: the sound design choices of render and live."""
    command = click.option("--computer-voice", is_flag=True, help="Give the voice a metallic 'ship computer' sound.")(command)
    command = click.option(
        "--music", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
        help="An audio file to play (looped, ducked under speech) as a bed.",
    )(command)
    return click.option(
        "--no-background", is_flag=True, help="No alarm bed and no music (speech, alert, beeps and static stay)."
    )(command)


OPTION_OF_SETTING = {"language": "--lang", "voice": "--voice", "players": "--players", "pace": "--pace",
                     "music": "--music"}  # the option that gives each sound setting


def mix_settings(
    scenario: Scenario, language: str | None, voice: str | None, players: int, solo: bool, **extra: object
) -> MixSettings:
    """Command-line choices as MixSettings, checked and defaulted as the page's are
    (timekeeper/soundtrack/settings.py); a setting that cannot be used is a usage error naming its option."""
    from timekeeper.soundtrack.settings import SettingProblem, sound_settings

    raw = {"language": language, "voice": voice, "players": players, "solo": solo, **extra}
    try:
        return sound_settings(raw, scenario.language).mix
    except SettingProblem as problem:
        raise click.BadParameter(str(problem), param_hint=OPTION_OF_SETTING.get(problem.field, problem.field)) from None


def output_format(output: Path | None, format_name: str | None, by_suffix: dict[str, str], default: str,
                  what: str) -> str:
    """The format to write: --format, else the -o suffix, else `default`. `by_suffix` maps each suffix
    the command writes to its format. A suffix it does not write (`card -o cards.png`), or one that
    names another format than --format (`export --format flashcode -o x.yaml`), is a usage error, so
    no file is written under a name that lies about its contents; no suffix takes the format."""
    suffix = output.suffix.lower() if output else ""
    by_this_suffix = by_suffix.get(suffix)
    if suffix and by_this_suffix is None:
        known = list(by_suffix)
        named = known[0] if len(known) == 1 else f"{', '.join(known[:-1])} or {known[-1]}"
        raise click.BadParameter(f"{output}: {what} are written as {named}, not {suffix!r}",
                                 param_hint="-o/--output")
    if format_name and by_this_suffix and by_this_suffix != format_name:
        right = next(key for key, value in by_suffix.items() if value == format_name)
        raise click.BadParameter(f"{output}: a {suffix} file for --format {format_name}; name it "
                                 f"{output.with_suffix(right).name}", param_hint="-o/--output")  # type: ignore[union-attr]
    return format_name or by_this_suffix or default


def sound_file(text: str, format_name: str | None = None, option: str = "-o/--output") -> Path:
    """The soundtrack file `text` names (render -o, generate --render): its extension says the
    format (.mp3, .ogg, .flac, .wav); none takes --format's, else mp3, and is added to the name so
    players know the file. A usage error naming `option` for another extension, or one that
    disagrees with --format."""
    from timekeeper.audio.codec import FORMATS
    from timekeeper.files.outputpath import check_output_path

    path = Path(text)
    try:
        chosen = output_format(path, format_name, {suffix: suffix[1:] for suffix in FORMATS}, "mp3", "soundtracks")
    except click.BadParameter as error:
        raise click.BadParameter(error.message, param_hint=option) from None
    if path.suffix:
        return path
    if os.path.lexists(path):  # (-o /dev/null: refused as it is, not written beside it as /dev/null.mp3)
        check_output_path(path, what="soundtrack")
    return path.with_name(f"{path.name}.{chosen}")


def scenario_inputs(*names: str) -> list[Path]:
    """The files that scenario arguments `names` read (built-in names included), for
    outputpath.check_output_path: no command may write its output over its own input."""
    from timekeeper.errors import ScenarioError
    from timekeeper.scenario.catalog import resolve

    found = []
    for name in names:
        try:
            found.append(resolve(name)[0])
        except ScenarioError:
            continue
    return found


class ProgressBar:
    """A click progress bar on a terminal (stderr), nothing otherwise; used as progress(done, total)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: ClickProgressBar[int] | None = None  # opened at the first report on a terminal
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        stderr = current().streams.stderr
        if not stderr.isatty() or total <= 0:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label=self.label, file=stderr)
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
        self.shown = 0  # a later run of work (another batch) starts a new bar


class BatchProgress:
    """One click progress bar for a batch of tracks on a terminal (stderr), nothing otherwise: its
    length is the seconds of sound to render, its label the track at work ("[3/34] mission-1")."""

    def __init__(self, total_s: int) -> None:
        self.total_s = max(1, total_s)
        self.bar: ClickProgressBar[int] | None = None
        self.shown = 0
        self.base_s = 0  # seconds of the tracks before this one
        self.track_s = 0
        self.label = ""

    def track(self, label: str, track_s: int) -> None:
        """The next track, `track_s` seconds long, starts (its voice is prepared first)."""
        self.base_s += self.track_s
        self.track_s = track_s
        self._show(label, self.base_s)

    def preparing(self, done: int, total: int) -> None:
        """Progress(done, total) of preparing the track's voice: the bar holds, its label says so."""
        if self.bar is not None and total > 0:
            self.bar.label = f"{self.label}: preparing the voice" if done < total else self.label
            self.bar.render_progress()

    def encoding(self, done: int, total: int) -> None:
        """Progress(done, total) of encoding the track."""
        if self.bar is not None and total > 0:
            self.bar.label = self.label
            self._move(self.base_s + self.track_s * done // total)

    def note(self, text: str) -> None:
        """Print `text` (a track written or kept) on stdout, above the bar."""
        stderr = current().streams.stderr
        if self.bar is not None:
            stderr.write("\r\x1b[K")
            stderr.flush()
        click.echo(text)
        if self.bar is not None:
            self.bar.render_progress()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None

    def _show(self, label: str, at_s: int) -> None:
        self.label = label
        stderr = current().streams.stderr
        if self.bar is None:
            if not stderr.isatty():
                return
            self.bar = click.progressbar(length=self.total_s, label=label, file=stderr, show_pos=False, show_eta=True)
            self.bar.__enter__()
        self.bar.label = label
        self._move(at_s)

    def _move(self, at_s: int) -> None:
        assert self.bar is not None
        at_s = min(at_s, self.total_s)
        self.bar.update(at_s - self.shown)
        self.shown = at_s
