"""The message catalogues (timekeeper/locales/*.po): complete, consistent, translated, readable;
and the helpers that pick a language and fill a message."""

from __future__ import annotations

import string

import pytest
from babel.messages.pofile import read_po

from timekeeper.i18n import (
    FALLBACK,
    UI_LANGUAGES,
    UnknownLanguage,
    catalogue_path,
    messages,
    preferred_language,
    translate,
)

OTHERS = [language for language in UI_LANGUAGES if language != FALLBACK]
# German entries that may read as in English: names (FlashPlayerCode, espeak-ng's regional English
# voices), units, and words German spells the same (Pause, Code, Solo, Mission, "in 5 s")
SAME_IN_GERMAN = {"voice.variant.gbclan", "voice.variant.gbcwmd", "voice.variant.nyc", "generate.unit.seconds",
                  "generate.unit.time", "page.code.label", "page.dl.code", "page.game.pause", "page.lobby.code",
                  "page.setup.crew_solo", "page.prompt.in", "page.prompt.sound_in", "log.edit.title",
                  "title.official.mission", "title.official.simulation"}  # "Mission 1", "Simulation 1"


def entries(language: str) -> dict[str, str]:
    """Every entry of the catalogue as written, empty ones included."""
    with catalogue_path(language).open("rb") as po:
        catalogue = read_po(po, abort_invalid=True)
    return {str(message.id): str(message.string) for message in catalogue if message.id}


def words(text: str) -> bool:
    """True when `text` has letters besides its placeholders ("{rule} — {text}" and "0-6" have none)."""
    return any(char.isalpha() for literal, _, _, _ in string.Formatter().parse(text) for char in literal)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_catalogue_parses_and_has_exactly_the_english_keys_all_filled(language):
    english, mine = entries(FALLBACK), entries(language)
    assert len(english) > 10
    assert sorted(mine) == sorted(english), (set(mine) ^ set(english))
    assert [key for key, text in mine.items() if not text.strip()] == []


@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_catalogue_is_sorted_by_key(language):
    keys = list(entries(language))
    assert keys == sorted(keys)


@pytest.mark.parametrize("language", OTHERS)
def test_every_translation_keeps_the_placeholders_of_its_english_text(language):
    english, mine = entries(FALLBACK), entries(language)
    wrong = {key: (english[key], text) for key, text in mine.items() if placeholders(text) != placeholders(english[key])}
    assert wrong == {}


@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_a_paused_mission_is_resumed_not_started_again(language):
    """The play button of a paused mission says resume ("Weiter"), never its first Play ("Start")."""
    mine = entries(language)
    assert mine["page.game.resume"] not in (mine["page.game.play"], mine["page.game.pause"])


def test_german_translates_every_entry():
    english, german = entries(FALLBACK), entries("de")
    same = {key for key, text in german.items() if text == english[key] and words(text)} - SAME_IN_GERMAN
    assert same == set()


def test_a_message_is_filled_in_the_language_asked_and_english_stands_in_for_a_language_without_catalogue():
    assert translate("de", "prompter.next_at", time="2:25", seconds=4) == "NÄCHSTE um 2:25 — vorlesen in 4 s:"
    assert translate("cs", "prompter.read_now") == "ČTI TEĎ:"
    assert translate("el", "prompter.read_now") == translate(None, "prompter.read_now") == "READ NOW:"
    with pytest.raises(UnknownLanguage, match="expected one of en, de"):
        messages("el")


def test_the_language_a_browser_prefers_is_the_best_shipped_one_it_names():
    assert preferred_language("de-CH,de;q=0.9,en;q=0.8") == "de"
    assert preferred_language("ja, cs;q=0.5, fr;q=0.7") == "fr"
    assert preferred_language("pl;q=0, it") == "it"  # q=0: not wanted
    assert preferred_language("es-419;q=0.8,zz;q=oops") == "es"
    assert preferred_language("") == preferred_language(None) == preferred_language("ja") == "en"
    assert preferred_language("x" * 100_000 + ",de") == "en"  # only the first 2000 characters are read


def test_every_key_the_code_says_is_in_the_catalogues():
    """Each literal key of said(...), WordedError(...) and translate(..., key) in timekeeper/ has
    an English entry (and so, by the tests above, one in every language); a key made at run time
    (an f-string) is checked by the tests that say it."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "timekeeper"
    used = set()
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"""(?:\bsaid|WordedError)\(\s*"([a-z][\w.-]+)\"""", text))
        used |= set(re.findall(r"""\btranslate\([^,()]+,\s*"([a-z][\w.-]+)\"""", text))
    assert len(used) > 130
    assert sorted(used - set(entries(FALLBACK))) == []


def test_said_words_keep_the_command_line_s_english():
    from timekeeper.grammar.times import TimeProblem, parse_time_ms
    from timekeeper.i18n import said

    for bad, key in (("1:70", "seconds"), ("soon", "malformed")):
        with pytest.raises(TimeProblem) as caught:
            parse_time_ms(bad)
        assert caught.value.key == key
        assert str(said(f"problem.time.{key}", written=caught.value.written)) == str(caught.value)


def test_an_overlap_is_worded_as_plan_words_it_in_english_and_translated_elsewhere():
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import build_timeline
    from timekeeper.scenario.load import load_text
    from timekeeper.scenario.rules import overlap_said

    scenario = load_text("title: Packed\nphase_ends: ['3:00', '6:00']\nevents:\n"
                         "  - {at: '0:10', type: threat, t: 1, zone: red}\n"
                         "  - {at: '0:12', type: data_transfer}\n", spacing=False).scenario
    overlap, *_ = build_timeline(scenario, phrase_book("en"), default_measure("en")).overlaps()
    assert str(overlap_said(overlap, advice=False)) == overlap.describe()
    assert str(overlap_said(overlap)) == f"{overlap.describe()}; move one of them"
    assert overlap_said(overlap).in_language("de").startswith("Datenübertragung um 0:12")
