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

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import yaml

from timekeeper.audio.pcm import Clip, Progress, as_stored, clip_ms
from timekeeper.errors import VoiceError
from timekeeper.grammar.phrases import LANGUAGES, PhraseBook, pack_book
from timekeeper.grammar.script import COUNT_STEP_MS, Cue, Speech
from timekeeper.grammar.times import format_time
from timekeeper.voice.base import Placement, Voice
from timekeeper.voice.layouts import ANDROID_GRAMMAR, CueRecording, android_manifest, cue_moment_ms, cue_name, cue_recordings
from timekeeper.voice.reference import PACK_PREFIX
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
LONGEST_CLIP_MS = 120_000  # no announcement has a longer slot (a phase-end warning comes every minute)
LONGEST_EFFECT_MS = 900_000  # static for outages is looped; a long recording is fine up to a track's length
PACK_CACHE_FORMAT = 1  # bump when the levelling changes otherwise than its targets, so old levelled clips are not reused
NOT_PACK_NAMES = frozenset({"data_transfer"})  # the phrase "Data transfer." is never a pack file:
# `data_transfer` is the community's bundle name


class PackVoice(Voice):
    """The clips of pack `folder`; phrases it lacks come from `fallback`."""

    def __init__(self, folder: Path, language: str, fallback: Voice) -> None:
        self.folder = folder.resolve()
        self.language = language
        self.fallback = fallback
        self.files, manifest = index_pack(self.folder)
        self.name = PACK_PREFIX + (manifest.get('name') or self.folder.name)
        pack_language = manifest.get("language")
        if pack_language and pack_language != language:
            raise VoiceError(f"this voice pack speaks {pack_language!r}; use --lang {pack_language}", path=str(self.folder))
        self.words = _pack_words(self.folder, language, manifest)
        self.cues = cue_recordings(self.folder, manifest, str(self.folder / MANIFEST), _inside)
        self.combined = any(name in self.files for name in COMBINED)
        self.warnings: list[str] = []
        skipped = skipped_audio(self.folder, self.files)
        if skipped:
            self.warnings.append(
                f"voice pack {self.folder} skips {', '.join(skipped)}: only {', '.join(AUDIO_SUFFIXES)} clips are read"
                f" (convert them, e.g. ffmpeg -i {skipped[0]} {Path(skipped[0]).stem}.ogg)"
            )
        self._clips: dict[str, Clip] = {}

    # -- the pack's own clips ---------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.files

    def pack_clip(self, name: str) -> Clip:
        """Clip `name` of the pack, at the level the mix expects (a pack recorded quietly or
        loudly mixes the same): speech at SPEECH_LUFS, effects at their own targets."""
        if name not in self._clips:
            check_length(self.files[name], name)
            self._clips[name] = levelled_clip(name, self.files[name])
        return self._clips[name]

    def _own(self, key: str) -> bool:
        return key not in NOT_PACK_NAMES and key in self.files

    def _covered(self, key: str) -> bool:
        """True if a bundle the pack holds speaks `key`."""
        return any(key in parts and self.has(bundle) for bundle, parts in BUNDLES.items())

    # -- Voice --------------------------------------------------------------------------------
    def phrases(self) -> PhraseBook:
        return self.words

    def whole(self, cue: Cue) -> CueRecording | None:
        """The pack's recording of the whole of `cue`, if it has one."""
        name = cue_name(cue) if self.cues else None
        return self.cues.get(name) if name else None

    def keeps_sound(self, cue: Cue, key: str) -> bool:
        recording = self.whole(cue)
        return recording is None or not recording.sounds

    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        items = list(dict.fromkeys(phrases))
        for recording in self.cues.values():
            self.cue_clip(recording)  # fail early, naming a damaged or overlong file
        needed = {name for name in self.files if name in BUNDLES or name in COMBINED or name in EFFECTS}
        needed |= {key for key, _ in items if self._own(key)}
        for name in sorted(needed):
            self.pack_clip(name)  # fail early, naming a damaged file
        borrowed = [(key, text) for key, text in items if not self._own(key)]
        self.fallback.prepare(borrowed, progress)
        missing = {key for key, _ in borrowed if not self._covered(key) and not self._in_combined(key)}
        if self.combined:  # (a language whose phrase table names the combined clips borrows them too)
            missing |= {name for name in COMBINED if name not in self.files}
        if missing:
            how = "" if self.fallback.language == self.language else f" (in {self.fallback.language}: no {self.language} voice)"
            self._warn(f"voice pack {self.folder} has no clip for {', '.join(sorted(missing))}; the synthesized voice "
                       f"speaks them{how}")
        for warning in getattr(self.fallback, "warnings", ()):  # (the synthesized voice's own: a clip cache it cannot write)
            self._warn(warning)

    def _warn(self, warning: str) -> None:
        if warning not in self.warnings:
            self.warnings.append(warning)

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
        from timekeeper.grammar.phrases import phrase_book

        book = phrase_book(self.language)
        return self.fallback.clip(name, f"{book.say(kind)} {book.say(zone)}")

    def effect(self, key: str) -> Clip | None:
        return self.pack_clip(key) if key in EFFECTS and self.has(key) else None

    def cue_clip(self, recording: CueRecording) -> Clip:
        """The whole-cue recording, levelled to the speech level as every pack clip."""
        key = f"cue:{recording.name}"
        if key not in self._clips:
            check_length(recording.file, recording.name)
            clip = levelled_clip(recording.name, recording.file)  # (levelling keeps the length)
            if recording.moment_ms > clip_ms(clip):
                raise VoiceError(
                    f"cues: {recording.name}: moment {recording.moment_ms / 1000:g} s lies"
                    f" beyond the end of {recording.file.name} ({clip_ms(clip) / 1000:.1f} s)", path=str(self.folder / MANIFEST),
                )
            self._clips[key] = clip
        return self._clips[key]

    def placements(self, cue: Cue) -> list[Placement]:
        recording = self.whole(cue)
        if recording is not None:
            at_ms = cue_moment_ms(cue, recording.sounds) - recording.moment_ms
            return [Placement(at_ms, self.cue_clip(recording), key=recording.name, text=cue.text, source=str(recording.file))]
        parts = list(cue.speech)
        placed: list[Placement] = []
        if cue.bundle and self.has(cue.bundle):
            count_one = next((part for part in parts if part.key == "count_1"), None)
            if count_one is not None:
                anchor_ms = count_one.at_ms + COUNT_STEP_MS  # the beep / the phase end
                bundle = self.pack_clip(cue.bundle)
                words = " ".join(part.text for part in parts if part.at_ms <= count_one.at_ms)
                placed.append(self._placed(anchor_ms - clip_ms(bundle), cue.bundle, words))
                parts = [part for part in parts if part.at_ms > count_one.at_ms]
        tempo = parts[0].tempo if parts else 1.0
        for index, part in enumerate(parts):
            if self._in_combined(part.key) and part.key in ZONES:
                continue
            if self._in_combined(part.key):
                zone = _next_zone(parts, index)
                if zone is not None:
                    name = f"{part.key}_{zone}"
                    clip = self.at_tempo(self._combined_clip(part.key, zone), tempo)
                    text = f"{part.text} {parts[index + 1].text}"
                    placed.append(Placement(part.at_ms, clip, key=name, text=text, source=self._source(name)))
                    continue
            placed.append(Placement(part.at_ms, self.spoken(part), key=part.key, text=part.text,
                                    source=self._source(part.key)))
        return placed

    def _placed(self, at_ms: int, name: str, text: str) -> Placement:
        return Placement(at_ms, self.pack_clip(name), key=name, text=text, source=self._source(name))

    def _source(self, name: str) -> str:
        return str(self.files[name]) if self._own(name) or name in BUNDLES and name in self.files else self.fallback.name


