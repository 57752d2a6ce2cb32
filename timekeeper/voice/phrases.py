"""Phrase tables: what the voice says and what cards print, per language (voices/<lang>.yaml)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

import yaml

from timekeeper.errors import VoiceError
from timekeeper.paths import voices_dir

from timekeeper.languages import LANGUAGES  # noqa: F401  (re-exported: the shipped languages)


@dataclass(frozen=True)
class PhraseBook:
    """The spoken and printed words of one language, and its default TTS settings."""

    language: str
    name: str
    spoken: Mapping[str, str]
    printed: Mapping[str, str]
    tts: Mapping[str, object]

    def say(self, key: str) -> str:
        try:
            return self.spoken[key]
        except KeyError:
            raise VoiceError(f"voices/{self.language}.yaml: no spoken phrase {key!r}") from None

    def word(self, key: str, **values: object) -> str:
        try:
            text = self.printed[key]
        except KeyError:
            raise VoiceError(f"voices/{self.language}.yaml: no printed word {key!r}") from None
        return text.format(**values) if values else text


@lru_cache(maxsize=None)
def phrase_book(language: str) -> PhraseBook:
    """The shipped phrase table of `language` (one of LANGUAGES)."""
    if language not in LANGUAGES:
        raise VoiceError(f"unknown language {language!r} (expected one of {', '.join(LANGUAGES)})")
    path = voices_dir() / f"{language}.yaml"
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return PhraseBook(
        language=language,
        name=data["name"],
        spoken=MappingProxyType(dict(data["spoken"])),
        printed=MappingProxyType(dict(data["printed"])),
        tts=MappingProxyType(dict(data.get("tts") or {})),
    )
