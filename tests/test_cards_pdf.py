"""PDF scenario cards, read back: every event on its own card, in every language, on every sheet."""

from __future__ import annotations

import re
import subprocess

import pytest
from pypdf import PdfReader
from realparts import needs, program

from timekeeper.cards.pdf import cards_pdf, sheet_for, write_cards_pdf
from timekeeper.cards.rows import CardRow, card_rows
from timekeeper.errors import OutputError, RenderError
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.model import Announcement, IncomingData, Scenario, Threat, Zone
from timekeeper.scenario.catalog import builtin_paths, load_scenario
from timekeeper.titles import local_title

pytestmark = needs("pdftotext")

MM_TO_PT = 72 / 25.4
OFFICIAL = [name for name, path in builtin_paths().items() if path.parent.name == "official"]


def cell_text(pdf_path, page: int, sheet, index: int) -> str:
    """The text pdftotext finds in cell `index` of `page` (1-based), keeping the row layout."""
    cell_w, cell_h = sheet.cell_mm
    column, row = index % sheet.columns, index // sheet.columns
    crop = [str(round(v * MM_TO_PT)) for v in (column * cell_w, row * cell_h, cell_w, cell_h)]
    result = subprocess.run(
        [program("pdftotext"), "-layout", "-f", str(page), "-l", str(page), "-r", "72",
         "-x", crop[0], "-y", crop[1], "-W", crop[2], "-H", crop[3], str(pdf_path), "-"],
        check=True, capture_output=True, text=True,
    )
    return result.stdout


def row_pattern(row: CardRow) -> re.Pattern[str]:
    """A line of the card showing `row`: time, T+N, kind, zone, marker or detail, in that order."""
    parts = [row.time, row.turn, row.what, row.zone_name]
    if row.unconfirmed:
        parts.append("?")
    elif row.detail:
        parts.append(row.detail)
    return re.compile(r"\s+".join(re.escape(p) for p in parts if p))


def assert_card_shows(text: str, scenario: Scenario, language: str) -> None:
    lines = text.splitlines()
    rows = card_rows(scenario, phrase_book(language))
    position = 0
    for row in rows:  # in time order, each on a line of its own
        pattern = row_pattern(row)
        found = next((i for i in range(position, len(lines)) if pattern.search(lines[i])), None)
        assert found is not None, f"{scenario.title} ({language}): no line for {pattern.pattern!r} in\n{text}"
        position = found + 1
        if not row.unconfirmed:
            assert "?" not in lines[found].split(row.what, 1)[1], lines[found]
    assert local_title(scenario.title, language) in text  # the title in the crew's words (timekeeper/titles.py)
    assert phrase_book(language).word("legend_turn") in " ".join(text.split())  # the legend, whole


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_event_is_on_its_card_in_every_language(tmp_path, language):
    names = ["mission-4", "double-action-7", "test-run-1", "mission-1", "advanced-simulation-2"]
    scenarios = [load_scenario(name) for name in names]
    path = tmp_path / "cards.pdf"
    printed = write_cards_pdf(path, scenarios, language)
    assert (printed.cards, printed.pages) == (5, 2)
    assert len(PdfReader(path).pages) == 2
    sheet = sheet_for("a4", 4)
    for index, scenario in enumerate(scenarios):
        assert_card_shows(cell_text(path, index // 4 + 1, sheet, index % 4), scenario, language)


def test_all_official_cards_in_one_pdf(tmp_path):
    scenarios = [load_scenario(name) for name in OFFICIAL]
    path = tmp_path / "official.pdf"
    printed = write_cards_pdf(path, scenarios)
    assert (printed.cards, printed.pages) == (34, 9)
    sheet = sheet_for("a4", 4)
    for index, scenario in enumerate(scenarios):
        assert_card_shows(cell_text(path, index // 4 + 1, sheet, index % 4), scenario, "en")


@pytest.mark.parametrize("per_page, paper, size_pt, pages", [
    (1, "a4", (595, 842), 3),
    (2, "a4", (842, 595), 2),
    (4, "letter", (612, 792), 1),
    (2, "letter", (792, 612), 2),
])
def test_sheets_per_page_and_paper(tmp_path, per_page, paper, size_pt, pages):
    scenarios = [load_scenario(name) for name in ("double-action-7", "mission-4", "test-run-2")]
    path = tmp_path / "c.pdf"
    write_cards_pdf(path, scenarios, "de", per_page=per_page, paper=paper)
    reader = PdfReader(path)
    assert len(reader.pages) == pages
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == size_pt
    sheet = sheet_for(paper, per_page)
    for index, scenario in enumerate(scenarios):
        assert_card_shows(cell_text(path, index // per_page + 1, sheet, index % per_page), scenario, "de")


@pytest.mark.full(reason="prints and reads back cards in three languages")
def test_the_font_is_embedded_and_german_and_spanish_letters_survive(tmp_path):
    path = tmp_path / "c.pdf"
    write_cards_pdf(path, [load_scenario("mission-4")], "de")
    page = PdfReader(path).pages[0]
    fonts = [font.get_object() for font in page["/Resources"]["/Font"].values()]
    descriptors = [f["/DescendantFonts"][0].get_object()["/FontDescriptor"] for f in fonts]
    assert all("/FontFile2" in d for d in descriptors)
    assert "Weiß" in page.extract_text() and "Datenübertragung" in page.extract_text()
    write_cards_pdf(path, [load_scenario("mission-1")], "es")
    assert "Misión" in PdfReader(path).pages[0].extract_text()


def test_a_track_too_long_for_one_card_continues_on_the_next(tmp_path):
    events = tuple(IncomingData(10_000 + i * 5_000) for i in range(110))
    events += (Threat(12_000, 1, Zone.RED, serious=True),)
    scenario = Scenario("Marathon", (300_000, 600_000, 900_000), tuple(sorted(events, key=lambda e: e.at_ms)))
    path = tmp_path / "long.pdf"
    printed = write_cards_pdf(path, [scenario], per_page=4)
    assert printed.cards >= 2
    text = "\n".join(cell_text(path, i // 4 + 1, sheet_for("a4", 4), i % 4) for i in range(printed.cards))
    assert f"Marathon (1/{printed.cards})" in text
    for row in card_rows(scenario, phrase_book("en")):
        assert row_pattern(row).search(text), row


@pytest.mark.full(reason="prints every official card")
def test_written_atomically_and_a_write_failure_is_an_output_error(tmp_path):
    path = tmp_path / "c.pdf"
    path.write_bytes(b"old")
    write_cards_pdf(path, [load_scenario("test-run-1")])
    assert path.read_bytes().startswith(b"%PDF")
    assert [p.name for p in tmp_path.iterdir()] == ["c.pdf"]
    with pytest.raises(OutputError, match="cannot write"):
        write_cards_pdf(tmp_path / "missing" / "c.pdf", [load_scenario("test-run-1")])
    with pytest.raises(RenderError, match="no scenarios"):
        cards_pdf([])
    with pytest.raises(RenderError, match="per-page 3"):
        sheet_for("a4", 3)


def test_long_announcements_wrap_instead_of_being_cut(tmp_path):
    text = "Captain's orders: from now on every crew member repeats each threat aloud before moving, " * 2
    events = (Threat(10_000, 1, Zone.RED), Announcement(60_000, text.strip()))
    scenario = Scenario("Talkative", (240_000, 420_000, 540_000), events)
    path = tmp_path / "a.pdf"
    write_cards_pdf(path, [scenario], per_page=4)
    words = " ".join(cell_text(path, 1, sheet_for("a4", 4), 0).split())
    assert text.strip() in words
