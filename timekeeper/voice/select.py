"""Turn a voice reference (voice/reference.py) into a Voice, and the default voice of a language."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from timekeeper.environment import DEFAULT_VOICE_VARIABLE, current
from timekeeper.voice.base import Voice
from timekeeper.voice.reference import PIPER_PREFIX, SYNTHESIZED, VoiceReference, parse_voice


def packs_dir() -> Path:
    """Where installed voice packs live: $TIMEKEEPER_VOICES, else $XDG_DATA_HOME/timekeeper/voices,
    else ~/.local/share/timekeeper/voices."""
    return current().voice_packs


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
    spec = PIPER_PREFIX + recommended.name
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
    """The voice `spec` (a voice reference, voice/reference.py) names for `language`: None =
    default_voice(language); a Piper voice, a prerecorded pack, or a TTS voice. A default voice
    named by $TIMEKEEPER_DEFAULT_VOICE that cannot be used is an EnvironmentVariableError naming
    the variable (a TTS voice is looked up in its engine at once, for that); the synthesized voice
    named there fails as it would without it (a language with no phrase table: VoiceError)."""
    chosen = current().default_voice
    if spec or not chosen or chosen == SYNTHESIZED:  # (the synthesized voice's errors are the language's, not the variable's)
        return _opened(language, spec or default_voice(language))
    from timekeeper.errors import EnvironmentVariableError, VoiceError
    from timekeeper.voice.tts import TtsVoice

    try:
        voice = _opened(language, default_voice(language))
        if isinstance(voice, TtsVoice):
            voice.voice_id()
    except VoiceError as error:
        raise EnvironmentVariableError(
            DEFAULT_VOICE_VARIABLE, f"{error.message} (expected a voice `timekeeper voices` lists, or {SYNTHESIZED})"
        ) from error
    return voice


def _opened(language: str, spec: str | None) -> Voice:
    """The voice `spec` names for `language` (None: the synthesized voice)."""
    from timekeeper.voice.tts import TtsVoice

    reference = parse_voice(spec) if spec is not None else VoiceReference("synthesized", "")
    if reference.kind == "synthesized":
        return TtsVoice(language)
    if reference.neural:
        from timekeeper.voice.neural import NeuralVoice, find_model

        return NeuralVoice(language, find_model(spec))  # type: ignore[arg-type]
    folder = reference.pack_folder
    if folder is not None:
        if not folder.is_dir():
            from timekeeper.errors import VoiceError

            raise VoiceError("no such voice pack folder", path=spec)
        from timekeeper.grammar.phrases import LANGUAGES
        from timekeeper.voice.packs import PackVoice

        return PackVoice(folder, language, fallback=TtsVoice(language if language in LANGUAGES else "en"))
    return TtsVoice(language, voice=reference.target)


def language_mismatch(language: str, spec: str | None) -> str | None:
    """A warning when TTS voice `spec` does not speak `language` (German words read by an English
    voice), else None. Packs check their own language; unknown voices fail later with their own error."""
    reference = parse_voice(spec) if spec is not None else None
    if reference is None or reference.kind != "tts":
        return None
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.engines import get_engine

    try:
        engine = get_engine()
        voice_id = engine.resolve(reference.target)
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
    from timekeeper.voice.neural import find_model

    reference = parse_voice(spec)
    try:
        if reference.neural:
            return find_model(spec).language
        folder = reference.pack_folder
        if folder is not None and folder.is_dir():
            from timekeeper.voice.packs import index_pack

            language = index_pack(folder)[1].get("language")
            return str(language) if language else None
    except TimekeeperError:
        return None  # opening the voice reports the problem
    return None
