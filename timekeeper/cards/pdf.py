"""Scenario cards as a PDF: one card per scenario, several cards per sheet with cut marks.

Pipeline: scenarios -> card rows (cards.rows, in one language) -> laid out cards -> sheets -> PDF
bytes -> atomic file. Sizes are mm; a card at scale 1 is A6 (105 x 148 mm), which is what a
quarter of an A4 sheet is.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from timekeeper.cards.pdf_card import FONT, Box, CardPainter, CardText, Layout, card_text
from timekeeper.cards.rows import CardRow, card_header, card_rows
from timekeeper.errors import RenderError
from timekeeper.files.atomicfile import write_atomic
from timekeeper.grammar.phrases import PhraseBook, book_for
from timekeeper.model import Scenario

FONTS_DIR = Path(__file__).resolve().parent.parent / "fonts"
if TYPE_CHECKING:
    from fpdf import FPDF

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PER_PAGE = (4, 2, 1)
A6_MM = (105.0, 148.5)
CARD_MARGIN_MM = 7.0  # inside each cell: printers cannot print the sheet's outer few mm
CUT_MARK_MM = 8.0


@dataclass(frozen=True)
class Sheet:
    """A page of `columns` x `rows` equal cells."""

    width_mm: float
    height_mm: float
    columns: int
    rows: int

    @property
    def cell_mm(self) -> tuple[float, float]:
        return self.width_mm / self.columns, self.height_mm / self.rows

    def card_box(self, index: int) -> tuple[Box, float]:
        """The printable box of cell `index` (row by row) and the card scale that fills it."""
        cell_w, cell_h = self.cell_mm
        scale = min(cell_w / A6_MM[0], cell_h / A6_MM[1])
        margin = CARD_MARGIN_MM * math.sqrt(scale)
        column, row = index % self.columns, index // self.columns
        box = Box(column * cell_w + margin, row * cell_h + margin, cell_w - 2 * margin, cell_h - 2 * margin)
        return box, scale


def sheet_for(paper: str, per_page: int) -> Sheet:
    if paper not in PAPER_MM:
        raise RenderError(f"unknown paper {paper!r} (expected {', '.join(PAPER_MM)})")
    short, long = PAPER_MM[paper]
    if per_page == 4:
        return Sheet(short, long, 2, 2)
    if per_page == 2:
        return Sheet(long, short, 2, 1)  # landscape: two A5-like cards side by side
    if per_page == 1:
        return Sheet(short, long, 1, 1)
    raise RenderError(f"--per-page {per_page}: expected one of {', '.join(map(str, PER_PAGE))}")


@dataclass(frozen=True)
class PrintedCards:
    data: bytes
    cards: int
    pages: int
    missing_glyphs: tuple[str, ...] = ()  # characters the card font cannot draw (left out)


def cards_pdf(scenarios: Iterable[Scenario], language: str | PhraseBook | None = None, *, per_page: int = 4,
              paper: str = "a4") -> PrintedCards:
    """A PDF with the card of every scenario, `per_page` cards to a sheet of `paper`."""
    from fpdf import FPDF

    sheet = sheet_for(paper, per_page)
    pdf = FPDF(orientation="P", unit="mm", format=(sheet.width_mm, sheet.height_mm))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.add_font(FONT, "", FONTS_DIR / "DejaVuSansCondensed.ttf")
    pdf.add_font(FONT, "B", FONTS_DIR / "DejaVuSansCondensed-Bold.ttf")
    pdf.set_creator("timekeeper")
    painter = CardPainter(pdf)
    slot = 0
    for scenario in scenarios:
        phrases = book_for(language, scenario.language)
        rows = card_rows(scenario, phrases)
        card = card_text(card_header(scenario, phrases), rows, phrases)
        box, scale = sheet.card_box(0)
        parts = _parts(painter, card, box, scale)
        for number, (part_rows, layout) in enumerate(parts, start=1):
            if slot % per_page == 0:
                pdf.add_page()
                _cut_marks(pdf, sheet)
            box, _ = sheet.card_box(slot % per_page)
            label = f" ({number}/{len(parts)})" if len(parts) > 1 else ""
            painter.draw(card, part_rows, box, layout, label)
            slot += 1
    if slot == 0:
        raise RenderError("no scenarios to print")
    pdf.set_title("Space Alert scenario cards")
    return PrintedCards(bytes(pdf.output()), slot, pdf.page_no())


def write_cards_pdf(path: str | Path, scenarios: Iterable[Scenario], language: str | PhraseBook | None = None, *,
                    per_page: int = 4, paper: str = "a4") -> PrintedCards:
    """Write the cards of `scenarios` to `path` atomically. Characters the card font lacks (emoji,
    CJK) are left out, and `missing_glyphs` names them (fpdf2's own log lines are kept quiet)."""
    with _glyph_log() as missing:
        printed = cards_pdf(scenarios, language, per_page=per_page, paper=paper)
    write_atomic(path, printed.data)
    return PrintedCards(printed.data, printed.cards, printed.pages, tuple(sorted(missing)))


@contextlib.contextmanager
def _glyph_log() -> Iterator[set[str]]:
    """Collect the characters fpdf2 reports as missing from a font, instead of its log lines."""
    missing: set[str] = set()

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            missing.update(re.findall(r"'(.)' \(", record.getMessage()))

    logger = logging.getLogger("fpdf")
    handler, propagate = Collect(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield missing
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _parts(painter: CardPainter, card: CardText, box: Box, scale: float) -> list[tuple[list[CardRow], Layout]]:
    """The rows of `card` split into as few cards as fit `box` (one card for any real track)."""
    rows = card.rows
    layout = painter.layout(card, rows, box, scale)
    if layout is not None:
        return [(rows, layout)]
    low, high = 1, len(rows)  # the most rows one card holds: low fits, high does not
    while high - low > 1:
        middle = (low + high) // 2
        if painter.layout(card, rows[:middle], box, scale) is None:
            high = middle
        else:
            low = middle
    parts = []
    for start in range(0, len(rows), low):
        chunk = rows[start:start + low]
        fitted = painter.layout(card, chunk, box, scale)
        if fitted is None:
            raise RenderError("a row is too wide for the card", path=card.header.title)
        parts.append((chunk, fitted))
    return parts


def _cut_marks(pdf: FPDF, sheet: Sheet) -> None:
    """Short lines at the page edges where the sheet is cut, and a cross where cuts meet."""
    cell_w, cell_h = sheet.cell_mm
    pdf.set_draw_color(120, 120, 120)
    pdf.set_line_width(0.2)
    xs = [cell_w * i for i in range(1, sheet.columns)]
    ys = [cell_h * i for i in range(1, sheet.rows)]
    for x in xs:
        pdf.line(x, 0, x, CUT_MARK_MM)
        pdf.line(x, sheet.height_mm - CUT_MARK_MM, x, sheet.height_mm)
    for y in ys:
        pdf.line(0, y, CUT_MARK_MM, y)
        pdf.line(sheet.width_mm - CUT_MARK_MM, y, sheet.width_mm, y)
    for x in xs:
        for y in ys:
            pdf.line(x - 3, y, x + 3, y)
            pdf.line(x, y - 3, x, y + 3)
