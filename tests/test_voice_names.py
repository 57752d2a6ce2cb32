"""Voices listed by human names in the page's language, from Babel's locale names and the catalogues."""

from __future__ import annotations

import pytest

from timekeeper.voice.names import tts_voice_name


@pytest.mark.parametrize(("voice", "ui", "name"), [
    ("en-029", "en", "English (Caribbean)"),
    ("en-029", "de", "Englisch (Karibik)"),
    ("en-GB-x-gbclan", "en", "English (United Kingdom, Lancaster)"),
    ("en-GB-x-rp", "en", "English (United Kingdom, Received Pronunciation)"),
    ("en-GB-x-rp", "de", "Englisch (Vereinigtes Königreich, britische Standardaussprache)"),
    ("en-GB-scotland", "fr", "Anglais (Royaume-Uni, Écosse)"),
    ("en-US-nyc", "pl", "Angielski (Stany Zjednoczone, Nowy Jork)"),
    ("es-419", "cs", "Španělština (Latinská Amerika)"),
    ("de", "it", "Tedesco"),
    ("fr-CH", "es", "Francés (Suiza)"),
    ("piper:en_US-joe-medium", "en", "Joe — English (United States), neural voice, medium quality"),
    ("piper:de_DE-thorsten_emotional-x_low", "de", "Thorsten emotional — Deutsch (Deutschland), neuronale Stimme, sehr niedrige Qualität"),
    ("hy-arevmda", "en", "Armenian (arevmda)"),  # a variant without a catalogue entry keeps its own name
    ("en-029", "el", "English (Caribbean)"),  # a language without catalogue: English names
])
def test_a_voice_id_reads_as_its_language_region_and_variant_in_the_page_language(voice, ui, name):
    assert tts_voice_name(voice, ui) == name


@pytest.mark.parametrize("voice", ["Microsoft Hedda Desktop", "com.apple.voice.compact.en-US.Samantha", "piper:oddname", "piper:en_US-joe-ultra"])
def test_an_id_that_cannot_be_read_is_shown_as_it_is(voice):
    assert tts_voice_name(voice, "de") == voice.removeprefix("piper:")
