"""Voices by human names in the UI's language: "English (Caribbean)" for espeak-ng's `en-029`,
"Englisch (Vereinigtes Königreich, Lancaster)" for `en-GB-x-gbclan`, "Joe — English (United
States), neural voice, medium quality" for Piper's `piper:en_US-joe-medium`.

Language and territory names come from Babel (CLDR); espeak-ng's variant suffixes and Piper's
qualities from the message catalogues (`voice.*`). An id that cannot be read is shown as it is.
"""

from __future__ import annotations

import re

from timekeeper.i18n import messages, translate, ui_language
from timekeeper.voice.reference import PIPER_PREFIX

_TERRITORY = re.compile(r"[A-Za-z]{2}|\d{3}")
PIPER_QUALITIES = ("x_low", "low", "medium", "high")


def _locale(language: str):  # -> babel.Locale
    from babel import Locale

    return Locale.parse(language)


def _capital(text: str) -> str:
    """A name that leads a list entry starts with a capital ("anglais" -> "Anglais")."""
    return text[:1].upper() + text[1:]


def language_name(tag: str, ui: str, extra: tuple[str, ...] = ()) -> str | None:
    """`tag` ("en", "en-029", "en_US", "es-419") as "Language (Territory, extra...)" in `ui`; None when
    Babel does not know its language."""
    words = _locale(ui_language(ui))
    parts = re.split(r"[-_]", tag)
    name = words.languages.get(parts[0].lower())
    if name is None:
        return None
    details = []
    if len(parts) > 1 and _TERRITORY.fullmatch(parts[1]):
        details.append(words.territories.get(parts[1].upper(), parts[1]))
    details += [part for part in extra if part]
    return _capital(name) + (f" ({', '.join(details)})" if details else "")


def pack_language_name(code: str, ui: str) -> str:
    """A language only a voice pack speaks, as the language list shows it: "Griechisch (Stimmpaket)"."""
    return translate(ui, "voice.pack_language", language=language_name(code, ui) or code)


def variant_name(variant: str, ui: str) -> str:
    """An espeak-ng variant suffix ("gbclan", "rp", "scotland") by name; unknown ones as they are."""
    key = f"voice.variant.{variant.lower()}"
    return messages(ui_language(ui)).get(key, variant)


def tts_voice_name(voice_id: str, ui: str) -> str:
    """A TTS voice id as the page lists it, in `ui`'s language."""
    if voice_id.startswith(PIPER_PREFIX):
        return _piper_name(voice_id[len(PIPER_PREFIX):], ui)
    parts = voice_id.split("-")
    variants = [part for index, part in enumerate(parts[1:], 1)
                if part.lower() != "x" and not (index == 1 and _TERRITORY.fullmatch(part))]
    name = language_name(voice_id, ui, tuple(variant_name(variant, ui) for variant in variants))
    return name or voice_id


def _piper_name(model: str, ui: str) -> str:
    """Piper's `<lang>_<REGION>-<speaker>-<quality>` as "Speaker — Language (Region), neural voice, quality"."""
    tag, _, rest = model.partition("-")
    speaker, _, quality = rest.rpartition("-")
    language = language_name(tag, ui)
    if not speaker or quality not in PIPER_QUALITIES or language is None:
        return model
    return translate(ui, "voice.piper", speaker=_capital(speaker.replace("_", " ")), language=language,
                     quality=translate(ui, f"voice.quality.{quality}"))
