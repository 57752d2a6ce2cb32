"""A scenario card as an HTML fragment (the web page reveals it after the mission; it prints)."""

from __future__ import annotations

from html import escape

from timekeeper.cards.rows import card_header, card_rows
from timekeeper.grammar.phrases import PhraseBook, book_for
from timekeeper.grammar.script import ScriptOptions
from timekeeper.model import Scenario


def html_card(scenario: Scenario, language: str | PhraseBook | None = None, players: int = 5, solo: bool = False) -> str:
    """The card of `scenario`: title, facts, phase ends, a table of every event, a legend.
    Unconfirmed reports are marked; what this crew did not hear is struck through (unconfirmed
    reports when fewer than 5 play; data, transfers and outages in a solo game or a crew of one)."""
    phrases = book_for(language, scenario.language)
    heard = ScriptOptions(players, solo)
    header = card_header(scenario, phrases)
    facts = " · ".join(escape(fact) for fact in (header.kind, *header.facts))
    out = [
        '<article class="card">',
        f"<h2>{escape(header.title)}</h2>",
        f'<p class="facts">{facts}</p>',
        f'<p class="phase-ends"><b>{escape(phrases.word("phase_ends"))}:</b> {escape(" · ".join(header.phase_ends))}</p>',
        "<table>",
        "<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in (
            phrases.word("time"), "T+", phrases.word("event"), phrases.word("zone"), "")) + "</tr></thead>",
        "<tbody>",
    ]
    for row in card_rows(scenario, phrases):
        if row.phase_end is not None:
            out.append(f'<tr class="phase-end"><td>{escape(row.time)}</td><td></td>'
                       f'<td colspan="3">{escape(row.what)}</td></tr>')
            continue
        classes = ["serious"] if getattr(row.event, "serious", False) else []
        if row.unconfirmed:
            classes.append("unconfirmed")
        if row.event is not None and not heard.keeps(row.event):
            classes.append("dropped")
        zone = f'<span class="zone zone-{row.zone.value}">{escape(row.zone_name)}</span>' if row.zone else ""
        detail = " · ".join(([f"? {phrases.word('unconfirmed')}"] if row.unconfirmed else []) + ([row.detail] if row.detail else []))
        out.append(f'<tr class="{" ".join(classes)}"><td>{escape(row.time)}</td><td>{escape(row.turn)}</td>'
                   f"<td>{escape(row.what)}</td><td>{zone}</td><td>{escape(detail)}</td></tr>")
    out += ["</tbody>", "</table>"]
    legend = [phrases.word(key) for key in ("legend_unconfirmed", "legend_serious", "legend_turn", "legend_times")]
    out.append(f'<p class="legend">{escape(" · ".join(legend))}</p>')
    out.append("</article>")
    return "\n".join(out)
