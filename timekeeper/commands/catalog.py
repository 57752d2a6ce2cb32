"""`timekeeper list` and `timekeeper show`."""

from __future__ import annotations

import click

from timekeeper.commands.options import shipped_language_option


@click.command("list")
def list_command() -> None:
    """List the built-in scenarios with title, kind and length.

    \b
    Example:
      timekeeper list
    """
    from timekeeper.scenario.catalog import builtin_listing

    rows = builtin_listing()
    head = ("name", "kind", "length", "title")
    width = max(len(text) for text in [head[0], *(row.name for row in rows)])
    kind_width = max(len(text) for text in [head[1], *(row.kind for row in rows)])
    click.echo(f"{head[0].upper().ljust(width)}  {head[1].upper().ljust(kind_width)}  {head[2].upper():>6}  {head[3].upper()}")
    for row in rows:
        click.echo(f"{row.name.ljust(width)}  {row.kind.ljust(kind_width)}  {row.length:>6}  {row.title}")


@click.command("show")
@click.argument("scenario")
@shipped_language_option
@click.option("--no-spoken", is_flag=True, help="Leave out the spoken words of each announcement.")
def show_command(scenario: str, language: str | None, no_spoken: bool) -> None:
    """Print a scenario's timeline as a card-like table.

    SCENARIO is a scenario file or a built-in name (see `timekeeper list`).

    \b
    Examples:
      timekeeper show mission-3
      timekeeper show my-mission.yaml --lang de
    """
    from timekeeper.cards.text import text_card
    from timekeeper.scenario.catalog import load_scenario

    click.echo(text_card(load_scenario(scenario), language, spoken=not no_spoken), nl=False)
