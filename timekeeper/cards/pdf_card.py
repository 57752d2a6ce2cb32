"""Drawing one scenario card into a box of a PDF page (fpdf2); sizes in mm, fonts in points.

A card is laid out for A6 at scale 1. Long tracks shrink the whole card until it fits, then
switch to two columns; a track that fits neither continues on further cards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fpdf import FPDF

from timekeeper.cards.rows import CardHeader, CardRow
from timekeeper.grammar.phrases import PhraseBook
from timekeeper.model import Announcement, Zone

FONT = "DejaVu"
PT_MM = 25.4 / 72
BASE_PT = {"title": 13.0, "meta": 8.0, "body": 9.5, "legend": 6.5}
MAX_SCALE = 1.1  # short tracks print a little larger than the A6 design
MIN_SCALE = 0.6
SCALE_STEP = 0.025
ROW_LEADING = 1.45  # row height / font size
COLUMN_GAP_MM = 4.0
ZONE_RGB = {Zone.RED: (200, 30, 35), Zone.WHITE: (255, 255, 255), Zone.BLUE: (25, 90, 190)}
ZONE_TEXT_RGB = {Zone.RED: (255, 255, 255), Zone.WHITE: (0, 0, 0), Zone.BLUE: (255, 255, 255)}
INK = (0, 0, 0)
GREY = (90, 90, 90)
STRIPE = (238, 238, 238)
PHASE_FILL = (55, 55, 55)


@dataclass(frozen=True)
class Box:
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float


@dataclass(frozen=True)
class CardText:
    """Everything a card prints, in one language."""

    header: CardHeader
    rows: list[CardRow]
    legend: tuple[str, ...]
    unconfirmed: str
    labels: tuple[str, str, str, str]  # time, T+, event, zone
    phase_label: str


def card_text(header: CardHeader, rows: list[CardRow], phrases: PhraseBook) -> CardText:
    legend = (phrases.word("legend_unconfirmed"), phrases.word("legend_serious"),
              phrases.word("legend_turn"), phrases.word("legend_times"))
    labels = (phrases.word("time"), "T+", phrases.word("event"), phrases.word("zone"))
    return CardText(header, rows, legend, phrases.word("unconfirmed"), labels, phrases.word("phase_ends"))


@dataclass(frozen=True)
class Layout:
    scale: float
    columns: int
    widths_mm: tuple[float, float, float, float, float]  # time, turn, event, zone, rest of the detail
    row_mm: float
    short_marker: bool = False


class CardPainter:
    """Draws cards on `pdf`, which must have the DejaVu regular and bold faces added."""

    def __init__(self, pdf: FPDF) -> None:
        self.pdf = pdf

    # --- measuring -------------------------------------------------------------------------
    def _font(self, role: str, scale: float, bold: bool = False) -> float:
        size = BASE_PT[role] * scale
        self.pdf.set_font(FONT, "B" if bold else "", size)
        return size

    def _width(self, text: str, role: str, scale: float, bold: bool = False) -> float:
        self._font(role, scale, bold)
        return self.pdf.get_string_width(text)

    def _detail(self, card: CardText, row: CardRow, short: bool = False) -> str:
        if row.unconfirmed:
            marker = "?" if short else f"? {card.unconfirmed}"
            return f"{marker} · {row.detail}" if row.detail else marker
        return "" if isinstance(row.event, Announcement) else row.detail

    def _legend_lines(self, card: CardText, width_mm: float, scale: float) -> list[str]:
        self._font("legend", scale)
        lines: list[str] = []
        current = ""
        for item in card.legend:
            candidate = f"{current} · {item}" if current else item
            if current and self.pdf.get_string_width(candidate) > width_mm:
                lines.append(current)
                candidate = item
            current = candidate
        return lines + ([current] if current else [])

    def layout(self, card: CardText, rows: list[CardRow], box: Box, scale: float) -> Layout | None:
        """The largest layout of `rows` that fits `box`, or None. A full "? Unconfirmed" marker
        gives way to a bare "?" before the font shrinks."""
        steps = round((MAX_SCALE - MIN_SCALE) / SCALE_STEP) + 1
        for columns in (1, 2):
            for step in range(steps):
                factor = MAX_SCALE - SCALE_STEP * step
                for short in (False, True) if factor <= 1 else (False,):
                    fitted = self._try(card, rows, box, scale * factor, columns, short)
                    if fitted:
                        return fitted
        return None

    def _try(self, card: CardText, rows: list[CardRow], box: Box, s: float, columns: int,
             short: bool) -> Layout | None:
        col_w = (box.w_mm - COLUMN_GAP_MM * s * (columns - 1)) / columns
        pad = 1.2 * s
        zone_w = max(self._width(w, "body", s, True) for w in [*(r.zone_name for r in rows), card.labels[3]]) + 2 * pad
        area_w = max([(zone_w if r.zone else 0) + self._width(self._detail(card, r, short), "body", s, r.unconfirmed)
                      for r in rows if r.phase_end is None] or [0]) + pad
        widths = (
            max([self._width(r.time, "body", s, True) for r in rows] + [self._width(card.labels[0], "meta", s)]) + pad,
            max(self._width("T+8", "body", s, True), self._width(card.labels[1], "meta", s)) + pad,
            max([self._width(r.what, "body", s, _serious(r)) for r in rows if r.phase_end is None] or [0]) + pad,
            zone_w,
            max(0.0, area_w - zone_w),
        )
        if sum(widths) > col_w:
            return None
        row_mm = BASE_PT["body"] * s * PT_MM * ROW_LEADING
        extra = col_w - sum(widths)
        widths = (widths[0], widths[1], widths[2] + extra / 2, widths[3], widths[4] + extra / 2)
        layout = Layout(s, columns, widths, row_mm, short)
        per_column = math.ceil(len(rows) / columns)
        lines = max(sum(len(self._row_lines(row, layout, col_w)) for row in rows[start:start + per_column])
                    for start in range(0, len(rows), per_column))
        height = self._header_mm(s) + (lines + 1) * row_mm + self._legend_mm(card, box.w_mm, s)
        return layout if height <= box.h_mm else None

    def _row_lines(self, row: CardRow, layout: Layout, col_w: float) -> list[str]:
        """The lines of an announcement's text (wrapped from the event column on); [''] otherwise."""
        if not isinstance(row.event, Announcement):
            return [""]
        self._font("body", layout.scale)
        width = col_w - sum(layout.widths_mm[:2]) - 1.2 * layout.scale
        lines: list[str] = []
        current = ""
        for word in f"{row.what}: {row.detail}".split():
            candidate = f"{current} {word}".strip()
            if current and self.pdf.get_string_width(candidate) > width:
                lines.append(current)
                candidate = word
            current = candidate
        return [self._fit(line, width) for line in lines + [current]]

    def _header_mm(self, s: float) -> float:
        return (BASE_PT["title"] * 1.3 + BASE_PT["meta"] * 1.4 * 2) * s * PT_MM + 2.0 * s

    def _legend_mm(self, card: CardText, width_mm: float, s: float) -> float:
        return len(self._legend_lines(card, width_mm, s)) * BASE_PT["legend"] * s * PT_MM * 1.35 + 2.0 * s

    # --- drawing ---------------------------------------------------------------------------
    def draw(self, card: CardText, rows: list[CardRow], box: Box, layout: Layout, part: str = "") -> None:
        s = layout.scale
        y = self._draw_header(card, box, s, part)
        col_w = (box.w_mm - COLUMN_GAP_MM * s * (layout.columns - 1)) / layout.columns
        per_column = math.ceil(len(rows) / layout.columns)
        for column in range(layout.columns):
            x = box.x_mm + column * (col_w + COLUMN_GAP_MM * s)
            chunk = rows[column * per_column:(column + 1) * per_column]
            self._draw_heads(card, x, y, layout)
            row_y = y + layout.row_mm
            for index, row in enumerate(chunk):
                lines = self._row_lines(row, layout, col_w)
                self._draw_row(card, row, x, row_y, col_w, layout, index, lines)
                row_y += len(lines) * layout.row_mm
        self._draw_legend(card, box, s)

    def _draw_header(self, card: CardText, box: Box, s: float, part: str) -> float:
        pdf, header = self.pdf, card.header
        y = box.y_mm + BASE_PT["title"] * s * PT_MM * 1.0
        self._font("title", s, bold=True)
        pdf.set_text_color(*INK)
        pdf.text(box.x_mm, y, self._fit(header.title + part, box.w_mm))
        self._font("meta", s)
        pdf.set_text_color(*GREY)
        y += BASE_PT["meta"] * s * PT_MM * 1.6
        pdf.text(box.x_mm, y, self._fit("  ·  ".join([header.kind, *header.facts]), box.w_mm))
        y += BASE_PT["meta"] * s * PT_MM * 1.4
        self._font("meta", s, bold=True)
        pdf.set_text_color(*INK)
        label = f"{card.phase_label}: "
        pdf.text(box.x_mm, y, label)
        self._font("meta", s)
        pdf.text(box.x_mm + self._width(label, "meta", s, True), y, "  ·  ".join(header.phase_ends))
        return box.y_mm + self._header_mm(s)

    def _draw_heads(self, card: CardText, x: float, y: float, layout: Layout) -> None:
        self._font("meta", layout.scale)
        self.pdf.set_text_color(*GREY)
        baseline = y + layout.row_mm * 0.62
        for label, offset in zip(card.labels, _offsets(layout.widths_mm)):
            self.pdf.text(x + offset + 0.6 * layout.scale, baseline, label)

    def _draw_row(self, card: CardText, row: CardRow, x: float, y: float, width: float, layout: Layout,
                  index: int, lines: list[str]) -> None:
        pdf, s, w = self.pdf, layout.scale, layout.widths_mm
        offsets = _offsets(w)
        baseline = y + layout.row_mm / 2 + BASE_PT["body"] * s * PT_MM * 0.36
        inset = 0.6 * s
        if row.phase_end is not None:
            pdf.set_fill_color(*PHASE_FILL)
            pdf.rect(x, y + 0.15 * layout.row_mm, width, 0.7 * layout.row_mm, style="F")
            self._font("body", s, bold=True)
            pdf.set_text_color(255, 255, 255)
            pdf.text(x + inset, baseline, row.time)
            pdf.text(x + offsets[2] + inset, baseline, self._fit(row.what, width - offsets[2]))
            return
        if index % 2:
            pdf.set_fill_color(*STRIPE)
            pdf.rect(x, y, width, layout.row_mm * len(lines), style="F")
        pdf.set_text_color(*INK)
        self._font("body", s, bold=True)
        pdf.text(x + inset, baseline, row.time)
        pdf.text(x + offsets[1] + inset, baseline, row.turn)
        if isinstance(row.event, Announcement):
            self._font("body", s)
            for number, line in enumerate(lines):
                pdf.text(x + offsets[2] + inset, baseline + number * layout.row_mm, line)
            return
        self._font("body", s, bold=_serious(row))
        pdf.text(x + offsets[2] + inset, baseline, self._fit(row.what, w[2] - inset))
        detail_x = x + offsets[3]
        if row.zone is not None:
            self._draw_zone(row, detail_x, y, w[3], layout)
            detail_x += w[3]
        detail = self._detail(card, row, layout.short_marker)
        if detail:
            self._font("body", s, bold=row.unconfirmed)
            pdf.set_text_color(*GREY)
            pdf.text(detail_x + inset, baseline, detail)

    def _draw_zone(self, row: CardRow, x: float, y: float, width: float, layout: Layout) -> None:
        assert row.zone is not None
        pdf, s = self.pdf, layout.scale
        pdf.set_fill_color(*ZONE_RGB[row.zone])
        pdf.set_draw_color(*GREY)
        pdf.set_line_width(0.25 * s)
        box_w = width - 1.2 * s
        pdf.rect(x, y + 0.12 * layout.row_mm, box_w, 0.76 * layout.row_mm,
                 style="DF" if row.zone is Zone.WHITE else "F", round_corners=True, corner_radius=0.8 * s)
        self._font("body", s, bold=True)
        pdf.set_text_color(*ZONE_TEXT_RGB[row.zone])
        text_w = pdf.get_string_width(row.zone_name)
        pdf.text(x + (box_w - text_w) / 2, y + layout.row_mm / 2 + BASE_PT["body"] * s * PT_MM * 0.36, row.zone_name)

    def _draw_legend(self, card: CardText, box: Box, s: float) -> None:
        lines = self._legend_lines(card, box.w_mm, s)
        line_mm = BASE_PT["legend"] * s * PT_MM * 1.35
        self._font("legend", s)
        self.pdf.set_text_color(*GREY)
        y = box.y_mm + box.h_mm - line_mm * (len(lines) - 1) - 0.3 * line_mm
        self.pdf.set_draw_color(*GREY)
        self.pdf.set_line_width(0.15 * s)
        self.pdf.line(box.x_mm, y - line_mm, box.x_mm + box.w_mm, y - line_mm)
        for index, line in enumerate(lines):
            self.pdf.text(box.x_mm, y + index * line_mm, line)

    def _fit(self, text: str, width_mm: float) -> str:
        """`text` cut with an ellipsis to `width_mm` in the current font."""
        if self.pdf.get_string_width(text) <= width_mm:
            return text
        while text and self.pdf.get_string_width(text + "…") > width_mm:
            text = text[:-1]
        return text.rstrip() + "…"


def _serious(row: CardRow) -> bool:
    return row.phase_end is None and bool(getattr(row.event, "serious", False))


def _offsets(widths: tuple[float, ...]) -> list[float]:
    offsets, total = [], 0.0
    for width in widths:
        offsets.append(total)
        total += width
    return offsets
