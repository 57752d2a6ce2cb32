"""The settings a synthesized voice speaks with: light to import (plan and validate read them)."""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.grammar.phrases import phrase_book


@dataclass(frozen=True)
class TtsSettings:
    """The requested voice (an engine voice id, name or language tag), words per minute, volume 0-1."""

    voice: str
    rate_wpm: int
    volume: float

    @classmethod
    def default(cls, language: str, voice: str | None = None) -> TtsSettings:
        tts = phrase_book(language).tts
        return cls(
            voice=voice or str(tts.get("voice", language)),
            rate_wpm=int(tts.get("rate", 175)),  # type: ignore[call-overload]
            volume=float(tts.get("volume", 1.0)),  # type: ignore[arg-type]
        )
