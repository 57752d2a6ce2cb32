"""`timekeeper card`: formats, options, exit codes; the Markdown card."""

from __future__ import annotations

from pypdf import PdfReader
from running import result_of as run

from timekeeper.cards.markdown import markdown_card
from timekeeper.cards.rows import card_rows
from timekeeper.cards.text import text_card
from timekeeper.errors import ExitStatus
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.scenario.catalog import load_scenario
from timekeeper.scenario.flashcode import parse_flashcode


def test_text_format_is_what_show_prints():
    for language in LANGUAGES:
        result = run("card", "mission-4", "--format", "text", "--lang", language)
        assert result.exit_code == 0
        assert result.output == text_card(load_scenario("mission-4"), language)
        assert result.output == run("show", "mission-4", "--lang", language).output


def test_pdf_of_several_scenarios_and_a_file(tmp_path):
    mine = tmp_path / "my.yaml"
    mine.write_text('title: "Mine"\nphase_ends: ["4:00", "7:00"]\nevents:\n'
                    '  - {at: "0:10", type: threat, t: 1, zone: blue, serious: true}\n')
    target = tmp_path / "cards.pdf"
    result = run("card", "mission-4", str(mine), "-o", str(target), "--lang", "es")
    assert result.exit_code == 0, result.output
    assert "2 card(s) on 1 page(s)" in result.output
    text = PdfReader(target).pages[0].extract_text()
    assert "Mine" in text and "Amenaza grave" in text and "Azul" in text


def test_all_official_per_page_one(tmp_path):
    target = tmp_path / "official.pdf"
    result = run("card", "--all-official", "--per-page", "1", "--paper", "letter", "-o", str(target))
    assert result.exit_code == 0, result.output
    reader = PdfReader(target)
    assert len(reader.pages) == 34
    assert "Double Action Mission 12" in reader.pages[33].extract_text()


def test_format_follows_the_output_suffix(tmp_path):
    target = tmp_path / "cards.md"
    assert run("card", "mission-2", "-o", str(target)).exit_code == 0
    assert target.read_text().startswith("## Mission 2\n")
    target = tmp_path / "cards.txt"
    assert run("card", "mission-2", "-o", str(target)).exit_code == 0
    assert target.read_text() == text_card(load_scenario("mission-2"))


def test_usage_and_scenario_errors():
    assert run("card").exit_code == ExitStatus.USAGE
    assert run("card", "mission-4").exit_code == ExitStatus.USAGE  # a PDF needs -o
    result = run("card", "misson-4", "--format", "text")
    assert result.exit_code == ExitStatus.INVALID_SCENARIO
    assert "did you mean 'mission-4'" in result.output
    assert run("card", "mission-4", "--per-page", "3", "-o", "x.pdf").exit_code == ExitStatus.USAGE


def test_markdown_card_has_every_row_and_the_legend():
    scenario = load_scenario("double-action-7")
    for language in LANGUAGES:
        phrases = phrase_book(language)
        text = markdown_card(scenario, language)
        table = [line for line in text.splitlines() if line.startswith("| ")][1:]
        rows = card_rows(scenario, phrases)
        assert len(table) == len(rows)
        for line, row in zip(table, rows):
            assert row.time in line and row.what in line and row.turn in line and row.zone_name in line
            assert ("?" in line) == row.unconfirmed
        assert phrases.word("legend_unconfirmed") in text


def test_markdown_escapes_table_breakers():
    scenario = parse_flashcode("010ID,340PE1,700PE2", "Pipes | and *stars*")
    assert "## Pipes \\| and \\*stars\\*" in markdown_card(scenario)


def test_an_imported_track_prints_like_any_other(tmp_path):
    code = run("export", "mission-6").output.strip()
    track = tmp_path / "m6.yaml"
    assert run("import", code, "-o", str(track)).exit_code == 0
    target = tmp_path / "m6.pdf"
    assert run("card", str(track), "-o", str(target)).exit_code == 0
    text = PdfReader(target).pages[0].extract_text()
    for row in card_rows(load_scenario("mission-6"), phrase_book("en")):
        assert row.time in text and row.what in text
