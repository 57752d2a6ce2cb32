"""Every phrase table says where its words come from, and docs/translations.md agrees with them."""

from __future__ import annotations

from pathlib import Path

import pytest

from timekeeper.grammar.phrases import LANGUAGES, SOURCE_FIELDS, phrase_book

PAGE = Path(__file__).resolve().parent.parent / "docs" / "translations.md"
NOT_CHECKED = "translated by the project, not checked by a native speaker"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_table_names_the_source_of_its_words(language: str) -> None:
    sources = phrase_book(language).sources
    assert set(sources) == set(SOURCE_FIELDS), language
    assert all(len(text) > 10 or field == "checked" for field, text in sources.items()), sources


@pytest.mark.parametrize("language", ("fr", "it", "pl", "cs"))
def test_the_tables_written_by_the_project_say_so(language: str) -> None:
    sources = phrase_book(language).sources
    assert sources["spoken"].startswith(NOT_CHECKED)
    assert sources["printed"] == NOT_CHECKED
    assert sources["checked"] == "no"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sound_names_say_where_they_come_from(language: str) -> None:
    book = phrase_book(language)
    named = book.sources["sound_names"]
    assert "Klaxon" in named and "Transfer beep" in named
    assert book.sound("alert") and book.sound("beep")


def test_the_page_lists_every_language_with_its_review_state() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for language in LANGUAGES:
        [row] = [line for line in text.splitlines() if f"(`{language}`)" in line and line.startswith("|")]
        checked = phrase_book(language).sources["checked"]
        assert row.rstrip(" |").endswith("not translated" if checked.startswith("not translated") else checked), row
    for needed in ("timekeeper plan", "--lang xx", "tools/measure_phrases.py", "checked:", "How to propose"):
        assert needed in text
