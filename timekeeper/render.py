"""Scenario -> audio file: prepare the mix, stream its PCM into ffmpeg, replace OUT atomically."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from timekeeper.atomicfile import replacing
from timekeeper.errors import OutputError, RenderError
from timekeeper.ffmpeg import find_ffmpeg
from timekeeper.heldsignals import held_signals
from timekeeper.mix import MixSettings, PreparedMix, prepare_mix
from timekeeper.model import Scenario
from timekeeper.outputpath import check_output_path
from timekeeper.phrases import PhraseBook, phrase_book
from timekeeper.script import Timeline

MP3_BITRATE = "128k"
ALBUM = "timekeeper"

# file extension -> (ffmpeg container, codec options)
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    ".mp3": ("mp3", ("-c:a", "libmp3lame", "-b:a", MP3_BITRATE, "-id3v2_version", "3")),
    ".wav": ("wav", ("-c:a", "pcm_s16le")),
    ".ogg": ("ogg", ("-c:a", "libvorbis", "-q:a", "4")),
    ".flac": ("flac", ("-c:a", "flac")),
}

Progress = Callable[[int, int], None]
_WRITE_FAILURES = ("No space left on device", "File too large", "Disk quota exceeded", "Read-only file system",
                   "Input/output error")  # ffmpeg messages that mean the output could not be written


@dataclass(frozen=True)
class RenderResult:
    path: Path
    duration_ms: int
    cues: int
    voice: str
    warnings: tuple[str, ...]


def output_format(out: Path) -> tuple[str, tuple[str, ...]]:
    try:
        return FORMATS[out.suffix.lower()]
    except KeyError:
        raise RenderError(
            f"unknown audio format {out.suffix or '(none)'!r} (expected {', '.join(FORMATS)})", path=str(out),
        ) from None


def tags(scenario: Scenario, source: str, settings: MixSettings, words: PhraseBook | None = None) -> dict[str, str]:
    """The metadata written into the file: title (with the language unless English, so the
    languages of one track can share a playlist), album, genre (track kind in `words`), comment,
    and the track number of an official track in the official order."""
    from timekeeper.scenario.catalog import official_track_number

    kind = (words or phrase_book(settings.language)).word(f"kind_{scenario.kind.value}")
    comment = f"scenario: {source}"
    if scenario.seed is not None:
        comment += f"; seed: {scenario.seed}"
    comment += f"; language: {settings.language}; players: {'solo' if settings.solo else settings.players}"
    title = scenario.title if settings.language == "en" else f"{scenario.title} ({settings.language})"
    found = {"title": title, "album": ALBUM, "artist": ALBUM, "genre": kind, "comment": comment}
    number = official_track_number(source)
    if number is not None:
        found["track"] = str(number)
    return found


def render(
    scenario: Scenario,
    out: Path,
    settings: MixSettings = MixSettings(),
    source: str | None = None,
    prepare_progress: Progress | None = None,
    encode_progress: Progress | None = None,
) -> RenderResult:
    """Render `scenario` to `out` (format from its extension); OUT is replaced only on success."""
    container, codec = output_format(out)
    check_output_path(out, what="soundtrack")
    ffmpeg = find_ffmpeg()
    mix = prepare_mix(scenario, settings, prepare_progress)
    metadata = tags(scenario, source or scenario.title, settings, mix.timeline.phrases)
    encode(mix, out, ffmpeg, container, codec, metadata, encode_progress)
    return RenderResult(out, mix.duration_ms, len(mix.timeline.cues), mix.voice_name, mix.warnings)


def _comment_frame(path: Path, comment: str) -> None:
    """ffmpeg stores an mp3 comment as TXXX:comment; players read the ID3 COMM frame."""
    from mutagen.id3 import COMM, ID3

    tags = ID3(str(path))
    tags.delall("TXXX:comment")
    tags.add(COMM(encoding=3, lang="eng", desc="", text=[comment]))
    tags.save(str(path), v2_version=3)


def encode(
    mix: PreparedMix,
    out: Path,
    ffmpeg: str,
    container: str,
    codec: tuple[str, ...],
    metadata: dict[str, str],
    progress: Progress | None = None,
) -> None:
    """Stream the mix into ffmpeg writing a temp file beside `out`, then move it over `out`."""
    command = [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    command += ["-f", "s16le", "-ar", str(mix.sample_rate), "-ac", str(mix.channels), "-i", "pipe:0"]
    command += list(codec)
    for key, value in metadata.items():
        command += ["-metadata", f"{key}={value}"]
    chunk_ms = 1000
    total = -(-mix.duration_ms // chunk_ms)
    try:
        with replacing(out) as temp, tempfile.TemporaryFile() as errors:
            command += ["-f", container, str(temp)]
            started: list[subprocess.Popen[bytes]] = []
            try:
                process = _start_quietly(command, errors, started)
                assert process.stdin is not None
                try:
                    for done, chunk in enumerate(mix.pcm(chunk_ms=chunk_ms), start=1):
                        process.stdin.write(chunk)
                        if progress is not None:
                            progress(done, total)
                    process.stdin.close()
                except BrokenPipeError:
                    pass  # ffmpeg stopped early; its exit status and message tell why
                status = process.wait()
            except BaseException:  # Ctrl-C, SIGTERM, a failed mix: ffmpeg goes before its file does
                for process in started:
                    process.kill()
                    process.wait()
                raise
            if status != 0:
                errors.seek(0)
                message = errors.read().decode("utf-8", "replace").strip().splitlines()
                detail = message[-1] if message else f"exit status {status}"
                if any(reason in detail for reason in _WRITE_FAILURES):  # the disk, not the encoding
                    raise OutputError.cannot_write(out, detail)
                raise RenderError(f"ffmpeg could not encode the track: {detail}", path=str(out))
            if container == "mp3":
                _comment_frame(temp, metadata.get("comment", ""))
    except OSError as error:
        raise OutputError.cannot_write(out, error) from error


def _start_quietly(command: list[str], errors: IO[bytes], started: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Start ffmpeg and add it to `started` with Ctrl-C, SIGTERM and SIGHUP held back meanwhile, so
    an interruption always finds the process to stop (else it could write its file after the
    temporary file was removed). Held signals are delivered right after."""
    with held_signals():
        started.append(subprocess.Popen(command, stdin=subprocess.PIPE, stderr=errors))
    return started[0]


