"""The titles timekeeper gives tracks are said in the crew's language: the official tracks' names,
generated missions' and campaigns' titles, the examples'; a crew's own title stays as written.
The card, the page's JSON and the ship's log read them from here."""

from __future__ import annotations

import pytest

from timekeeper.i18n import UI_LANGUAGES, Said, said, said_json, say
from timekeeper.logbook.record import Track
from timekeeper.logbook.words import track_said
from timekeeper.scenario.catalog import builtin_paths, builtin_titles
from timekeeper.titles import campaign_title, generated_title, local_title, title_json, title_said

OTHERS = [language for language in UI_LANGUAGES if language != "en"]


def test_every_shipped_track_but_the_german_example_has_a_title_said_in_every_language():
    titles = builtin_titles()
    assert len(titles) == len(builtin_paths()) >= 38
    unknown = sorted(name for name, title in titles.items() if title_said(title) is None)
    assert unknown == ["house-rules"]  # "Hausregeln": the example of a German track names itself
    for title in titles.values():
        known = title_said(title)
        if known is not None:
            assert str(known) == title  # the English catalogue's words are the files' titles
            assert all(known.in_language(language) for language in UI_LANGUAGES)


@pytest.mark.parametrize("language", OTHERS)
def test_the_named_official_tracks_read_differently_in_every_other_language(language):
    for title in ("First Test Run", "Second Test Run", "Advanced Simulation 2", "Double Action Mission 1 (easier set)",
                  "Double Action Mission 4 (standard set)", "Generated mission 338695", "Quick drill",
                  "Exploration campaign 7, mission 2 of 3"):
        assert local_title(title, language) != title, (language, title)
    assert "338695" in local_title("Generated mission 338695", language)
    assert "12" in local_title("Double Action Mission 12 (standard set)", language)


def test_titles_in_german_and_czech():
    assert local_title("First Test Run", "de") == "Erster Testlauf"
    assert local_title("Double Action Mission 1 (easier set)", "de") == "Doppelaktions-Mission 1 (leichtere Reihe)"
    assert local_title("Generated mission 338695", "de") == "Generierte Mission 338695"
    assert local_title("Mission 3", "cs") == "Mise 3"
    assert local_title("Exploration campaign 7, mission 2 of 3", "pl") == "Kampania eksploracyjna 7, misja 2 z 3"
    assert local_title("Mission 3", "el") == "Mission 3"  # a language without catalogue: English


def test_a_crew_s_own_title_stays_as_written():
    for own in ("Ambush at dawn", "Mission 03", "Mission 3 (ours)", "mission 3", "Generated mission", "First Test Run!",
                "x" * 10_000):
        assert title_said(own) is None and local_title(own, "de") == own and title_json(own) is None


def test_the_generator_and_the_campaign_write_the_english_catalogue_s_titles():
    from timekeeper.generate.batch import batch
    from timekeeper.generate.options import GenerateOptions

    assert generated_title("double-action", 5) == "Generated double-action 5"
    assert campaign_title(7, 2, 3) == "Exploration campaign 7, mission 2 of 3"
    mission, = batch(4711, GenerateOptions(kind="simulation"))
    assert mission.title == "Generated simulation 4711" and local_title(mission.title, "it") == "Simulazione generata 4711"
    second = batch(7, campaign=True)[1]
    assert local_title(second.title, "fr") == "Campagne d'exploration 7, mission 2 sur 3"


def test_said_words_nest_and_go_to_the_page_as_data():
    words = said("log.track.seeded", title=said("title.official.test-run-1"), seed=12)
    assert str(words) == "First Test Run (seed 12)"
    assert say(words, "de") == "Erster Testlauf (Startwert 12)"
    assert said_json(words) == {"key": "log.track.seeded",
                                "values": {"title": {"key": "title.official.test-run-1", "values": {}}, "seed": 12}}
    assert say(("a", said("title.official.mission", number=2)), "pl") == "a, Misja 2"
    assert title_json("Mission 2") == {"key": "title.official.mission", "values": {"number": 2}}
    assert isinstance(title_said("Simulation 1"), Said)


def test_the_log_names_a_track_by_its_title_in_the_crew_s_language():
    assert say(track_said(Track("test-run-1")), "de") == "Erster Testlauf"
    assert say(track_said(Track("house-rules")), "es") == "Hausregeln"
    assert say(track_said(Track("Generated mission 4711", "/x/mission-4711.yaml", 4711)), "cs") == "Vygenerovaná mise 4711"
    assert say(track_said(Track("Ambush at dawn", "/x/a.yaml", 99)), "de") == "Ambush at dawn (Startwert 99)"
    assert say(track_said(Track("Ambush at dawn", "/x/a.yaml")), "de") == "Ambush at dawn"


def test_a_card_prints_the_title_and_the_generator_s_settings_in_its_language():
    from timekeeper.cards.rows import card_header
    from timekeeper.generate.batch import batch
    from timekeeper.generate.options import GenerateOptions
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.scenario.catalog import load_scenario

    assert card_header(load_scenario("test-run-2"), phrase_book("de")).title == "Zweiter Testlauf"
    mission, = batch(4711, GenerateOptions(threat_colors=("white", "yellow")))
    header = card_header(mission, phrase_book("de"))
    assert header.title == "Generierte Mission 4711"
    assert "Bedrohungsstufe: 7" in header.facts and "Bedrohungsstapel: Weißer Stapel, Gelber Stapel" in header.facts
    assert not [fact for fact in header.facts if "=" in fact or "_" in fact]  # no field names of the file
    english = card_header(mission, phrase_book("en"))
    assert "Threat level: 7" in english.facts and english.title == "Generated mission 4711"


def test_a_soundtrack_s_title_tag_is_in_its_language_and_marked_with_it():
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings
    from timekeeper.soundtrack.render import tags

    test_run = load_scenario("test-run-1")
    assert tags(test_run, "test-run-1", MixSettings(language="de"))["title"] == "Erster Testlauf (de)"
    assert tags(test_run, "test-run-1", MixSettings(language="en"))["title"] == "First Test Run"
    own = load_scenario("house-rules")
    assert tags(own, "house-rules", MixSettings(language="es"))["title"] == "Hausregeln (es)"
