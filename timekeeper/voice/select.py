"""Turn a --voice value into a Voice: a pack folder, a pack name, or a TTS voice name."""

from __future__ import annotations

import os
from pathlib import Path

from timekeeper.voice.base import Voice


def packs_dir() -> Path:
    """Where installed voice packs live: $TIMEKEEPER_VOICES, else $XDG_DATA_HOME/timekeeper/voices,
    else ~/.local/share/timekeeper/voices."""
    if os.environ.get("TIMEKEEPER_VOICES"):
        return Path(os.environ["TIMEKEEPER_VOICES"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "timekeeper" / "voices"


def default_voice(language: str) -> str | None:
    """The voice `language` speaks with when none is named: its recommended Piper voice
    (voice/recommended.py) once `timekeeper voice install --lang` has put it into piper_dir() and
    Piper can run, as `piper:NAME`; else None, the espeak-ng voice of the phrase table (the
    offline fallback)."""
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.neural import NeuralModel, piper_command, piper_dir
    from timekeeper.voice.recommended import RECOMMENDED

    chosen = RECOMMENDED.get(language)
    if chosen is None:
        return None
    model = piper_dir() / f"{chosen.name}.onnx"
    try:
        if not model.is_file() or NeuralModel.load(model).language != language:
            return None
        piper_command()
    except (TimekeeperError, OSError):
        return None
    return f"piper:{chosen.name}"


def open_voice(language: str, spec: str | None = None) -> Voice:
    """The voice `spec` names for `language`: None = the language's default (default_voice: an
    installed recommended Piper voice, else the synthesized espeak-ng voice); `piper:NAME`
    or a `.onnx` file = a Piper neural voice; an existing folder (or a name in packs_dir()) = a
    prerecorded pack; anything else = a TTS voice name."""
    from timekeeper.voice.tts import TtsVoice

    if spec is None:
        spec = default_voice(language)
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
