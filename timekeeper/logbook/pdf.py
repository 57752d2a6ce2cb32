"""The ship's log as a printed page (fpdf2, landscape A4): a crew line with role marks whenever the
crew changes, one line per mission, and each campaign bracketed with its total. Sizes are mm.

Pipeline: log lines (logbook.rows) -> pages of drawn rows -> PDF bytes -> atomic file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from timekeeper.cards.pdf import FONTS_DIR
from timekeeper.cards.pdf_card import FONT
from timekeeper.files.atomicfile import write_atomic
from timekeeper.i18n import said, say, translate
from timekeeper.logbook.record import Role
from timekeeper.logbook.rows import COLUMNS, CampaignLine, LogLine, MissionLine
from timekeeper.logbook.words import campaign_said, score_said, track_said

PAGE_MM = (297.0, 210.0)
MARGIN_MM = 10.0
BRACKET_MM = 6.0
ROW_MM = 6.2
HEAD_MM = 9.0
HEADING_PT = 7.5  # the column headings' size, unless a word needs less to fit its column
WIDTHS_MM = (8, 20, 36, 15, 15, 16, 17, 20, 14, 15, 13, 13)  # the last column (score) takes the rest
HEADINGS = ("number", "date", "track", "common", "serious", "survived", "destroyed", "damage", "worst_zone",
            "knocked_out", "squads", "visual", "score")  # each column's heading: the catalogues' log.pdf.heading.<name>
INK = (0, 0, 0)
GREY = (100, 100, 100)
STRIPE = (240, 240, 240)
CAMPAIGN_INK = (25, 90, 190)
LOST_INK = (200, 30, 35)


@dataclass(frozen=True)
class PrintedLog:
    data: bytes
    missions: int
    pages: int
    missing_glyphs: tuple[str, ...] = ()  # characters the font cannot print (left out of the page)


def log_pdf(lines: list[LogLine], title: str | None = None, language: str | None = "en") -> PrintedLog:
    """The log page(s) for `lines`, in the words of `language` (the title, headings, tracks and
    campaign lines); the last page is ruled to its foot, to fill in by hand."""
    from fpdf import FPDF

    assert len(HEADINGS) == len(COLUMNS)
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN_MM, MARGIN_MM, MARGIN_MM)
    pdf.add_font(FONT, "", FONTS_DIR / "DejaVuSansCondensed.ttf")
    pdf.add_font(FONT, "B", FONTS_DIR / "DejaVuSansCondensed-Bold.ttf")
    pdf.set_creator("timekeeper")
    title = title if title is not None else translate(language, "log.pdf.title")
    pdf.set_title(title)
    painter = _Painter(pdf, title, language)
    painter.new_page()
    crew = None
    missions = 0
    for line in lines:
        if isinstance(line, MissionLine):
            label = line.entry.record.crew.label()
            if label != crew or line.bracket in ("first", "only") or painter.page_full():  # a new page names the crew
                painter.crew_line(label)
                crew = label
            painter.mission(line)
            missions += 1
        else:
            painter.campaign(line)
    painter.fill_page()  # ruled lines to the foot of the page, for missions written by hand
    pdf.alias_nb_pages()
    fpdf_log = logging.getLogger("fpdf.output")
    level = fpdf_log.level
    fpdf_log.setLevel(logging.ERROR)  # missing glyphs are reported once, by the caller
    try:
        data = bytes(pdf.output())
    finally:
        fpdf_log.setLevel(level)
    missing = sorted({chr(code) for font in pdf.fonts.values() for code in getattr(font, "missing_glyphs", ())})
    return PrintedLog(data, missions, pdf.page_no(), tuple(missing))


def write_log_pdf(path: str | Path, lines: list[LogLine], title: str | None = None, language: str | None = "en") -> PrintedLog:
    """Write the log PDF to `path` atomically (OutputError if it cannot be written)."""
    printed = log_pdf(lines, title, language)
    write_atomic(path, printed.data)
    return printed


def role_legend(language: str | None) -> str:
    """"C captain · CO communications officer · SC security chief": the marks the crew lines use."""
    return " · ".join(f"{role.mark} {say(said(f'log.role.{role.name.lower()}'), language)}" for role in Role)


class _Painter:
    def __init__(self, pdf, title: str, language: str | None) -> None:
        self.pdf = pdf
        self.title = title
        self.language = language
        self.y = 0.0
        self.stripe = False
        self.left = MARGIN_MM + BRACKET_MM
        self.widths = WIDTHS_MM + (PAGE_MM[0] - MARGIN_MM - self.left - sum(WIDTHS_MM),)
        self.bracket_top: float | None = None

    def new_page(self) -> None:
        pdf = self.pdf
        pdf.add_page()
        pdf.set_text_color(*INK)
        pdf.set_font(FONT, "B", 16)
        pdf.set_xy(MARGIN_MM, MARGIN_MM)
        pdf.cell(120, 8, self.title)
        pdf.set_font(FONT, "", 7.5)
        pdf.set_text_color(*GREY)
        pdf.set_xy(PAGE_MM[0] - MARGIN_MM - 150, MARGIN_MM + 1)
        pdf.cell(150, 6, translate(self.language, "log.pdf.roles", legend=role_legend(self.language), page=pdf.page_no(),
                                   pages="{nb}"), align="R")
        self.y = MARGIN_MM + 11
        self._headings()

    def _headings(self) -> None:
        pdf = self.pdf
        pdf.set_font(FONT, "B", 7.5)
        pdf.set_text_color(*INK)
        x = self.left
        for name, width in zip(HEADINGS, self.widths):
            heading = translate(self.language, f"log.pdf.heading.{name}")
            pdf.set_font(FONT, "B", HEADING_PT)
            widest = max(pdf.get_string_width(word) for word in heading.split())
            room = width - 2 * pdf.c_margin - 0.3  # inside the cell's own margins
            if widest > room:  # a long word of another language: smaller, never broken in two
                pdf.set_font(FONT, "B", HEADING_PT * room / widest)
            pdf.set_xy(x, self.y)
            pdf.multi_cell(width, HEAD_MM / 2, heading, border=0, align="C" if width < 30 else "L",
                           new_x="RIGHT", new_y="TOP")
            x += width
        pdf.set_draw_color(*INK)
        pdf.set_line_width(0.4)
        pdf.line(self.left, self.y + HEAD_MM, PAGE_MM[0] - MARGIN_MM, self.y + HEAD_MM)
        self.y += HEAD_MM + 0.5

    def _room(self, height: float) -> None:
        if self.y + height > PAGE_MM[1] - MARGIN_MM:
            in_campaign = self.bracket_top is not None
            self._close_bracket()
            self.new_page()
            if in_campaign:  # the bracket goes on at the top of the next page
                self.bracket_top = self.y

    def page_full(self) -> bool:
        """True when the next row goes to a new page."""
        return self.y + ROW_MM > PAGE_MM[1] - MARGIN_MM

    def crew_line(self, label: str) -> None:
        self._room(2 * ROW_MM)
        pdf = self.pdf
        pdf.set_font(FONT, "B", 8.5)
        pdf.set_text_color(*INK)
        pdf.set_xy(self.left, self.y)
        pdf.cell(sum(self.widths), ROW_MM, self._fit(translate(self.language, "log.pdf.crew", crew=label), sum(self.widths)))
        self.y += ROW_MM

    def mission(self, line: MissionLine) -> None:
        self._room(ROW_MM)
        pdf = self.pdf
        if line.bracket in ("first", "only"):
            self.bracket_top = self.y
        if self.stripe:
            pdf.set_fill_color(*STRIPE)
            pdf.rect(self.left, self.y, sum(self.widths), ROW_MM, style="F")
        self.stripe = not self.stripe
        cells = list(line.cells())
        cells[COLUMNS.index("track")] = say(track_said(line.entry.record.track), self.language)
        cells[-1] = say(score_said(line), self.language)
        x = self.left
        for index, (cell, width) in enumerate(zip(cells, self.widths)):
            last = index == len(cells) - 1
            lost = last and line.entry.record.ship_destroyed
            pdf.set_font(FONT, "B" if last else "", 8.5)
            pdf.set_text_color(*(LOST_INK if lost else GREY if last and line.bracket else INK))
            pdf.set_xy(x, self.y)
            pdf.cell(width, ROW_MM, self._fit(cell, width - 1), align="L" if index in (2, 12) else "C")
            x += width
        self.y += ROW_MM

    def campaign(self, line: CampaignLine) -> None:
        self._room(ROW_MM)
        pdf = self.pdf
        lost = line.campaign.destroyed_by is not None
        pdf.set_font(FONT, "B", 8.5)
        pdf.set_text_color(*(LOST_INK if lost else CAMPAIGN_INK))
        pdf.set_xy(self.left, self.y)
        pdf.cell(sum(self.widths), ROW_MM, self._fit(say(campaign_said(line), self.language), sum(self.widths)), align="R")
        self.y += ROW_MM
        self._close_bracket()

    def fill_page(self) -> None:
        self.pdf.set_draw_color(*GREY)
        self.pdf.set_line_width(0.1)
        while self.y + ROW_MM <= PAGE_MM[1] - MARGIN_MM:
            self.y += ROW_MM
            self.pdf.line(self.left, self.y, PAGE_MM[0] - MARGIN_MM, self.y)

    def _close_bracket(self) -> None:
        """Draw the campaign's bracket in the left margin, from its first mission to here."""
        if self.bracket_top is None:
            return
        pdf = self.pdf
        x = MARGIN_MM + BRACKET_MM / 2
        pdf.set_draw_color(*CAMPAIGN_INK)
        pdf.set_line_width(0.6)
        pdf.line(x, self.bracket_top + 0.8, x, self.y - 0.8)
        pdf.line(x, self.bracket_top + 0.8, x + BRACKET_MM / 2 - 0.5, self.bracket_top + 0.8)
        pdf.line(x, self.y - 0.8, x + BRACKET_MM / 2 - 0.5, self.y - 0.8)
        self.bracket_top = None

    def _fit(self, text: str, width: float) -> str:
        if self.pdf.get_string_width(text) <= width:
            return text
        while text and self.pdf.get_string_width(text + "…") > width:
            text = text[:-1]
        return text + "…"
