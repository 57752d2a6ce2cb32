"""`timekeeper validate` and `timekeeper schema`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from timekeeper.commands.options import language_option, voice_option, warn_shipped_timing
from timekeeper.errors import ExitStatus

if TYPE_CHECKING:
    from collections.abc import Callable

    from timekeeper.grammar.script import Timeline
    from timekeeper.model import Scenario


@click.command("validate")
@click.argument("files", nargs=-1, required=True)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print problems only, no summary.")
@language_option
@voice_option
@click.pass_context
def validate_command(
    ctx: click.Context, files: tuple[str, ...], strict: bool, quiet: bool, language: str | None, voice: str | None
) -> None:
    """Check scenario files and report every problem as path:line:col: message.

    FILES are scenario files or built-in names. Exit status 0 when all are valid,
    3 when any has an error (or, with --strict, a warning).

    \b
    Announcements are timed with the default voice of the scenario's language; with --voice
    (a pack, a Piper voice, a TTS voice) also with that voice's real clips.

    \b
    Examples:
      timekeeper validate my-mission.yaml
      timekeeper validate --strict scenarios/examples/*.yaml
      timekeeper validate my-mission.yaml --voice piper:en_US-joe-medium
    """
    from timekeeper.scenario.validation import validate_paths
    from timekeeper.voice.select import default_voice

    if voice is None and default_voice(language or "en") is None:  # timed with the shipped lengths, as plan does
        warn_shipped_timing(language or "en", "validate")
    report = validate_paths(files, strict=strict, timer=_planned(language, voice))
    for problem in report.problems:
        click.echo(str(problem), err=False)
    if not quiet:
        click.echo(report.summary(), err=True)
    if not report.ok:
        ctx.exit(ExitStatus.INVALID_SCENARIO)


def _planned(language: str | None, voice: str | None) -> Callable[[Scenario], Timeline]:
    """The timeline `plan` and `render` speak a scenario with (5 players), so validate warns of
    the overlaps they have: the voice's real clips, or the shipped lengths of the synthesized voice."""
    from timekeeper.commands.options import mix_settings
    from timekeeper.soundtrack.render import plan

    opened: dict = {}  # one voice for every file of a language: its clips loaded once
    return lambda scenario: plan(scenario, mix_settings(scenario, language, voice, 5, False), voices=opened)


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of the scenario format (for editors).

    \b
    Example (VS Code with the YAML extension, in settings.json):
      timekeeper schema > ~/.config/timekeeper/scenario.schema.json
      "yaml.schemas": {"~/.config/timekeeper/scenario.schema.json": "*.scenario.yaml"}
    """
    import json

    from timekeeper.scenario.schema import scenario_schema

    click.echo(json.dumps(scenario_schema(), indent=2, ensure_ascii=False))
