"""`timekeeper generate` (new missions from a seed) and `timekeeper stats` (the fidelity report)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from timekeeper.commands.options import output_format, shipped_language_option, voice_option, warn_shipped_timing
from timekeeper.generate.batch import MAX_COUNT
from timekeeper.generate.stats import MAX_STATS_COUNT
from timekeeper.model import CAMPAIGN_MISSIONS, MAX_SEED

if TYPE_CHECKING:
    from timekeeper.model import Scenario

MISSION_SUFFIXES = {".yaml": "yaml", ".yml": "yaml"}


class SpecType(click.ParamType):
    """A generator setting read by its OptionSpec (the one parser the web form uses too)."""

    def __init__(self, spec) -> None:
        self.spec = spec
        self.name = spec.type

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        try:
            return self.spec.read(value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


def generator_options(function):
    """Add one click option per generator setting (timekeeper.generate.options.OPTION_SPECS)."""
    from timekeeper.generate.options import OPTION_SPECS

    for spec in reversed(OPTION_SPECS):
        help_text = f"{spec.help}{f' Range: {spec.range}.' if spec.range else ''} Example: {spec.flag} {spec.example}"
        if spec.type == "choice":
            option = click.option(spec.flag, spec.field, type=click.Choice([str(choice) for choice in spec.choices], case_sensitive=False),
                                  default=str(spec.default),
                                  show_default=True, help=help_text)
        else:
            option = click.option(spec.flag, spec.field, type=SpecType(spec), default=None, metavar=spec.metavar,
                                  help=help_text)
        function = option(function)
    return function


def _options(settings: dict):
    """Checked GenerateOptions from the parsed generator settings (None: default)."""
    from timekeeper.errors import ScenarioError
    from timekeeper.generate import GenerateOptions, check_options
    from timekeeper.generate.options import OPTION_SPECS

    values = {}
    for spec in OPTION_SPECS:
        value = settings.pop(spec.field)
        if spec.type == "choice":
            value = spec.parse(value)
        values[spec.field] = spec.default if value is None else value
    try:
        return check_options(GenerateOptions(**values))
    except ScenarioError as error:  # a combination it cannot use is a usage error (exit 2), as click's own
        raise click.UsageError(error.detail) from error


@click.command("generate")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="Seed of the mission (default: a random one; it is written into the file).")
@generator_options
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=1, show_default=True,
              help=f"Make this many missions (seeds SEED, SEED+1, ...; at most {MAX_COUNT:,}) into the folder given "
                   "by -o, each written as it is made.")
@click.option("--campaign", is_flag=True, help="Make an exploration campaign: three missions in a row (needs -o DIR/).")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="File to write (a folder with --count or --campaign). Default: print the YAML.")
@click.option("--render", "render_to", type=click.Path(dir_okay=False), default=None, metavar="FILE.mp3",
              help="Also render the mission to this audio file right away (.mp3, .ogg, .flac or .wav; none: mp3).")
@shipped_language_option
@voice_option
def generate_command(seed: int | None, count: int, campaign: bool, output: str | None, render_to: str | None,
                     language: str | None, voice: str | None, **settings) -> None:
    """Generate new missions that play like the official ones.

    The same seed and options give the same mission on every machine. With
    the default settings each mission keeps the official rules (see
    docs/generator.md): phase lengths, threat points, T+ turns, zones, event
    counts, and no two announcements overlapping in any language. Settings
    outside the official ranges still give valid, overlap-free missions; the
    command says which official rules they relax. Play a mission with
    `timekeeper live`.

    \b
    Examples:
      timekeeper generate --seed 4711 -o my.yaml
      timekeeper live my.yaml
      timekeeper generate --seed 4711 --render my.mp3
      timekeeper generate --kind double-action --players 4 -o da.yaml
      timekeeper generate --length 12:00 --outages 3 --outage-length 10-20 -o long.yaml
      timekeeper generate --threat-colors white,yellow --max-serious 2 -o mixed.yaml
      timekeeper generate --ambush-chance 50 --data-transfers 5 --incoming-data 2-4 -o busy.yaml
      timekeeper generate --count 20 -o missions/
      timekeeper generate --campaign --seed 7 -o campaign/
      timekeeper generate --seed 4711 --voice piper:en_US-joe-medium --render my.mp3

    With --voice, each mission is also timed with that voice's real clips (a pack, a Piper or TTS
    voice) and any overlap it would cause is reported as a warning; --render uses that voice.
    """
    from timekeeper.generate.batch import missions
    from timekeeper.generate.relax import relaxations

    options = _options(settings)
    for relaxed in relaxations(options):
        click.echo(f"Note: relaxes the official rule {relaxed}", err=True)
    if seed is None:
        import secrets

        seed = secrets.randbelow(1_000_000)
    several = count > 1 or campaign
    if several and output is None:
        raise click.UsageError("--count and --campaign need -o FOLDER/ to write the missions into")
    if several and output is not None and output.endswith((".yaml", ".yml")) and not Path(output).is_dir():
        count_shown = 3 if campaign else count
        raise click.UsageError(f"{output}: {count_shown} missions need a folder; give -o {Path(output).stem}/")
    if output is not None and not several:
        from timekeeper.generate.batch import is_folder

        if not is_folder(output):  # one mission into a file: a scenario file's name
            output_format(Path(output), None, MISSION_SUFFIXES, "yaml", what="missions")
    if render_to and several:
        raise click.UsageError("--render renders one mission; drop --count / --campaign")
    target = _render_target(render_to) if render_to else None
    made = missions(seed, options, count=count, campaign=campaign, language=language)
    if voice is not None:
        made = _checking_voice(made, language, voice)
    else:
        warn_shipped_timing(language or "en", "generate")
    if several:
        assert output is not None
        _write_all(made, output, CAMPAIGN_MISSIONS if campaign else count, seed)
        return
    mission = next(made)
    if output is None and not render_to:
        from timekeeper.scenario.dump import dump_scenario

        click.echo(dump_scenario(mission), nl=False)
        return
    if output is not None:
        from timekeeper.generate.batch import write_batch

        written = write_batch([mission], output, 1)
        click.echo(f"Wrote {written.first} (seed {seed}).", err=True)
    if target is not None:
        _render(mission, target, language, voice)


def _write_all(made: Iterator[Scenario], output: str, count: int, seed: int) -> None:
    """Write the `count` missions into the folder `output` one by one as they are made, with a progress bar."""
    from timekeeper.commands.options import ProgressBar
    from timekeeper.generate.batch import write_batch

    progress = ProgressBar("Writing")
    try:
        written = write_batch(made, output, count, progress)
    finally:
        progress.close()
    click.echo(f"Wrote {written.count} missions into {output} (seed {seed}...{seed + written.count - 1}).", err=True)


def _render_target(text: str) -> Path:
    """The --render file (.mp3 added to a name without an extension); a bad one is refused before
    anything is generated."""
    from timekeeper.commands.options import sound_file
    from timekeeper.files.outputpath import check_output_path

    target = sound_file(text, option="--render")
    check_output_path(target, what="soundtrack")
    return target


def _checking_voice(made: Iterator[Scenario], language: str | None, voice: str) -> Iterator[Scenario]:
    """The missions of `made`, each after a warning for every announcement of it that `voice` would
    make overlap."""
    from timekeeper.soundtrack.render import generated_voice_overlaps

    for mission in made:
        for warning in generated_voice_overlaps([mission], language, voice):
            click.echo(f"Warning: {warning}", err=True)
        yield mission


def _render(scenario, target: Path, language: str | None, voice: str | None = None) -> None:
    """Render through the render command's library function (imported only here: it loads audio libraries)."""
    from timekeeper.commands.options import ProgressBar, mix_settings
    from timekeeper.generate.options import reproducing_command
    from timekeeper.model import MAX_PLAYERS
    from timekeeper.soundtrack.render import render

    settings = mix_settings(scenario, language, voice, scenario.players or MAX_PLAYERS, False)
    result = render(scenario, target, settings, source=reproducing_command(scenario.seed, scenario.generator),
                    prepare_progress=ProgressBar("Voice"), encode_progress=ProgressBar("Render"))
    for warning in result.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(f"Rendered {target} ({result.duration_ms // 60000}:{result.duration_ms // 1000 % 60:02d}, "
               f"seed {scenario.seed}).", err=True)


