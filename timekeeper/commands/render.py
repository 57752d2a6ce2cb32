"""`timekeeper plan` and `timekeeper render`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from timekeeper.commands.options import (
    BatchProgress,
    ProgressBar,
    language_option,
    mix_settings,
    pace_option,
    paced,
    players_option,
    scenario_inputs,
    solo_option,
    sound_file,
    sound_options,
    voice_option,
    warn_shipped_timing,
    warn_voice_language,
)
from timekeeper.errors import ExitStatus

if TYPE_CHECKING:
    from timekeeper.model import Scenario
    from timekeeper.soundtrack.mix import MixSettings


@click.command("plan")
@click.argument("scenario")
@language_option
@voice_option
@players_option
@solo_option
@pace_option
@click.option("--strict", is_flag=True, help="Exit with status 3 when cues overlap (as validate --strict).")
@click.pass_context
def plan_command(ctx: click.Context, scenario: str, language: str | None, voice: str | None, players: int, solo: bool,
                 pace: float, strict: bool) -> None:
    """Print every announcement of SCENARIO with its start and end time, and mark overlaps.

    Times come from the default voice's measured phrase lengths, or, with --voice, from that
    voice's real clips. A cue that starts before the previous one has ended is marked
    "!! OVERLAP" and counted at the end; --strict then exits with status 3, as
    `validate --strict` does for the same overlap.

    \b
    Examples:
      timekeeper plan mission-3
      timekeeper plan mission-3 --lang de --players 4
      timekeeper plan my-mission.yaml --voice ~/packs/ship-ai --strict
      timekeeper plan mission-1 --pace 1.5            # a training pace: every time half as late again
    """
    from timekeeper.grammar.times import format_time
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.render import plan, plan_lines
    from timekeeper.voice.select import default_voice

    loaded = paced(load_scenario(scenario), pace)
    settings = mix_settings(loaded, language, voice, players, solo)
    warn_voice_language(settings)
    if voice is None and default_voice(settings.language) is None:  # the shipped lengths of the synthesized voice
        warn_shipped_timing(settings.language, "plan")
    timeline = plan(loaded, settings, ProgressBar("Preparing voice"), warn=lambda text: click.echo(f"Warning: {text}", err=True))
    lines, overlaps = plan_lines(timeline)
    for line in lines:
        click.echo(line)
    click.echo(f"{len(timeline.cues)} cues, track length {format_time(timeline.duration_ms)}, {overlaps} overlapping")
    if overlaps and strict:
        ctx.exit(ExitStatus.INVALID_SCENARIO)


OFFICIAL_KINDS = ("test-run", "simulation", "advanced-simulation", "mission", "double-action")  # in the official order
SOUND_FORMATS = ("mp3", "ogg", "flac", "wav")


@click.command("render")
@click.argument("scenarios", nargs=-1, metavar="[SCENARIO]...")
@click.option("-o", "--output", "out", required=True, metavar="FILE|DIR/",
              help="Audio file to write (.mp3, .ogg, .flac or .wav; none: mp3), or the folder for several tracks.")
@click.option("--all-official", is_flag=True, help="All 34 official tracks in the official order, into the folder -o names.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(OFFICIAL_KINDS),
              help="Only the official tracks of this kind (repeatable; implies --all-official).")
@click.option("--format", "format_name", type=click.Choice(SOUND_FORMATS), default=None,
              help="Audio format of a folder's tracks, or of a file named without an extension (default: mp3).")
@language_option
@voice_option
@players_option
@solo_option
@pace_option
@sound_options
def render_command(
    scenarios: tuple[str, ...],
    out: str,
    all_official: bool,
    kinds: tuple[str, ...],
    format_name: str | None,
    language: str | None,
    voice: str | None,
    players: int,
    solo: bool,
    pace: float,
    no_background: bool,
    music: Path | None,
    computer_voice: bool,
) -> None:
    """Render SCENARIO to a soundtrack file you can play instead of the CD, or several
    tracks (a CD's worth) into a folder.

    SCENARIO is a scenario file or a built-in name (see `timekeeper list`). The format
    follows the extension of OUT (none: mp3); OUT is replaced only when the render succeeds.

    Several SCENARIOs, or --all-official (--kind for some kinds only), go into the folder
    OUT as numbered files (01-test-run-1.mp3, ...) with their titles, numbers and album in
    the tags, and a playlist (playlist.m3u). Each file is written whole or not at all; run
    the same command again after an interruption and the tracks already rendered with the
    same settings are kept.

    \b
    Examples:
      timekeeper render mission-1 -o mission-1.mp3
      timekeeper render mission-3 --lang de -o mission-3-de.mp3
      timekeeper render my-mission.yaml --voice ~/packs/ship-ai --music space.ogg -o mine.ogg
      timekeeper render mission-5 --players 4 --no-background -o m5.wav
      timekeeper render mission-1 --pace 1.25 -o training.mp3   # beginners: a quarter more time
      timekeeper render --all-official -o cd/                    # all 34 tracks, and cd/playlist.m3u
      timekeeper render --kind mission --lang de --format ogg -o missionen/
      timekeeper render test-run-1 test-run-2 simulation-1 -o training/
    """
    names = _track_names(scenarios, all_official, kinds)

    def settings_of(scenario: Scenario) -> MixSettings:
        return mix_settings(scenario, language, voice, players, solo, background=not no_background, music=music,
                            computer_voice=computer_voice)

    if len(names) > 1 or all_official or kinds or _is_folder(out):
        return _render_into_folder(names, out, format_name, pace, settings_of)
    _render_one(names[0], sound_file(out, format_name), pace, settings_of, music)


def _track_names(scenarios: tuple[str, ...], all_official: bool, kinds: tuple[str, ...]) -> list[str]:
    """The tracks to render: those named, or the official ones (of `kinds`), in the official order."""
    if (all_official or kinds) and scenarios:
        raise click.UsageError("name the tracks, or choose them with --all-official or --kind, not both")
    if all_official or kinds:
        from timekeeper.scenario.catalog import official_names

        return official_names(kinds)
    if not scenarios:
        raise click.UsageError("name a SCENARIO (see `timekeeper list`), or render them all with --all-official")
    return list(scenarios)


def _is_folder(out: str) -> bool:
    """-o names a folder: it ends with a separator, or is one."""
    return out.endswith(("/", "\\")) or os.path.isdir(out)  # (False for a name too long for the system, too)


def _render_one(name: str, out: Path, pace: float, settings_of: Callable[[Scenario], MixSettings], music: Path | None) -> None:
    from timekeeper.files.outputpath import check_output_path
    from timekeeper.grammar.times import format_time
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.render import render

    loaded = paced(load_scenario(name), pace)
    check_output_path(out, [*scenario_inputs(name), music], what="soundtrack")
    settings = settings_of(loaded)
    warn_voice_language(settings)
    preparing, encoding = ProgressBar("Preparing voice"), ProgressBar("Rendering")
    try:
        result = render(loaded, out, settings, source=name, prepare_progress=preparing, encode_progress=encoding)
    finally:
        preparing.close()
        encoding.close()
    for warning in result.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(f"Wrote {out} ({format_time(result.duration_ms)}, {result.cues} announcements, voice {result.voice})")


def _render_into_folder(names: list[str], out: str, format_name: str | None, pace: float,
                        settings_of: Callable[[Scenario], MixSettings]) -> None:
    from timekeeper.audio.codec import FORMATS
    from timekeeper.errors import ScenarioError
    from timekeeper.files.outputpath import check_output_folder
    from timekeeper.grammar.times import format_time
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.batch import BatchTrack, batch_tracks, render_batch

    folder = Path(out)
    if folder.suffix.lower() in FORMATS and not _is_folder(out):
        raise click.BadParameter(f"{out}: {len(names)} tracks go into a folder; give one, such as -o {folder.stem}/",
                                 param_hint="-o/--output")
    check_output_folder(folder, what="soundtracks")
    loaded, problems = [], []
    for name in names:  # every track checked before the first is rendered
        try:
            loaded.append((name, paced(load_scenario(name), pace)))
        except ScenarioError as error:
            problems.append(str(error))
    if problems:
        raise ScenarioError.listing(problems)
    named = [(name, scenario, settings_of(scenario)) for name, scenario in loaded]
    warn_voice_language(named[0][2])
    tracks = batch_tracks(named, folder, "." + (format_name or "mp3"))
    progress = BatchProgress(sum(scenario.duration_ms for _, scenario, _ in named) // 1000)
    finished: list[str] = []

    def done(track: BatchTrack, what: str, duration_ms: int) -> None:
        finished.append(track.name)
        progress.note(f"{'Wrote' if what == 'written' else 'Kept'} {track.path} ({format_time(duration_ms)}"
                      + (")" if what == "written" else ", rendered before with these settings)"))

    try:
        result = render_batch(tracks, folder, report=done, prepare_progress=progress.preparing,
                              encode_progress=progress.encoding,
                              starting=lambda track: progress.track(track.label, track.scenario.duration_ms // 1000))
    except KeyboardInterrupt:
        progress.close()
        click.echo(f"Stopped with {len(finished)} of {len(tracks)} tracks done in {folder}; the same command again "
                   "keeps them and renders the rest.", err=True)
        raise
    finally:
        progress.close()
    for warning in result.warnings:
        click.echo(f"Warning: {warning}", err=True)
    kept = f" ({len(result.kept)} kept from before)" if result.kept else ""
    click.echo(f"{len(tracks)} track{'s' if len(tracks) != 1 else ''}{kept} in {folder}, "
               f"{format_time(result.duration_ms)} in all; playlist {result.playlist}")
