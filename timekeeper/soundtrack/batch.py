"""Many tracks into one folder, a CD's worth: numbered files in order, their titles, numbers and
album in the tags, an M3U playlist. Each file is written atomically (render.encode), and a track
whose file is there already, rendered with the same settings, is kept: a run stopped half-way
(Ctrl-C, a full disk) carries on where it stopped when it is run again.

A file's settings are known by its fingerprint (`fingerprint`: the track, the sound settings, the
voice, the format and timekeeper's version), written into its comment tag; any change renders
the track again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from timekeeper.audio import codec
from timekeeper.grammar.phrases import PhraseBook
from timekeeper.model import Scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.soundtrack.render import Progress, encode, tags, title_tag

PLAYLIST = "playlist.m3u"  # UTF-8, as players read it; #EXTINF gives each track's length and title
FINGERPRINT_FIELD = "render"  # the comment tag's field that holds a file's fingerprint
MAX_STEM_CHARS = 60


@dataclass(frozen=True)
class BatchTrack:
    """Track `number` of `total`: scenario `name` (a built-in name or a file) mixed with `settings`
    into `path`."""

    number: int
    total: int
    name: str
    scenario: Scenario
    settings: MixSettings
    path: Path

    @property
    def label(self) -> str:
        return f"[{self.number}/{self.total}] {self.name}"


@dataclass
class BatchResult:
    """What a batch did: the tracks written and kept (with their lengths in ms), the playlist, and
    every distinct warning of the voices."""

    written: list[tuple[BatchTrack, int]] = field(default_factory=list)
    kept: list[tuple[BatchTrack, int]] = field(default_factory=list)
    playlist: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def duration_ms(self) -> int:
        return sum(ms for _, ms in self.written + self.kept)


def file_stem(name: str) -> str:
    """A track's name as a file name's part: a built-in name as it is, a scenario file's stem, with
    anything but letters, digits, '.', '_' and '-' made '-' (every file system and CD takes it)."""
    stem = Path(name).stem if name.lower().endswith((".yaml", ".yml")) or "/" in name else name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "track"
    return stem[:MAX_STEM_CHARS]


def batch_tracks(named: list[tuple[str, Scenario, MixSettings]], folder: Path, suffix: str) -> list[BatchTrack]:
    """The tracks `named` (name, scenario, settings) in order, numbered from 1 into `folder` as
    `01-mission-1.mp3` (three digits from the 100th track on)."""
    width = max(2, len(str(len(named))))
    return [BatchTrack(number, len(named), name, scenario, settings, folder / f"{number:0{width}d}-{file_stem(name)}{suffix}")
            for number, (name, scenario, settings) in enumerate(named, start=1)]


def album(settings: MixSettings) -> str:
    """The album tag: one album per language, as the titles are marked with theirs."""
    from timekeeper.soundtrack.render import ALBUM

    return ALBUM if settings.language == "en" else f"{ALBUM} ({settings.language})"


def fingerprint(track: BatchTrack) -> str:
    """What decides a track's file: timekeeper's version, the file's format, the scenario (times,
    events, pace), the sound settings, the voice (a pack's or a model's files as they are now), the
    music's file and the track's number in the batch. 16 hex digits."""
    from timekeeper import __version__

    settings = asdict(track.settings)
    settings["music"] = _stamp(track.settings.music) if track.settings.music else None
    facts = [__version__, track.path.suffix.lower(), repr(track.scenario), settings, _voice_stamp(track.settings),
             track.number, track.total, track.name]
    return hashlib.sha256(json.dumps(facts, default=str, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def _stamp(path: Path) -> list[object]:
    """A file's path, size and time of change (a changed file renders its tracks again)."""
    try:
        info = path.stat()
    except OSError:
        return [str(path)]
    return [str(path.resolve()), info.st_size, info.st_mtime_ns]