@click.command("stats")
@click.option("--count", type=click.IntRange(1, MAX_STATS_COUNT), default=1000, show_default=True,
              help=f"How many missions to generate for the comparison (at most {MAX_STATS_COUNT:,}; each is measured "
                   "and let go, so memory does not grow with the count).")
@click.option("--seed", "first_seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="Seed of the first mission (the others follow on).")
@generator_options
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="FILE.png",
              help="Also draw the distributions into a PNG (needs matplotlib: pip install 'timekeeper[plot]').")
def stats_command(count: int, first_seed: int, plot: str | None, **settings) -> None:
    """Compare generated missions with the official ones, feature by feature.

    Prints, side by side, the distribution of each feature (phase lengths,
    threats by kind, incoming data, data transfers, outages, event spacing)
    on the official tracks of that kind (missions 1-8 for missions) and on
    COUNT generated missions, with the same settings as `generate`; then
    lists the official rules those settings relax.

    \b
    Examples:
      timekeeper stats
      timekeeper stats --count 5000 --plot fidelity.png
      timekeeper stats --kind double-action
      timekeeper stats --outages 6 --length 12:00   # what these settings change
    """
    from timekeeper.commands.options import ProgressBar
    from timekeeper.generate.stats import fidelity_report, format_report

    options = _options(settings)
    if plot:
        from timekeeper.files.outputpath import check_output_path
        from timekeeper.generate.plot import plot_report, require_matplotlib

        check_output_path(plot, what="plot")
        require_matplotlib()  # fail before the work if matplotlib is missing
    progress = ProgressBar("Generating")
    try:
        report = fidelity_report(count, options, first_seed, progress)
    finally:
        progress.close()
    click.echo(format_report(report))
    if plot:
        plot_report(report, Path(plot))
        click.echo(f"Wrote {plot}.", err=True)
