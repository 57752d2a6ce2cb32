"""Scenario -> audio file: prepare the mix, stream its PCM into the encoder (codec.py), replace OUT atomically."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from timekeeper.audio import codec
from timekeeper.audio.codec import Format
from timekeeper.errors import OutputError
from timekeeper.files.atomicfile import replacing
from timekeeper.files.outputpath import check_output_path
from timekeeper.grammar.phrases import PhraseBook, phrase_book
from timekeeper.grammar.script import Timeline
from timekeeper.i18n import Said, said
from timekeeper.model import Scenario
from timekeeper.soundtrack.mix import MixSettings, PreparedMix, prepare_mix
from timekeeper.titles import local_title
from timekeeper.voice.base import Voice

ALBUM = "timekeeper"

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RenderResult:
    path: Path
    duration_ms: int
    cues: int
    voice: str
    warnings: tuple[str, ...]


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
    found = {"title": title_tag(scenario, settings), "album": ALBUM, "artist": ALBUM, "genre": kind, "comment": comment}
    number = official_track_number(source)
    if number is not None:
        found["track"] = str(number)
    return found


def title_tag(scenario: Scenario, settings: MixSettings) -> str:
    """The title a file is tagged with: in its language and marked with it ("Erster Testlauf (de)"),
    so the languages of one track can share a playlist."""
    title = local_title(scenario.title, settings.language)
    return title if settings.language == "en" else f"{title} ({settings.language})"


def render(
    scenario: Scenario,
    out: Path,
    settings: MixSettings = MixSettings(),
    source: str | None = None,
    prepare_progress: Progress | None = None,
    encode_progress: Progress | None = None,
) -> RenderResult:
    """Render `scenario` to `out` (format from its extension); OUT is replaced only on success."""
    fmt = codec.output_format(out)
    check_output_path(out, what="soundtrack")
    mix = prepare_mix(scenario, settings, prepare_progress, background=True)
    metadata = tags(scenario, source or scenario.title, settings, mix.timeline.phrases)
    encode(mix, out, fmt, metadata, encode_progress)
    return RenderResult(out, mix.duration_ms, len(mix.timeline.cues), mix.voice_name, mix.warnings)


def encode(
    mix: PreparedMix, out: Path, fmt: Format, metadata: dict[str, str], progress: Progress | None = None
) -> None:
    """Encode the mix into a temp file beside `out` (in this process, see codec.py), then move it over `out`."""
    chunk_ms = 1000
    total = -(-mix.duration_ms // chunk_ms)
    try:
        with replacing(out) as temp:
            pcm = mix.pcm(chunk_ms=chunk_ms, ceiling_dbfs=fmt.ceiling_dbfs)  # (under the format's ceiling: codec.FORMATS)
            codec.encode(pcm, mix.sample_rate, mix.channels, temp, fmt, metadata, total, progress)
    except OSError as error:  # (PyAV's errors for a full disk or a read-only folder are OSErrors too)
        raise OutputError.cannot_write(out, error) from error


def plan(scenario: Scenario, settings: MixSettings = MixSettings(), progress: Progress | None = None,
         warn: Callable[[str], None] | None = None, voices: dict[tuple[str, str | None], Voice] | None = None) -> Timeline:
    """The timeline the render would use: the synthesized voice's shipped phrase lengths when it is
    the default, else (a voice named in `settings`, or a Piper default voice) that voice's real
    lengths (synthesizing or loading its clips). `warn` hears what the render would warn of (a
    voice pack's missing clips). `voices` keeps the voices opened, by (language, voice), for the
    next plans (validate times many files with one voice: its clips are loaded once)."""
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.script import build_timeline
    from timekeeper.soundtrack.mix import spoken_timeline
    from timekeeper.voice.select import default_voice, open_voice

    if settings.voice is None and default_voice(settings.language) is None:
        book = phrase_book(settings.language)
        return build_timeline(scenario, book, default_measure(settings.language), settings.script_options)
    opened = voices if voices is not None else {}
    key = (settings.language, settings.voice)
    if key not in opened:
        opened[key] = open_voice(settings.language, settings.voice)
    timeline = spoken_timeline(scenario, settings, opened[key], progress)
    if warn is not None:
        for warning in getattr(opened[key], "warnings", ()):
            warn(warning)
    return timeline


def voice_overlaps(scenario: Scenario, settings: MixSettings) -> list[str]:
    """The announcements of `scenario` that overlap when the voice of `settings` speaks them."""
    return [str(words) for words in voice_overlap_words(scenario, settings)]


def voice_overlap_words(scenario: Scenario, settings: MixSettings) -> list[Said]:
    """voice_overlaps in words any language says ("with voice V: the threat at ... ")."""
    from timekeeper.scenario.rules import overlap_said

    return [said("problem.voice_overlap", voice=settings.voice or "", overlap=overlap_said(overlap, advice=False))
            for overlap in plan(scenario, settings).overlaps()]


def generated_voice_overlaps(missions: list[Scenario], language: str | None, voice: str) -> list[Said]:
    """"seed N: with voice ...: ... overlaps ..." for every announcement of the generated `missions`
    that `voice` would make overlap (what `generate --voice` and the page's Generate warn of), in
    words any language says. The language spoken is `language`, else the voice's, else the mission's."""
    from timekeeper.model import MAX_PLAYERS
    from timekeeper.soundtrack.settings import sound_settings

    found = []
    for mission in missions:
        settings = sound_settings({"language": language, "voice": voice, "players": mission.players or MAX_PLAYERS},
                                  mission.language).mix
        found += [said("problem.seed_overlap", seed=mission.seed, overlap=words)
                  for words in voice_overlap_words(mission, settings)]
    return found


def plan_lines(timeline: Timeline) -> tuple[list[str], int]:
    """One line per cue (start, end, kind, words; sounds in brackets), overlap markers, and the
    number of overlaps."""
    from timekeeper.grammar.script import Speech
    from timekeeper.grammar.times import format_time

    overlapping = {id(overlap.second): overlap for overlap in timeline.overlaps()}
    lines = []
    for cue in timeline.cues:
        words = " ".join(part.text if isinstance(part, Speech) else f"[{part.key}]" for part in cue.parts)
        start, end = format_time(cue.at_ms, precise=True), format_time(cue.end_ms, precise=True)
        lines.append(f"{start:>9} - {end:>9}  {cue.kind.value:<15} {words}")
        if not cue.pace.natural:
            lines.append(f"{'':>21}  (squeezed to fit: {cue.pace.gap_ms} ms gaps, spoken {cue.pace.tempo:g}x)")
        if id(cue) in overlapping:
            lines.append(f"{'':>21}  !! OVERLAP: {overlapping[id(cue)].describe()}")
    return lines, len(overlapping)