def check_length(path: Path, name: str) -> None:
    """VoiceError naming clip `name` if its file lasts longer than any slot of a mission (read from
    the file's header, so a 2-hour file is refused without decoding it)."""
    import miniaudio

    limit_ms = LONGEST_EFFECT_MS if name in EFFECTS else LONGEST_CLIP_MS
    try:
        length_ms = round(miniaudio.get_file_info(str(path)).duration * 1000)
    except (miniaudio.MiniaudioError, OSError, ValueError) as error:
        raise VoiceError(f"not a readable audio clip ({error})", path=str(path)) from error
    if length_ms > limit_ms:
        raise VoiceError(
            f"clip {name!r} is {format_time(length_ms)} long, longer than any slot in a mission"
            f" (at most {format_time(limit_ms)}); shorten it", path=str(path),
        )


def levelled_clip(name: str, path: Path) -> Clip:
    """Pack clip `name` read from `path`, levelled to its target (`_target`), kept in the clip cache
    under the digest of the file's bytes and the levelling's targets: a pack is levelled once,
    not on every plan and render (levelling loads scipy, about 2 s, and takes about 0.1 s a clip).
    An edited clip has another digest, so it is levelled again; a damaged cache file is made again."""
    import contextlib
    import hashlib

    from timekeeper.audio import loudness
    from timekeeper.audio.clipcache import cache_dir, read_cached, write_wav
    from timekeeper.errors import TimekeeperError

    try:
        data = path.read_bytes()
    except OSError as error:
        raise VoiceError(f"not a readable audio clip ({error.strerror or error})", path=str(path)) from error
    lufs, ceiling, compress = target = _target(name)
    key = json.dumps([PACK_CACHE_FORMAT, target, hashlib.sha256(data).hexdigest()])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    cached = cache_dir() / "packs" / digest[:2] / f"{digest}.wav"
    clip = read_cached(cached)
    if clip is not None:
        return clip
    clip = decode_file(path)
    if len(clip) == 0 or not np.any(clip):
        raise VoiceError("the clip holds no audio", path=str(path))
    # stored as the cache gives it back, so the first use sounds as every later one
    clip = as_stored(loudness.normalized(clip, lufs, ceiling, compress=compress))
    with contextlib.suppress(OSError, TimekeeperError):  # (a cache that cannot be written costs time, not sound)
        write_wav(cached, clip)
    return clip


