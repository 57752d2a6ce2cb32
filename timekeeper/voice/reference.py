"""A voice reference (what --voice, $TIMEKEEPER_DEFAULT_VOICE and the page's voice list name) read
into what it names, in one place.

The forms, tried in this order:
- "synthesized": the synthesized voice of the language (espeak-ng, or pyttsx3);
- "piper:NAME": an installed Piper voice; "FILE.onnx": a Piper model file;
- "pack:NAME": the voice pack NAME in the voice-pack folder (the page's ids);
- "tts:ID": the TTS voice ID (the page's ids);
- an existing folder: a voice pack; a bare name of a folder in the voice-pack folder: that pack;
- a path (it has a separator or starts with "."): a voice pack folder that is missing;
- anything else: a TTS voice name (en-gb).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from timekeeper.environment import current

SYNTHESIZED = "synthesized"
PIPER_PREFIX = "piper:"
PACK_PREFIX = "pack:"
TTS_PREFIX = "tts:"

Kind = Literal["synthesized", "piper", "model", "pack", "tts"]


@dataclass(frozen=True)
class VoiceReference:
    """What a voice reference names: its `kind` and `target` (a Piper voice's name, a model file's
    or a pack's path, a TTS voice's id; "" for the synthesized voice)."""

    kind: Kind
    target: str

    @property
    def neural(self) -> bool:
        """A Piper voice (installed, or a model file)."""
        return self.kind in ("piper", "model")

    @property
    def pack_folder(self) -> Path | None:
        """The pack's folder (which may be missing), for a pack; else None."""
        return Path(self.target) if self.kind == "pack" else None

    @property
    def spec(self) -> str | None:
        """The reference as --voice takes it and a game stores it (None: the synthesized voice)."""
        if self.kind == "synthesized":
            return None
        return PIPER_PREFIX + self.target if self.kind == "piper" else self.target


def parse_voice(text: str) -> VoiceReference:
    """The voice `text` names (see the module's docstring); packs by name are looked up in the
    current environment's voice-pack folder."""
    if text == SYNTHESIZED:
        return VoiceReference("synthesized", "")
    if text.startswith(PIPER_PREFIX):
        return VoiceReference("piper", text[len(PIPER_PREFIX):])
    if text.lower().endswith(".onnx"):
        return VoiceReference("model", str(Path(text).expanduser()))
    packs = current().voice_packs
    if text.startswith(PACK_PREFIX):
        return VoiceReference("pack", str(packs / text[len(PACK_PREFIX):]))
    if text.startswith(TTS_PREFIX):  # (the page lists installed Piper voices as tts:piper:NAME)
        rest = text[len(TTS_PREFIX):]
        return parse_voice(rest) if rest.startswith(PIPER_PREFIX) else VoiceReference("tts", rest)
    folder = Path(text).expanduser()
    if folder.is_dir():
        return VoiceReference("pack", str(folder))
    if os.sep not in text and (packs / text).is_dir():
        return VoiceReference("pack", str(packs / text))
    if os.sep in text or text.startswith("."):
        return VoiceReference("pack", text)  # a folder that is not there: opening it says so
    return VoiceReference("tts", text)
