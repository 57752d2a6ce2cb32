"""Prerecorded voice packs: a folder of clips named as the community names them (GAME.md).

A pack may hold `pack.yaml` (name, language, and `clips:` mapping a clip name to a file inside
the pack). Clips missing from a pack are spoken by the fallback (synthesized) voice, and the
pack reports which ones. Two community habits are supported:

* bundles: `data_transfer`, `first_phase_ends`, `second_phase_ends`, `operation_ends` hold a
  cue's lead-in and its count "... five, four, three, two, one"; a bundle is placed so that it
  ends at the transfer beep / the phase end, and replaces those phrases;
* German combined clips `threat_zone_red` .. `serious_threat_zone_blue`, spoken in place of a
  threat kind followed by its zone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import yaml

from timekeeper.errors import VoiceError
from timekeeper.script import COUNT_STEP_MS, Cue, Speech
from timekeeper.voice.base import Clip, Placement, Progress, Voice, clip_ms
from timekeeper.voice.tts import decode_file

MANIFEST = "pack.yaml"
MAX_MANIFEST_BYTES = 100_000
MAX_CLIP_BYTES = 50_000_000
AUDIO_SUFFIXES = (".mp3", ".ogg", ".wav", ".flac")
COUNT_KEYS = tuple(f"count_{n}" for n in range(5, 0, -1))
BUNDLES: dict[str, tuple[str, ...]] = {  # bundle clip -> the phrases it replaces
    "data_transfer": ("data_transfer", "data_transfer_repeat", "data_transfer_in", *COUNT_KEYS),
    "first_phase_ends": ("first_phase_ends_in", *COUNT_KEYS),
    "second_phase_ends": ("second_phase_ends_in", *COUNT_KEYS),
    "operation_ends": ("operation_ends_in", *COUNT_KEYS),
}
THREAT_KINDS = ("threat", "serious_threat")
ZONES = ("zone_red", "zone_white", "zone_blue")
COMBINED = tuple(f"{kind}_{zone}" for kind in THREAT_KINDS for zone in ZONES)
EFFECTS = ("alert", "white_noise")
NOT_PACK_NAMES = frozenset({"data_transfer"})  # the phrase "Data transfer." is never a pack file:
# `data_transfer` is the community's bundle name


class PackVoice(Voice):
    """The clips of pack `folder`; phrases it lacks come from `fallback`."""

    def __init__(self, folder: Path, language: str, fallback: Voice) -> None:
        self.folder = folder.resolve()
        self.language = language
        self.fallback = fallback
        self.files, manifest = index_pack(self.folder)
        self.name = f"pack:{manifest.get('name') or self.folder.name}"
        pack_language = manifest.get("language")
        if pack_language and pack_language != language:
            raise VoiceError(f"{self.folder}: this voice pack speaks {pack_language!r}; use --lang {pack_language}")
        self.combined = any(name in self.files for name in COMBINED)
        self.warnings: list[str] = []
        self._clips: dict[str, Clip] = {}

    # -- the pack's own clips ---------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.files

    def pack_clip(self, name: str) -> Clip:
        """Clip `name` of the pack, at the level the mix expects (a pack recorded quietly or
        loudly mixes the same): speech at SPEECH_LUFS, effects at their own targets."""
        if name not in self._clips:
            clip = decode_file(self.files[name])
            if len(clip) == 0 or not np.any(clip):
                raise VoiceError(f"{self.files[name]}: the clip holds no audio")
            self._clips[name] = _levelled(name, clip)
        return self._clips[name]

    def _own(self, key: str) -> bool:
        return key not in NOT_PACK_NAMES and key in self.files

    def _covered(self, key: str) -> bool:
        """True if a bundle the pack holds speaks `key`."""
        return any(key in parts and self.has(bundle) for bundle, parts in BUNDLES.items())

    # -- Voice --------------------------------------------------------------------------------
    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        items = list(dict.fromkeys(phrases))
        needed = {name for name in self.files if name in BUNDLES or name in COMBINED or name in EFFECTS}
        needed |= {key for key, _ in items if self._own(key)}
        for name in sorted(needed):
            self.pack_clip(name)  # fail early, naming a damaged file
        borrowed = [(key, text) for key, text in items if not self._own(key)]
        self.fallback.prepare(borrowed, progress)
        missing = sorted({key for key, _ in borrowed if not self._covered(key) and not self._in_combined(key)})
        if self.combined:
            missing += [name for name in COMBINED if name not in self.files]
        if missing:
            self.warnings.append(
                f"voice pack {self.folder} has no clip for {', '.join(missing)}; the synthesized voice speaks them"
            )

    def _in_combined(self, key: str) -> bool:
        return self.combined and (key in THREAT_KINDS or key in ZONES)

    def clip(self, key: str, text: str) -> Clip:
        if self._own(key):
            return self.pack_clip(key)
        return self.fallback.clip(key, text)

    def measure(self, key: str, text: str) -> int:
        if self.combined and key in ZONES:
            return 0  # spoken inside the combined clip of the threat kind before it
        if self.combined and key in THREAT_KINDS:
            return max(clip_ms(self._combined_clip(key, zone)) for zone in ZONES)
        return clip_ms(self.clip(key, text))

    def _combined_clip(self, kind: str, zone: str) -> Clip:
        name = f"{kind}_{zone}"
        if name in self.files:
            return self.pack_clip(name)
        from timekeeper.voice.phrases import phrase_book

        book = phrase_book(self.language)
        return self.fallback.clip(name, f"{book.say(kind)} {book.say(zone)}")

    def effect(self, key: str) -> Clip | None:
        return self.pack_clip(key) if key in EFFECTS and self.has(key) else None

    def placements(self, cue: Cue) -> list[Placement]:
        parts = list(cue.speech)
        placed: list[Placement] = []
        if cue.bundle and self.has(cue.bundle):
            count_one = next((part for part in parts if part.key == "count_1"), None)
            if count_one is not None:
                anchor_ms = count_one.at_ms + COUNT_STEP_MS  # the beep / the phase end
                bundle = self.pack_clip(cue.bundle)
                placed.append(Placement(max(0, anchor_ms - clip_ms(bundle)), bundle))
                parts = [part for part in parts if part.at_ms > count_one.at_ms]
        tempo = parts[0].tempo if parts else 1.0
        for index, part in enumerate(parts):
            if self._in_combined(part.key) and part.key in ZONES:
                continue
            if self._in_combined(part.key):
                zone = _next_zone(parts, index)
                if zone is not None:
                    placed.append(Placement(part.at_ms, self.at_tempo(self._combined_clip(part.key, zone), tempo)))
                    continue
            placed.append(Placement(part.at_ms, self.spoken(part)))
        return placed


def _levelled(name: str, clip: Clip) -> Clip:
    from timekeeper import loudness, sound

    if name in sound.EFFECT_LUFS:
        ceiling = sound.STATIC_CEILING_DBTP if name == "white_noise" else sound.EFFECT_CEILING_DBTP
        return loudness.normalized(clip, sound.EFFECT_LUFS[name], ceiling)
    return loudness.normalized(clip, loudness.SPEECH_LUFS, compress=True)


def _next_zone(parts: list[Speech], index: int) -> str | None:
    if index + 1 < len(parts) and parts[index + 1].key in ZONES:
        return parts[index + 1].key
    return None


def index_pack(folder: Path) -> tuple[dict[str, Path], dict]:
    """clip name -> file of pack `folder`, and its manifest (empty without pack.yaml).

    Files named `<clip>.<mp3|ogg|wav|flac>` count as clips; the manifest's `clips:` entries
    override them. No clip may resolve (through `..` or a link) outside the pack folder.
    """
    if not folder.is_dir():
        raise VoiceError(f"{folder}: no such voice pack folder")
    files: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in AUDIO_SUFFIXES and path.is_file():
            files[path.stem] = _inside(folder, path, path.name)
    manifest_path = folder / MANIFEST
    manifest = read_manifest(manifest_path) if manifest_path.exists() else {}
    if manifest:
        clips = manifest.get("clips") or {}
        if not isinstance(clips, dict):
            raise VoiceError(f"{manifest_path}: 'clips' must map clip names to files in the pack")
        for name, relative in clips.items():
            path = _inside(folder, folder / str(relative), f"{MANIFEST}: clips: {name}: {relative}")
            if not path.is_file() or not str(name):
                raise VoiceError(f"{manifest_path}: clips: {name}: no such file {relative!r} in the pack")
            files[str(name)] = path
    return files, manifest


def read_manifest(path: Path) -> dict:
    """pack.yaml as a plain dict of strings (name, language, clips: {clip: file}).

    Read like a scenario file: bounded (MAX_MANIFEST_BYTES, regular files only), composed safely
    with nesting limited and aliases never expanded (no alias bombs), then converted by hand.
    """
    from timekeeper.errors import ScenarioError
    from timekeeper.scenario import yamlnodes
    from timekeeper.userfiles import read_user_file

    raw = read_user_file(path, MAX_MANIFEST_BYTES, what="a voice pack manifest", error=VoiceError)
    try:
        root = yamlnodes.compose(raw.decode("utf-8-sig"), str(path))
    except UnicodeDecodeError as error:
        raise VoiceError(f"{path}: is not UTF-8 text (byte {error.start})") from error
    except ScenarioError as error:
        raise VoiceError(error.message) from error
    if root is None:
        return {}
    if not isinstance(root, yaml.MappingNode):
        raise VoiceError(f"{path}: expected a mapping with name, language and clips")
    manifest: dict = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode):
            raise VoiceError(f"{yamlnodes.where(str(path), key)}: expected a plain key")
        if key.value == "clips" and isinstance(value, yaml.MappingNode):
            manifest["clips"] = {_scalar(path, k): _scalar(path, v) for k, v in value.value}
        elif key.value == "clips" and not (isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")):
            raise VoiceError(f"{path}: 'clips' must map clip names to files in the pack")
        elif isinstance(value, yaml.ScalarNode) and not value.tag.endswith(":null"):
            manifest[key.value] = value.value
    return manifest


def _scalar(path: Path, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode) or len(node.value) > 255:
        raise VoiceError(f"{path}:{node.start_mark.line + 1}: clips: expected a clip name and a file name")
    return node.value


def _inside(folder: Path, path: Path, label: str) -> Path:
    """`path` resolved, if it stays inside the pack; a clip must be a regular file of at most
    MAX_CLIP_BYTES (a link to /dev/zero or a 4 GB file would never finish decoding)."""
    from timekeeper.userfiles import check_input_file

    resolved = path.resolve()
    if not resolved.is_relative_to(folder):
        raise VoiceError(f"{folder}: {label} points outside the voice pack (refused)")
    if resolved.exists():
        check_input_file(resolved, MAX_CLIP_BYTES, what="a voice clip", error=VoiceError)
    return resolved
