"""`timekeeper plan` and `timekeeper render`."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.options import (
    ProgressBar,
    language_option,
    mix_settings,
    pace_option,
    paced,
    players_option,
    scenario_inputs,
    solo_option,
    sound_options,
    voice_option,
    warn_shipped_timing,
    warn_voice_language,
)
from timekeeper.errors import ExitStatus


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


@click.command("render")
@click.argument("scenario")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Audio file to write: .mp3 (default), .wav, .ogg or .flac.")
@language_option
@voice_option
@players_option
@solo_option
@pace_option
@sound_options
def render_command(
    scenario: str,
    out: Path,
    language: str | None,
    voice: str | None,
    players: int,
    solo: bool,
    pace: float,
    no_background: bool,
    music: Path | None,
    computer_voice: bool,
) -> None:
    """Render SCENARIO to a soundtrack file you can play instead of the CD.

    SCENARIO is a scenario file or a built-in name (see `timekeeper list`). The format
    follows the extension of OUT; OUT is replaced only when the render succeeds.

    \b
    Examples:
      timekeeper render mission-1 -o mission-1.mp3
      timekeeper render mission-3 --lang de -o mission-3-de.mp3
      timekeeper render my-mission.yaml --voice ~/packs/ship-ai --music space.ogg -o mine.ogg
      timekeeper render mission-5 --players 4 --no-background -o m5.wav
      timekeeper render mission-1 --pace 1.25 -o training.mp3   # beginners: a quarter more time
    """
    from timekeeper.audio.codec import FORMATS
    from timekeeper.files.outputpath import check_output_path
    from timekeeper.grammar.times import format_time
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.render import render

    if out.suffix.lower() not in FORMATS:
        raise click.BadParameter(f"{out}: unknown audio format {out.suffix or '(none)'!r} (expected {', '.join(FORMATS)})",
                                 param_hint="-o/--output")
    loaded = paced(load_scenario(scenario), pace)
    check_output_path(out, [*scenario_inputs(scenario), music], what="soundtrack")
    settings = mix_settings(
        loaded, language, voice, players, solo, background=not no_background, music=music, computer_voice=computer_voice
    )
    warn_voice_language(settings)
    preparing, encoding = ProgressBar("Preparing voice"), ProgressBar("Rendering")
    try:
        result = render(loaded, out, settings, source=scenario, prepare_progress=preparing, encode_progress=encoding)
    finally:
        preparing.close()
        encoding.close()
    for warning in result.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(f"Wrote {out} ({format_time(result.duration_ms)}, {result.cues} announcements, voice {result.voice})")
