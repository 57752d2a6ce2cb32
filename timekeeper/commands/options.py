"""Options several commands share, declared once."""

from __future__ import annotations

import click

from timekeeper.voice.phrases import LANGUAGES

language_option = click.option(
    "--lang",
    "language",
    type=click.Choice(LANGUAGES),
    default=None,
    help="Language of the words (default: the scenario's language, else en).",
)
