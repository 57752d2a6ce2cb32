"""What voices exist here: installed TTS voices by language, and installed voice packs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import TimekeeperError
from timekeeper.grammar.phrases import LANGUAGES
from timekeeper.voice.reference import PIPER_PREFIX


@dataclass(frozen=True)
class PackInfo:
    name: str
    folder: Path
    language: str | None
    clips: int


def installed_by_language() -> tuple[str, dict[str, list[str]]]:
    """The engine's name, and language -> ids of its voices for each of LANGUAGES; installed
    Piper voices come first, as `piper:NAME`."""
    from timekeeper.voice.engines import get_engine
    from timekeeper.voice.neural import installed_models

    engine = get_engine()
    found: dict[str, list[str]] = {}
    for model in installed_models():
        if model.language in LANGUAGES:
            found.setdefault(model.language, []).append(PIPER_PREFIX + model.name)
    for voice in engine.voices():
        for tag in voice.languages:
            base = tag.lower().split("-")[0].split("_")[0]
            if base in LANGUAGES:
                found.setdefault(base, []).append(voice.id.rsplit("/", 1)[-1])
    return engine.name, found


def found_packs() -> list[PackInfo]:
    """Every folder under packs_dir() that holds clips; broken packs are listed with 0 clips."""
    from timekeeper.voice.packs import index_pack
    from timekeeper.voice.select import packs_dir

    root = packs_dir()
    if not root.is_dir():
        return []
    packs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            files, manifest = index_pack(folder)
        except TimekeeperError:
            files, manifest = {}, {}
        if files or manifest:
            packs.append(PackInfo(str(manifest.get("name") or folder.name), folder, manifest.get("language"), len(files)))
    return packs