def plan(scenario: Scenario, settings: MixSettings = MixSettings(), progress: Progress | None = None) -> Timeline:
    """The timeline the render would use: the default voice's shipped phrase lengths, or (with a
    voice named in `settings`) that voice's real lengths (synthesizing or loading its clips)."""
    from timekeeper.durations import default_measure
    from timekeeper.script import build_timeline
    from timekeeper.voice.select import default_voice

    if settings.voice is None and default_voice(settings.language) is None:
        book = phrase_book(settings.language)
        return build_timeline(scenario, book, default_measure(settings.language), settings.script_options)
    return prepare_mix(scenario, settings, progress).timeline


def voice_overlaps(scenario: Scenario, settings: MixSettings) -> list[str]:
    """The announcements of `scenario` that overlap when the voice of `settings` speaks them."""
    from timekeeper.times import format_time

    return [
        f"with voice {settings.voice}: {o.second.kind.value} at {format_time(o.second.at_ms, precise=True)} overlaps"
        f" the {o.first.kind.value} of {format_time(o.first.at_ms, precise=True)} by {o.overlap_ms / 1000:.1f} s"
        for o in plan(scenario, settings).overlaps()
    ]


def generated_voice_overlaps(missions: list[Scenario], language: str | None, voice: str) -> list[str]:
    """"seed N: with voice ...: ... overlaps ..." for every announcement of the generated `missions`
    that `voice` would make overlap (what `generate --voice` and the page's Generate warn of). The
    language is `language`, else the voice's, else the mission's."""
    from timekeeper.voice.select import voice_language

    found = []
    for mission in missions:
        settings = MixSettings(language=language or voice_language(voice) or mission.language or "en", voice=voice,
                               players=mission.players or 5)
        found += [f"seed {mission.seed}: {message}" for message in voice_overlaps(mission, settings)]
    return found


def plan_lines(timeline: Timeline) -> tuple[list[str], int]:
    """One line per cue (start, end, kind, words; sounds in brackets), overlap markers, and the
    number of overlaps."""
    from timekeeper.script import Speech
    from timekeeper.times import format_time

    overlapping = {id(overlap.second): overlap for overlap in timeline.overlaps()}
    lines = []
    for cue in timeline.cues:
        words = " ".join(part.text if isinstance(part, Speech) else f"[{part.key}]" for part in cue.parts)
        start, end = format_time(cue.at_ms, precise=True), format_time(cue.end_ms, precise=True)
        lines.append(f"{start:>9} - {end:>9}  {cue.kind.value:<15} {words}")
        if not cue.pace.natural:
            lines.append(f"{'':>21}  (squeezed to fit: {cue.pace.gap_ms} ms gaps, spoken {cue.pace.tempo:g}x)")
        if id(cue) in overlapping:
            overlap = overlapping[id(cue)]
            lines.append(
                f"{'':>21}  !! OVERLAP: starts {overlap.overlap_ms} ms before the {overlap.first.kind.value}"
                f" cue of {format_time(overlap.first.at_ms)} ends"
            )
    return lines, len(overlapping)


