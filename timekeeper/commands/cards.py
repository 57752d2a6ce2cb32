"""`timekeeper card`: printable scenario cards (PDF, text or Markdown)."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.options import language_option, output_format, pace_option, paced

FORMAT_BY_SUFFIX = {".pdf": "pdf", ".md": "markdown", ".markdown": "markdown", ".txt": "text"}


@click.command("card")
@click.argument("scenarios", nargs=-1)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (needed for pdf; text and markdown print without it).")
@language_option
@pace_option
@click.option("--per-page", type=click.Choice(["4", "2", "1"], case_sensitive=False), default="4", show_default=True,
              help="Cards per sheet: 4 (A6 cards with cut marks), 2 (A5-like), 1 (one big card).")
@click.option("--paper", type=click.Choice(["a4", "letter"], case_sensitive=False), default="a4", show_default=True)
@click.option("--format", "format_name", type=click.Choice(["pdf", "text", "markdown"], case_sensitive=False), default=None,
              help="Default: from the -o suffix (.pdf, .md, .txt), else pdf.")
@click.option("--all-official", is_flag=True, help="Add the 34 official tracks, in their natural order.")
@click.option("--voice", default=None, metavar="PACK",
              help="Print the words of this voice pack (its language; printed words from its pack.yaml).")
def card_command(scenarios: tuple[str, ...], output: Path | None, language: str | None, pace: float, per_page: str,
                 paper: str, format_name: str | None, all_official: bool, voice: str | None) -> None:
    """Print scenario cards: one card per scenario, for the timekeeper and the resolution round.

    SCENARIOS are scenario files or built-in names (see `timekeeper list`).

    \b
    Examples:
      timekeeper card mission-4 my.yaml -o cards.pdf
      timekeeper card --all-official -o official-cards.pdf --lang de
      timekeeper card mission-4 --per-page 1 --paper letter -o big.pdf
      timekeeper card mission-4 --format markdown
      timekeeper card mission-4 --voice ~/packs/greek -o cards-el.pdf
      timekeeper card mission-1 --pace 1.5 --format text   # the times of a training-pace render
    """
    from timekeeper.commands.options import scenario_inputs
    from timekeeper.files.atomicfile import write_atomic
    from timekeeper.files.outputpath import check_output_path
    from timekeeper.scenario.catalog import builtin_paths, load_scenario

    names = list(scenarios)
    if all_official:
        names += [name for name, path in builtin_paths().items() if path.parent.name == "official"]
    if not names:
        raise click.UsageError("name at least one scenario, or use --all-official")
    chosen = output_format(output, format_name, FORMAT_BY_SUFFIX, "pdf", what="cards")
    loaded = [paced(load_scenario(name), pace) for name in names]
    if output is not None:
        check_output_path(output, scenario_inputs(*names), what="card")
    if voice is not None:
        from timekeeper.soundtrack.settings import spoken_language
        from timekeeper.voice.select import open_voice

        language = open_voice(spoken_language(language, voice, None), voice).phrases()  # type: ignore[assignment]
    if chosen == "pdf":
        if output is None:
            raise click.UsageError("a PDF needs -o FILE (or use --format text / markdown to print)")
        from timekeeper.cards.pdf import write_cards_pdf

        printed = write_cards_pdf(output, loaded, language, per_page=int(per_page), paper=paper)
        if printed.missing_glyphs:
            click.echo(f"Warning: the card font has no {' '.join(printed.missing_glyphs)}; "
                       "they are left out of the PDF", err=True)
        click.echo(f"Wrote {output}: {printed.cards} card(s) on {printed.pages} page(s).", err=True)
        return
    text = _cards_text(loaded, language, chosen)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        click.echo(f"Wrote {output}: {len(loaded)} card(s).", err=True)


def _cards_text(loaded: list, language: str | None, format_name: str) -> str:
    if format_name == "markdown":
        from timekeeper.cards.markdown import markdown_card

        return "\n".join(markdown_card(scenario, language) for scenario in loaded)
    from timekeeper.cards.text import text_card

    return "\n".join(text_card(scenario, language) for scenario in loaded)