def _target(name: str) -> tuple[float, float, bool]:
    """The loudness (LUFS), true-peak ceiling (dBTP) and compression pack clip `name` is levelled to."""
    from timekeeper.audio import effects, loudness

    if name in effects.EFFECT_LUFS:
        ceiling = effects.STATIC_CEILING_DBTP if name == "white_noise" else effects.EFFECT_CEILING_DBTP
        return effects.EFFECT_LUFS[name], ceiling, False
    return loudness.SPEECH_LUFS, loudness.CLIP_CEILING_DBTP, True


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
        raise VoiceError("no such voice pack folder", path=str(folder))
    folder = folder.resolve()  # (a pack named by a relative path: its clips resolve to absolute paths)
    files: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in AUDIO_SUFFIXES and path.is_file():
            files[path.stem] = _inside(folder, path, path.name)
    manifest_path = folder / MANIFEST
    manifest = read_manifest(manifest_path) if manifest_path.exists() else {}
    if manifest:
        clips = manifest.get("clips") or {}
        if not isinstance(clips, dict):
            raise VoiceError("'clips' must map clip names to files in the pack", path=str(manifest_path))
        for name, relative in clips.items():
            path = _inside(folder, folder / str(relative), f"{MANIFEST}: clips: {name}: {relative}")
            if not path.is_file() or not str(name):
                raise VoiceError(f"clips: {name}: no such file {relative!r} in the pack", path=str(manifest_path))
            files[str(name)] = path
    if (folder / ANDROID_GRAMMAR).is_file():
        manifest = android_manifest(folder, manifest)
    return files, manifest


def skipped_audio(folder: Path, files: dict[str, Path]) -> list[str]:
    """Names of the audio files in pack `folder` that are no clips: other formats than
    AUDIO_SUFFIXES (such as .m4a, .aac or .opus), which the decoder cannot read."""
    import mimetypes

    used = set(files.values())
    return [
        path.name for path in sorted(folder.iterdir())
        if path.suffix.lower() not in AUDIO_SUFFIXES and (mimetypes.guess_type(path.name)[0] or "").startswith("audio/")
        and path.resolve() not in used and path.is_file()
    ]


