"""`timekeeper live`: run a mission in real time at the table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from timekeeper.commands.options import (
    ProgressBar,
    language_option,
    mix_settings,
    pace_option,
    paced,
    players_option,
    solo_option,
    sound_options,
    voice_option,
    warn_voice_language,
)
from timekeeper.errors import ExitStatus, PlaybackError
from timekeeper.live.outputs import BACKENDS

if TYPE_CHECKING:
    from timekeeper.grammar.phrases import PhraseBook



@click.command("live")
@click.argument("scenario")
@language_option
@voice_option
@players_option
@solo_option
@pace_option
@sound_options
@click.option("--backend", type=click.Choice(BACKENDS, case_sensitive=False), default="miniaudio", show_default=True, help="miniaudio: the sound card; simpleaudio: the old sound library (Python < 3.12); null: silent rehearsal; text: prompter for a human timekeeper.")
@click.option("--start-at", "start_at", default="0:00", metavar="M:SS", help="Start the mission clock here (to resume after an interruption): m:ss such as 4:30, or with a unit such as "
                   "270s. An announcement under way then is played from its start.")
@click.pass_context
def live_command(
    ctx: click.Context,
    scenario: str,
    language: str | None,
    voice: str | None,
    players: int,
    solo: bool,
    pace: float,
    no_background: bool,
    music: Path | None,
    computer_voice: bool,
    backend: str,
    start_at: str,
) -> None:
    """Run SCENARIO live: speak every announcement on time, show the clock, then the card.

    SCENARIO is a scenario file or a built-in name (see `timekeeper list`). Everything
    is synthesized and mixed first; then the clock starts. Keys: space pauses and
    resumes, q quits (asks first), e ends the action round once the second phase has
    ended. When stdout is not a terminal, one line per announcement is printed as it
    starts, beginning with the mission time.

    \b
    Examples:
      timekeeper live mission-5
      timekeeper live mission-5 --start-at 4:30      # resume after an interruption
      timekeeper live my-mission.yaml --backend text # a person reads the words
      timekeeper live mission-1 --backend null | tee mission.log
      timekeeper live mission-1 --pace 1.5           # training pace for beginners
    """
    from timekeeper.grammar.times import format_time
    from timekeeper.live.mission import LiveOptions, live_mission
    from timekeeper.live.session import Outcome
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.titles import local_title

    loaded = paced(load_scenario(scenario), pace)
    start_ms = _start_ms(start_at, loaded.duration_ms)
    settings = mix_settings(
        loaded, language, voice, players, solo, background=not no_background, music=music, computer_voice=computer_voice
    )
    warn_voice_language(settings)
    preparing, mixing = ProgressBar("Preparing voice"), ProgressBar("Mixing")
    try:
        result = live_mission(
            loaded, settings, LiveOptions(backend, start_ms, local_title(loaded.title, settings.language)), preparing, mixing,
            warn=lambda text: click.echo(f"Warning: {text}", err=True),
        )
    finally:
        preparing.close()
        mixing.close()
    if result.outcome in (Outcome.QUIT, Outcome.INTERRUPTED):
        resume = format_time(result.stopped_ms // 1000 * 1000)
        click.echo(f"Stopped at {resume}. To carry on: timekeeper live {scenario} --start-at {resume}", err=True)
    else:
        if result.ended_at_ms is not None:
            click.echo(f"Action round ended at {format_time(result.ended_at_ms)}.", err=True)
        from timekeeper.voice.select import open_voice

        words = open_voice(settings.language, settings.voice).phrases()  # a pack may print its own words
        click.echo("\n" + end_card(loaded, words), nl=False)
    if result.failure:
        raise PlaybackError(f"the sound device failed at {format_time(result.failure_ms or 0)}: {result.failure}")
    if result.outcome is Outcome.INTERRUPTED:
        ctx.exit(ExitStatus.INTERRUPTED)


def end_card(scenario, language: str | PhraseBook) -> str:
    """The card printed when the mission ends, for the resolution round: what happened when,
    without the spoken words or the scenario's notes, fitted to the terminal's width."""
    import shutil

    from timekeeper.cards.text import text_card

    width = shutil.get_terminal_size((80, 24)).columns
    return text_card(scenario, language, spoken=False, notes=False, width=max(20, width - 1))


def _start_ms(text: str, duration_ms: int) -> int:
    """--start-at as mission ms, before the end of the mission (a usage error otherwise)."""
    from timekeeper.grammar.times import format_time, parse_clock_option

    try:
        start_ms = parse_clock_option(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--start-at") from error
    if start_ms >= duration_ms:
        raise click.BadParameter(f"{text} is not before the end of the mission ({format_time(duration_ms)})", param_hint="--start-at")
    return start_ms
