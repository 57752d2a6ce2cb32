"""A scenario card as a Markdown table (for wikis, forum posts and README files)."""

from __future__ import annotations

from timekeeper.cards.rows import card_header, card_rows
from timekeeper.grammar.phrases import PhraseBook, book_for
from timekeeper.model import Scenario

ZONE_MARKS = {"red": "🟥", "white": "⬜", "blue": "🟦"}


def markdown_card(scenario: Scenario, language: str | PhraseBook | None = None) -> str:
    """The card of `scenario`: a heading, the facts, a table of every event, and a legend."""
    phrases = book_for(language, scenario.language)
    header = card_header(scenario, phrases)
    lines = [f"## {_cell(header.title)}", "", " · ".join(_cell(f) for f in [header.kind, *header.facts]), ""]
    lines.append(f"**{phrases.word('phase_ends')}:** " + " · ".join(header.phase_ends))
    lines.append("")
    heads = (phrases.word("time"), "T+", phrases.word("event"), phrases.word("zone"), "")
    lines.append("| " + " | ".join(heads) + " |")
    lines.append("|" + "---|" * len(heads))
    for row in card_rows(scenario, phrases):
        if row.phase_end is not None:
            lines.append(f"| **{row.time}** | | **{_cell(row.what)}** | | |")
            continue
        serious = bool(getattr(row.event, "serious", False))
        what = f"**{_cell(row.what)}**" if serious else _cell(row.what)
        zone = f"{ZONE_MARKS[row.zone.value]} {_cell(row.zone_name)}" if row.zone else ""
        detail = " · ".join(([f"? {phrases.word('unconfirmed')}"] if row.unconfirmed else []) + ([_cell(row.detail)] if row.detail else []))
        lines.append(f"| {row.time} | {row.turn} | {what} | {zone} | {detail} |")
    lines.append("")
    legend = [phrases.word(key) for key in ("legend_unconfirmed", "legend_serious", "legend_turn", "legend_times")]
    lines.append("*" + _cell(" · ".join(legend)) + "*")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """`text` safe inside a table cell: no pipes, no line breaks, no stray emphasis."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("\n", " ")
