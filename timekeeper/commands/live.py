"""`timekeeper live`: run a mission in real time at the table."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.options import language_option
from timekeeper.errors import ExitStatus, PlaybackError

BACKENDS = ("miniaudio", "simpleaudio", "null", "text")  # as timekeeper.live.outputs.BACKENDS


@click.command("live")
@click.argument("scenario")
@language_option
@click.option("--voice", default=None, help="Voice to speak with (see `timekeeper voices`).")
@click.option("--players", type=click.IntRange(1, 5), default=5, show_default=True, help="Crew size; fewer than 5 drops unconfirmed reports.")
@click.option("--solo", is_flag=True, help="Solo game: no data transfers, incoming data or outages.")
@click.option("--no-background", is_flag=True, help="No alarm bed under the announcements.")
@click.option("--music", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help="Play this audio file under the announcements.")
@click.option("--backend", type=click.Choice(BACKENDS), default="miniaudio", show_default=True, help="miniaudio: sound card; simpleaudio: old sound card library; null: silent rehearsal; text: prompter for a human timekeeper.")
@click.option("--start-at", "start_at", default="0:00", metavar="M:SS", help="Resume the mission from this mission time.")
@click.pass_context
def live_command(
    ctx: click.Context,
    scenario: str,
    language: str | None,
    voice: str | None,
    players: int,
    solo: bool,
    no_background: bool,
    music: Path | None,
    backend: str,
    start_at: str,
) -> None:
    """Run SCENARIO live: speak every announcement on time, show the clock, then the card.

    Everything is synthesized and mixed first; then the clock starts. Keys: space
    pauses and resumes, q quits (asks first), e ends the action round once the
    second phase has ended. When stdout is not a terminal, one line per
    announcement is printed as it starts, beginning with the mission time.

    \b
    Examples:
      timekeeper live mission-5
      timekeeper live mission-5 --start-at 4:30      # resume after an interruption
      timekeeper live my-mission.yaml --backend text # a person reads the words
      timekeeper live mission-1 --backend null | tee mission.log
    """
    from timekeeper.cards.text import text_card
    from timekeeper.live.mission import LiveOptions, live_mission
    from timekeeper.live.session import Outcome
    from timekeeper.mix import MixSettings
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.times import format_time, parse_time_ms

    loaded = load_scenario(scenario)
    start_ms = _start_ms(start_at, loaded.duration_ms, parse_time_ms, format_time)
    language = language or loaded.language or "en"
    settings = MixSettings(language=language, voice=voice, players=players, solo=solo, background=not no_background, music=music)
    with _Progress() as progress:
        result = live_mission(loaded, settings, LiveOptions(backend, start_ms, loaded.title), progress)
    if result.outcome in (Outcome.QUIT, Outcome.INTERRUPTED):
        resume = format_time(result.stopped_ms // 1000 * 1000)
        click.echo(f"Stopped at {resume}. To carry on: timekeeper live {scenario} --start-at {resume}", err=True)
    else:
        click.echo("\n" + text_card(loaded, language), nl=False)
    if result.failure:
        raise PlaybackError(f"the sound device failed at {format_time(result.failure_ms or 0)}: {result.failure}")
    if result.outcome is Outcome.INTERRUPTED:
        ctx.exit(ExitStatus.INTERRUPTED)


def _start_ms(text: str, duration_ms: int, parse, format_time) -> int:  # type: ignore[no-untyped-def]
    try:
        start_ms = parse(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--start-at") from error
    if start_ms >= duration_ms:
        raise click.BadParameter(f"{text} is not before the end of the mission ({format_time(duration_ms)})", param_hint="--start-at")
    return start_ms


class _Progress:
    """A progress bar on stderr (when it is a terminal) fed by prepare_mix's progress(done, total)."""

    def __init__(self) -> None:
        self._bar = None
        self._done = 0

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            stream = click.get_text_stream("stderr")
            if not stream.isatty():
                return
            self._bar = click.progressbar(length=total, label="Preparing the soundtrack", file=stream)
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done
