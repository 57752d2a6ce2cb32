"""Phrase tables: what the voice says and what cards print, per language (voices/<lang>.yaml)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

import yaml

from timekeeper.errors import VoiceError
from timekeeper.files.paths import voices_dir
from timekeeper.grammar.languages import LANGUAGES  # noqa: F401  (re-exported: the shipped languages)

# Printed words that name what the voice says: cards and the live screen print the spoken
# phrase's first sentence, so both always use the same words (one table per language).
PRINTED_FROM_SPOKEN = {
    "threat": "threat",
    "serious_threat": "serious_threat",
    "internal_threat": "internal_threat",
    "serious_internal_threat": "serious_internal_threat",
    "unconfirmed": "unconfirmed_report",
    "incoming_data": "incoming_data",
    "data_transfer": "data_transfer",
    "comms_down": "communications_down",
    "comms_restored": "communications_restored",
}

SOUND_WORDS = {"alert": "sound_alert", "beep": "sound_beep"}  # sounds that screens name -> their printed word
# Where a table's words come from (its `sources:`): docs/translations.md asks native speakers to check them.
SOURCE_FIELDS = ("spoken", "printed", "sound_names", "checked")


@dataclass(frozen=True)
class PhraseBook:
    """The spoken and printed words of one language, and its default TTS settings."""

    language: str
    name: str
    spoken: Mapping[str, str]
    printed: Mapping[str, str]
    tts: Mapping[str, object]
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # SOURCE_FIELDS -> where those words come from

    def say(self, key: str) -> str:
        try:
            return self.spoken[key]
        except KeyError:
            raise VoiceError(f"voices/{self.language}.yaml: no spoken phrase {key!r}") from None

    def word(self, key: str, **values: object) -> str:
        """The printed word `key` (formatted with `values`); words naming an announcement are
        the first sentence of its spoken phrase (PRINTED_FROM_SPOKEN) unless a voice pack prints its own."""
        if key in PRINTED_FROM_SPOKEN and key not in self.printed:
            return first_sentence(self.say(PRINTED_FROM_SPOKEN[key]))
        try:
            text = self.printed[key]
        except KeyError:
            raise VoiceError(f"voices/{self.language}.yaml: no printed word {key!r}") from None
        return text.format(**values) if values else text

    def sound(self, key: str) -> str | None:
        """The printed name of sound `key` ("Klaxon", "Transfer beep"); None for the sounds screens
        do not name (static, the jump)."""
        return self.word(SOUND_WORDS[key]) if key in SOUND_WORDS else None


def has_words(text: str) -> bool:
    """Whether `text` says anything: it holds a letter or a digit. Punctuation, symbols and spaces
    alone ("...", "-", "!?") are not spoken: a voice makes silence of them, a scenario refuses them."""
    return any(unicodedata.category(char)[0] in "LN" for char in text)


def first_sentence(text: str) -> str:
    """"Incoming data. Repeat, incoming data." -> "Incoming data" (no closing full stop)."""
    return text.split(". ")[0].rstrip(".:")


@cache
def phrase_book(language: str) -> PhraseBook:
    """The shipped phrase table of `language` (one of LANGUAGES)."""
    if language not in LANGUAGES:
        raise VoiceError(
            f"no phrase table for language {language!r} (shipped: {', '.join(LANGUAGES)});"
            f" a voice pack whose pack.yaml says 'language: {language}' can still speak it (--voice DIR)"
        )
    path = voices_dir() / f"{language}.yaml"
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return PhraseBook(
        language=language,
        name=data["name"],
        spoken=MappingProxyType(dict(data["spoken"])),
        printed=MappingProxyType(dict(data["printed"])),
        tts=MappingProxyType(dict(data.get("tts") or {})),
        sources=MappingProxyType({key: str(value) for key, value in (data.get("sources") or {}).items()}),
    )


def book_for(choice: str | PhraseBook | None, scenario_language: str | None = None) -> PhraseBook:
    """The words an output prints: a given book, else the table of `choice`, of the scenario's
    language, or English."""
    if isinstance(choice, PhraseBook):
        return choice
    return phrase_book(choice or scenario_language or "en")


def pack_book(language: str, name: str | None, printed: Mapping[str, str], spoken: Mapping[str, str], where: str) -> PhraseBook:
    """The words of a voice pack in `language`: that language's table if shipped, else English
    under the pack's language code; then the pack's own `printed` and `spoken` words on top.
    Unknown keys are an error naming `where` (the manifest)."""
    base = phrase_book(language if language in LANGUAGES else "en")
    printable = {*base.printed, *PRINTED_FROM_SPOKEN}
    for label, given, known in (("printed", printed, printable), ("spoken", spoken, base.spoken)):
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise VoiceError(f"{label}: unknown key(s) {', '.join(unknown)} (see voices/en.yaml for the keys)", path=where)
    wordless = sorted(key for key, text in spoken.items() if not has_words(str(text)))
    if wordless:
        raise VoiceError(f"spoken: {', '.join(wordless)}: no words to say (expected words: letters or digits)", path=where)
    return PhraseBook(
        language=language,
        name=name or (base.name if language in LANGUAGES else language),
        spoken=MappingProxyType({**base.spoken, **spoken}),
        printed=MappingProxyType({**base.printed, **printed}),
        tts=base.tts,
        sources=base.sources if language in LANGUAGES and not (printed or spoken) else MappingProxyType({}),
    )
