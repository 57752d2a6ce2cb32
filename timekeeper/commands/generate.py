"""`timekeeper generate` (new missions from a seed) and `timekeeper stats` (the fidelity report)."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.options import language_option

KINDS = ("mission", "simulation", "double-action")

kind_option = click.option("--kind", type=click.Choice(KINDS), default="mission", show_default=True,
                           help="Which official tracks to imitate (double-action: longer, with double threats).")
players_option = click.option("--players", type=click.Choice(["4", "5"]), default="5", show_default=True,
                              help="Crew size; 5 players also hear unconfirmed reports.")
level_option = click.option("--threat-level", type=int, default=None, metavar="POINTS",
                            help="Confirmed threat points (normal 1, serious 2). Default: as official "
                                 "(simulation 5, mission 7, double-action 10).")


def _options(kind: str, players: str, threat_level: int | None):
    from timekeeper.generate import GenerateOptions, check_options

    return check_options(GenerateOptions(kind=kind, players=int(players), threat_level=threat_level))


@click.command("generate")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Seed of the mission (default: a random one; it is written into the file).")
@kind_option
@players_option
@level_option
@click.option("--count", type=click.IntRange(1, 100_000), default=1, show_default=True,
              help="Make this many missions (seeds SEED, SEED+1, ...) into the folder given by -o.")
@click.option("--campaign", is_flag=True, help="Make an exploration campaign: three missions in a row (needs -o DIR/).")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="File to write (a folder with --count or --campaign). Default: print the YAML.")
@click.option("--render", "render_to", type=click.Path(dir_okay=False), default=None, metavar="FILE.mp3",
              help="Also render the mission to this audio file right away.")
@language_option
def generate_command(seed: int | None, kind: str, players: str, threat_level: int | None, count: int,
                     campaign: bool, output: str | None, render_to: str | None, language: str | None) -> None:
    """Generate new missions that play like the official ones.

    The same seed and options give the same mission on every machine. Each
    mission keeps the generator's rules (see docs/generator.md): official phase
    lengths, threat points, T+ turns, event counts, and no two announcements
    overlapping in any language. Play a generated mission with `timekeeper live`.

    \b
    Examples:
      timekeeper generate --seed 4711 -o my.yaml
      timekeeper live my.yaml
      timekeeper generate --seed 4711 --render my.mp3
      timekeeper generate --kind double-action --players 4 -o da.yaml
      timekeeper generate --count 20 -o missions/
      timekeeper generate --campaign --seed 7 -o campaign/
    """
    from timekeeper.generate import batch, write_batch

    options = _options(kind, players, threat_level)
    if seed is None:
        import secrets

        seed = secrets.randbelow(1_000_000)
    several = count > 1 or campaign
    if several and output is None:
        raise click.UsageError("--count and --campaign need -o FOLDER/ to write the missions into")
    if render_to and several:
        raise click.UsageError("--render renders one mission; drop --count / --campaign")
    missions = batch(seed, options, count=count, campaign=campaign, language=language)
    if output is None and not render_to:
        from timekeeper.scenario.dump import dump_scenario

        click.echo(dump_scenario(missions[0]), nl=False)
        return
    if output is not None:
        paths = write_batch(missions, output)
        shown = str(paths[0]) if len(paths) == 1 else f"{len(paths)} missions into {output}"
        click.echo(f"Wrote {shown} (seed {seed}{'...' + str(seed + len(paths) - 1) if len(paths) > 1 else ''}).", err=True)
    if render_to:
        _render(missions[0], Path(render_to), language)


def _render(scenario, target: Path, language: str | None) -> None:
    """Render through the render command's library function (imported only here: it loads audio libraries)."""
    from timekeeper.commands.options import ProgressBar
    from timekeeper.mix import MixSettings
    from timekeeper.render import render

    settings = MixSettings(language=language or scenario.language or "en", players=scenario.players or 5)
    result = render(scenario, target, settings, source=f"timekeeper generate --seed {scenario.seed}",
                    prepare_progress=ProgressBar("Voice"), encode_progress=ProgressBar("Render"))
    for warning in result.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(f"Rendered {target} ({result.duration_ms // 60000}:{result.duration_ms // 1000 % 60:02d}, "
               f"seed {scenario.seed}).", err=True)


@click.command("stats")
@click.option("--count", type=click.IntRange(1, 1_000_000), default=1000, show_default=True,
              help="How many missions to generate for the comparison.")
@click.option("--seed", "first_seed", type=click.IntRange(0, 2**62), default=0, show_default=True,
              help="Seed of the first mission (the others follow on).")
@kind_option
@players_option
@level_option
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="FILE.png",
              help="Also draw the distributions into a PNG (needs matplotlib: pip install 'timekeeper[plot]').")
def stats_command(count: int, first_seed: int, kind: str, players: str, threat_level: int | None,
                  plot: str | None) -> None:
    """Compare generated missions with the official ones, feature by feature.

    Prints, side by side, the distribution of each feature (phase lengths,
    threats by kind, incoming data, data transfers, outages, event spacing)
    on the official tracks of that kind (missions 1-8 for missions) and on
    COUNT generated missions.

    \b
    Examples:
      timekeeper stats
      timekeeper stats --count 5000 --plot fidelity.png
      timekeeper stats --kind double-action
    """
    from timekeeper.generate.stats import fidelity_report, format_report, plot_report

    options = _options(kind, players, threat_level)
    if plot:
        from timekeeper.generate.plot import require_matplotlib

        require_matplotlib()  # fail before the work if matplotlib is missing
    with click.progressbar(length=count, label="Generating", file=click.get_text_stream("stderr")) as bar:
        def progress(seeds):
            for index, seed in enumerate(seeds):
                if index % 500 == 0:
                    bar.update(min(500, count - index))
                yield seed

        report = fidelity_report(count, options, first_seed, progress)
    click.echo(format_report(report))
    if plot:
        plot_report(report, Path(plot))
        click.echo(f"Wrote {plot}.", err=True)
