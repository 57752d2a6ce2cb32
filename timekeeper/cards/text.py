"""A scenario card as plain text for the terminal (what `show` and `card --format text` print)."""

from __future__ import annotations

import textwrap

from timekeeper.cards.rows import card_header, card_rows
from timekeeper.grammar.phrases import PhraseBook, book_for
from timekeeper.model import Scenario

SPOKEN_WIDTH = 60


def text_card(scenario: Scenario, language: str | PhraseBook | None = None, *, spoken: bool = True,
              notes: bool = True, width: int | None = None) -> str:
    """The card of `scenario` as an aligned table; with `spoken`, the words of each announcement;
    with `notes`, the scenario's notes (what its author wrote for the crew). With `width`,
    no line is longer: long lines wrap at word boundaries, indented under their start."""
    phrases = book_for(language, scenario.language)
    header = card_header(scenario, phrases)
    rows = card_rows(scenario, phrases)
    lines = [header.title, "=" * len(header.title)]
    lines.append("  ·  ".join([header.kind, *header.facts]))
    lines.append(f"{phrases.word('phase')}: " + " / ".join(header.phase_ends))
    if header.notes and notes:
        lines += textwrap.wrap(header.notes, 88)
    lines.append("")
    unconfirmed = phrases.word("unconfirmed")
    table = []
    for row in rows:
        what = row.what + (f" ({unconfirmed})" if row.unconfirmed else "")
        table.append((row.time, row.turn, what, row.zone_name, row.detail, row.spoken if spoken else ""))
    heads = (phrases.word("time"), "T+", phrases.word("event"), phrases.word("zone"), "", "")
    widths = [max(len(r[i]) for r in [heads, *table]) for i in range(5)]
    for cells in [heads, *table]:
        head = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells[:5])).rstrip()
        words = textwrap.wrap(cells[5], SPOKEN_WIDTH) or [""]
        lines.append(f"{head.ljust(sum(widths) + 8)}  {words[0]}".rstrip())
        indent = " " * (sum(widths) + 10)
        lines += [indent + more for more in words[1:]]
    if width is not None:
        lines[1] = lines[1][:width]
        lines = [piece for line in lines for piece in _fit_width(line, width)]
    return "\n".join(lines) + "\n"


def _fit_width(line: str, width: int) -> list[str]:
    """`line` in pieces of at most `width` columns, broken between words where possible."""
    if len(line) <= width:
        return [line]
    indent = " " * min(len(line) - len(line.lstrip()) + 2, width // 3)
    return textwrap.wrap(line, width, subsequent_indent=indent, drop_whitespace=True) or [line[:width]]