def _voice_stamp(settings: MixSettings) -> list[object]:
    """The voice a track is spoken with as it is now: its reference (the default one named), and
    the files of a pack or the fingerprint of a Piper model."""
    from timekeeper.errors import TimekeeperError
    from timekeeper.voice.reference import parse_voice
    from timekeeper.voice.select import default_voice

    spec = settings.voice or default_voice(settings.language)
    if spec is None:
        return ["synthesized", settings.language]
    reference = parse_voice(spec)
    found: list[object] = [reference.kind, reference.target]
    try:
        if reference.neural:
            from timekeeper.voice.neural import find_model

            found.append(find_model(spec).fingerprint)
        elif reference.pack_folder is not None and reference.pack_folder.is_dir():
            found += [[entry.name, *_stamp(entry)[1:]] for entry in sorted(reference.pack_folder.iterdir())]
    except (TimekeeperError, OSError):
        pass  # opening the voice reports it
    return found


def rendered_before(track: BatchTrack, print_: str) -> int | None:
    """The length (ms) of `track`'s file when it is there, complete (every file is written whole or
    not at all) and made with fingerprint `print_`; else None."""
    import av

    if not track.path.is_file():
        return None
    try:
        with av.open(str(track.path)) as container:
            comments = [container.metadata.get("comment", "")] + [s.metadata.get("comment", "") for s in container.streams]
            duration_us = container.duration
    except (av.FFmpegError, OSError, ValueError):
        return None
    if not any(f"{FINGERPRINT_FIELD}: {print_}" in comment for comment in comments) or not duration_us:
        return None
    return int(duration_us // 1000)


def playlist_text(entries: Iterable[tuple[str, int, str]]) -> str:
    """An extended M3U playlist of (file name, length in ms, title) entries, in order."""
    lines = ["#EXTM3U"]
    for name, duration_ms, title in entries:
        lines += [f"#EXTINF:{round(duration_ms / 1000)},{' '.join(title.split())}", name]
    return "\n".join(lines) + "\n"


Report = Callable[[BatchTrack, str, int], None]  # (track, "written" or "kept", its length in ms)


def render_batch(tracks: list[BatchTrack], folder: Path, *, report: Report | None = None,
                 starting: Callable[[BatchTrack], None] | None = None, prepare_progress: Progress | None = None,
                 encode_progress: Progress | None = None) -> BatchResult:
    """Render every track of `tracks` into `folder` (made if missing), keeping those rendered before
    with the same fingerprint, then write the playlist. `starting(track)` hears of each track to
    render before its voice is prepared; `report` of each track done."""
    from timekeeper.files.atomicfile import write_atomic

    folder.mkdir(parents=True, exist_ok=True)
    result = BatchResult()
    titles: list[tuple[str, int, str]] = []
    for track in tracks:
        print_ = fingerprint(track)
        metadata: dict[str, str] | None = None
        kept_ms = rendered_before(track, print_)
        if kept_ms is not None:
            result.kept.append((track, kept_ms))
            duration_ms = kept_ms
        else:
            if starting is not None:
                starting(track)
            mix = prepare_mix(track.scenario, track.settings, prepare_progress, background=True)
            metadata = _tags(track, print_, mix.timeline.phrases)
            encode(mix, track.path, codec.output_format(track.path), metadata, encode_progress)
            result.written.append((track, mix.duration_ms))
            result.warnings += [warning for warning in mix.warnings if warning not in result.warnings]
            duration_ms = mix.duration_ms
        if report is not None:
            report(track, "kept" if metadata is None else "written", duration_ms)
        titles.append((track.path.name, duration_ms, title_tag(track.scenario, track.settings)))
    result.playlist = write_atomic(folder / PLAYLIST, playlist_text(titles))
    return result


def _tags(track: BatchTrack, print_: str, words: PhraseBook) -> dict[str, str]:
    """The tags of a batch's file: as a single render's, with the batch's album and number, and the fingerprint."""
    found = tags(track.scenario, track.name, track.settings, words)
    found["album"] = album(track.settings)
    found["track"] = f"{track.number}/{track.total}"
    found["comment"] += f"; {FINGERPRINT_FIELD}: {print_}"
    return found