def read_manifest(path: Path) -> dict:
    """pack.yaml as a plain dict of strings (name, language), of mappings of strings (clips:
    {clip: file}, printed: {key: words}, spoken: {key: words}) and of `cues:` as YAML types them
    (whole-cue recordings with a numeric moment and a boolean sounds; layouts.py checks them).

    Read like a scenario file: bounded (MAX_MANIFEST_BYTES, regular files only), composed safely
    with nesting limited and aliases never expanded (no alias bombs), then converted by hand.
    """
    from timekeeper.errors import ScenarioError
    from timekeeper.files.userfiles import read_user_file
    from timekeeper.scenario import yamlnodes

    raw = read_user_file(path, MAX_MANIFEST_BYTES, what="a voice pack manifest", error=VoiceError)
    try:
        root = yamlnodes.compose(raw.decode("utf-8-sig"), str(path))
    except UnicodeDecodeError as error:
        raise VoiceError(f"is not UTF-8 text (byte {error.start})", path=str(path)) from error
    except ScenarioError as error:
        raise VoiceError(error.detail, path=error.path, line=error.line, column=error.column) from error
    if root is None:
        return {}
    if not isinstance(root, yaml.MappingNode):
        raise VoiceError("expected a mapping with name, language and clips", path=str(path))
    manifest: dict = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode):
            raise VoiceError("expected a plain key", path=str(path), **yamlnodes.at_mark(key.start_mark))
        if key.value in MAPPINGS and isinstance(value, yaml.MappingNode):
            manifest[key.value] = {_scalar(path, key.value, k): _scalar(path, key.value, v) for k, v in value.value}
        elif key.value in MAPPINGS and not (isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")):
            raise VoiceError(f"'{key.value}' must map {MAPPINGS[key.value]}", path=str(path))
        elif key.value == "cues":
            manifest["cues"] = _constructed(value)
        elif key.value == "language":
            manifest["language"] = _language(path, value)
        elif isinstance(value, yaml.ScalarNode) and not value.tag.endswith(":null"):
            manifest[key.value] = value.value
    return manifest


def _language(path: Path, node: yaml.Node) -> str:
    from timekeeper.grammar.languages import language_code
    from timekeeper.scenario import yamlnodes

    code = language_code(node.value) if isinstance(node, yaml.ScalarNode) and len(node.value) < 10 else None
    if code is None:
        raise VoiceError("language: expected a language code such as en, fr or el", path=str(path),
                         **yamlnodes.at_mark(node.start_mark))
    return code


MAPPINGS = {"clips": "clip names to files in the pack", "printed": "phrase keys to words", "spoken": "phrase keys to words"}
MAX_MANIFEST_TEXT = 1000  # characters of one clip name, file name or phrase


def _constructed(node: yaml.Node) -> object:
    """A composed node (its tags and depth already checked) as plain Python values; an alias is
    built once and shared, never copied."""
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _scalar(path: Path, section: str, node: yaml.Node) -> str:
    from timekeeper.scenario import yamlnodes

    if not isinstance(node, yaml.ScalarNode) or len(node.value) > MAX_MANIFEST_TEXT:
        raise VoiceError(f"{section}: expected {MAPPINGS[section]}", path=str(path), **yamlnodes.at_mark(node.start_mark))
    return node.value


def _pack_words(folder: Path, language: str, manifest: dict) -> PhraseBook:
    """The pack's words: its language's table (English where none is shipped), with the words
    pack.yaml (or grammar.xml) gives under `printed:` and `spoken:`."""
    where = str(folder / MANIFEST)
    printed, spoken = manifest.get("printed") or {}, manifest.get("spoken") or {}
    for label, given in (("printed", printed), ("spoken", spoken)):
        if not isinstance(given, dict) or not all(isinstance(v, str) for v in given.values()):
            raise VoiceError(f"'{label}' must map phrase keys to words", path=where)
    if language not in LANGUAGES:
        printed = {**(manifest.get("android_printed") or {}), **printed}
    android = manifest.get("android_spoken") or {}
    if android:
        known = pack_book("en", None, {}, {}, where).spoken
        spoken = {**{key: text for key, text in android.items() if key in known}, **spoken}
    return pack_book(language, manifest.get("name"), printed, spoken, where)


def _inside(folder: Path, path: Path, label: str) -> Path:
    """`path` resolved, if it stays inside the pack; a clip must be a regular file of at most
    MAX_CLIP_BYTES (a link to /dev/zero or a 4 GB file would never finish decoding)."""
    from timekeeper.files.userfiles import check_input_file

    resolved = path.resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise VoiceError(f"{label} points outside the voice pack (refused)", path=str(folder))
    if resolved.exists():
        check_input_file(resolved, MAX_CLIP_BYTES, what="a voice clip", error=VoiceError)
    return resolved
