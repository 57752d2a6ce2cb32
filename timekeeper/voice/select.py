"""Turn a --voice value into a Voice: a pack folder, a pack name, or a TTS voice name."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from timekeeper.environment import current
from timekeeper.voice.base import Voice


def packs_dir() -> Path:
    """Where installed voice packs live: $TIMEKEEPER_VOICES, else $XDG_DATA_HOME/timekeeper/voices,
    else ~/.local/share/timekeeper/voices."""
    return current().voice_packs


DEFAULT_VOICE_VARIABLE = "TIMEKEEPER_DEFAULT_VOICE"  # a --voice value, or SYNTHESIZED
SYNTHESIZED = "synthesized"  # the synthesized voice of the language (espeak-ng, or pyttsx3)


def default_voice(language: str) -> str | None:
    """The voice `language` is spoken with when no --voice is given, as a --voice value; None =
    the synthesized voice. $TIMEKEEPER_DEFAULT_VOICE decides when set (SYNTHESIZED = the
    synthesized voice); else the language's recommended Piper voice (voice/recommended.py:
    English's joe comes with timekeeper, the others with `timekeeper voice install --lang`) when
    it and Piper are installed, else the synthesized voice (espeak-ng: the offline fallback)."""
    chosen = current().default_voice
    if chosen:
        return None if chosen == SYNTHESIZED else chosen
    from timekeeper.voice.recommended import RECOMMENDED

    recommended = RECOMMENDED.get(language)
    if recommended is None:
        return None
    spec = f"piper:{recommended.name}"
    return spec if _piper_ready(spec, language) else None


@cache
def _piper_ready(spec: str, language: str) -> bool:
    """Whether Piper and the voice `spec`, speaking `language`, are installed (looked up once per
    process, until voices_changed())."""
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.neural import find_model, piper_command

    try:
        piper_command()
        return find_model(spec).language == language
    except TimekeeperError:
        return False


def voices_changed() -> None:
    """A voice was installed (or the voice folder changed): default_voice looks again."""
    _piper_ready.cache_clear()


def open_voice(language: str, spec: str | None = None) -> Voice:
    """The voice `spec` names for `language`: None = default_voice(language); `piper:NAME` or a
    `.onnx` file = a Piper neural voice; an existing folder (or a name in packs_dir()) = a
    prerecorded pack; anything else = a TTS voice name."""
    from timekeeper.voice.tts import TtsVoice

    spec = spec or default_voice(language)
    if spec is None:
        return TtsVoice(language)
    from timekeeper.voice.neural import is_neural

    if is_neural(spec):
        from timekeeper.voice.neural import NeuralVoice, find_model

        return NeuralVoice(language, find_model(spec))
    folder = Path(spec).expanduser()
    if not folder.is_dir() and os.sep not in spec and (packs_dir() / spec).is_dir():
        folder = packs_dir() / spec
    if folder.is_dir():
        from timekeeper.phrases import LANGUAGES
        from timekeeper.voice.packs import PackVoice

        return PackVoice(folder, language, fallback=TtsVoice(language if language in LANGUAGES else "en"))
    if os.sep in spec or spec.startswith("."):
        from timekeeper.errors import VoiceError

        raise VoiceError("no such voice pack folder", path=spec)
    return TtsVoice(language, voice=spec)


def language_mismatch(language: str, spec: str | None) -> str | None:
    """A warning when TTS voice `spec` does not speak `language` (German words read by an English
    voice), else None. Packs check their own language; unknown voices fail later with their own error."""
    if spec is None:
        return None
    folder = Path(spec).expanduser()
    if folder.is_dir() or os.sep in spec or (packs_dir() / spec).is_dir():
        return None
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.engines import get_engine

    try:
        engine = get_engine()
        voice_id = engine.resolve(spec)
        languages = next((v.languages for v in engine.voices() if v.id == voice_id), ())
    except TimekeeperError:
        return None
    bases = {tag.lower().replace("_", "-").split("-")[0] for tag in languages}
    if not bases or language in bases:
        return None
    spoken = ", ".join(sorted(bases))
    return (f"voice {spec!r} speaks {spoken}, not {language}: the {language} words will be read with "
            f"{spoken} pronunciation (choose a {language} voice from `timekeeper voices`, or --lang {sorted(bases)[0]})")


def voice_language(spec: str | None) -> str | None:
    """The language the voice `spec` speaks, if it says (a pack's manifest, a Piper voice), else None."""
    if spec is None:
        return None
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.neural import find_model, is_neural

    try:
        if is_neural(spec):
            return find_model(spec).language
        folder = Path(spec).expanduser()
        if not folder.is_dir() and os.sep not in spec and (packs_dir() / spec).is_dir():
            folder = packs_dir() / spec
        if folder.is_dir():
            from timekeeper.voice.packs import index_pack

            language = index_pack(folder)[1].get("language")
            return str(language) if language else None
    except TimekeeperError:
        return None  # opening the voice reports the problem
    return None
