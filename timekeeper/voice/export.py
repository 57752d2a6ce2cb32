"""`voice export`: write the synthesized voice as a complete clip pack a user can edit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from timekeeper.audio.clipcache import write_wav
from timekeeper.audio.pcm import SAMPLE_RATE, Clip, Progress, pcm16
from timekeeper.errors import OutputError, VoiceError
from timekeeper.files.atomicfile import replacing, write_atomic
from timekeeper.grammar.phrases import phrase_book
from timekeeper.grammar.script import build_timeline
from timekeeper.model import DataTransfer, Scenario
from timekeeper.voice.packs import (
    BUNDLES,
    COMBINED,
    MANIFEST,
    NOT_PACK_NAMES,
    THREAT_KINDS,
    ZONES,
)
from timekeeper.voice.tts import TtsVoice

EXPORT_FORMATS = ("wav", "mp3")
STATIC_EXPORT_MS = 10_000


def pack_clips(language: str, voice: str | None = None, progress: Progress | None = None) -> dict[str, Clip]:
    """Community clip name -> audio, for every phrase, bundle and effect of a complete pack."""
    from timekeeper.audio import effects

    book = phrase_book(language)
    tts = TtsVoice(language, voice)
    tts.prepare(book.spoken.items(), progress)
    clips = {key: tts.clip(key, text) for key, text in book.spoken.items() if key not in NOT_PACK_NAMES}
    if all(name in clips for name in COMBINED):  # the language says kind and zone in one phrase (de)
        for key in (*THREAT_KINDS, *ZONES):
            del clips[key]
    clips.update(_bundles(language, tts))
    clips["alert"] = effects.alert()
    clips["white_noise"] = effects.loop_slice(effects.static_loop(), 0, STATIC_EXPORT_MS * SAMPLE_RATE // 1000)
    return clips


def _bundles(language: str, tts: TtsVoice) -> dict[str, Clip]:
    """Each bundle laid out exactly as the synthesized voice speaks it, ending at the beep/phase end."""
    sample = Scenario("export", phase_ends_ms=(240_000, 480_000, 720_000), events=(DataTransfer(60_000),))
    timeline = build_timeline(sample, phrase_book(language), tts.measure)
    found: dict[str, Clip] = {}
    for cue in timeline.cues:
        if cue.bundle not in BUNDLES:
            continue
        speech = cue.speech
        one = next(part for part in speech if part.key == "count_1")
        start_ms, anchor_ms = speech[0].at_ms, one.at_ms + 1000
        out = np.zeros((anchor_ms - start_ms) * SAMPLE_RATE // 1000, dtype=np.float32)
        for part in speech:
            if part.at_ms > one.at_ms:
                continue
            clip = tts.clip(part.key, part.text)
            offset = (part.at_ms - start_ms) * SAMPLE_RATE // 1000
            piece = clip[: len(out) - offset]
            out[offset : offset + len(piece)] += piece
        found[cue.bundle] = out
    return found


def export_pack(
    language: str, folder: Path, fmt: str = "wav", voice: str | None = None, progress: Progress | None = None
) -> list[Path]:
    """Write every clip of the synthesized `language` voice into `folder` (created if needed),
    plus a pack.yaml manifest. Returns the files written."""
    if fmt not in EXPORT_FORMATS:
        raise VoiceError(f"unknown clip format {fmt!r} (expected {', '.join(EXPORT_FORMATS)})")
    if folder.exists() and not folder.is_dir():
        raise OutputError("exists and is not a folder", path=str(folder))
    if voice is not None:
        from timekeeper.voice.engines import get_engine

        get_engine().resolve(voice)  # an unknown voice fails before the folder is made
    try:
        folder.mkdir(parents=True, exist_ok=True)  # before the work: an impossible folder fails at once
    except OSError as error:
        raise OutputError.cannot_create(folder, error, "the voice pack folder") from error
    clips = pack_clips(language, voice, progress)
    tts = TtsVoice(language, voice)
    written = []
    try:
        for name, clip in sorted(clips.items()):
            path = folder / f"{name}.{fmt}"
            if fmt == "wav":
                write_wav(path, clip)
            else:
                _write_mp3(path, clip)
            written.append(path)
        written.append(write_atomic(folder / MANIFEST, manifest_text(folder.name, language, tts)))
    except OSError as error:
        raise OutputError.cannot_write(error.filename or folder, error, "the voice pack") from error
    return written


def manifest_text(name: str, language: str, tts: TtsVoice) -> str:
    """pack.yaml, written by the YAML library so any pack name (`my pack: v2`) reads back as written."""
    header = (f"# A timekeeper voice pack: replace any clip with your own recording (same name).\n"
              f"# Written by `timekeeper voice export` from {tts.name}, rate {tts.settings.rate_wpm} wpm.\n")
    body = yaml.safe_dump({"name": name, "language": language}, allow_unicode=True, sort_keys=False)
    return header + body


def _write_mp3(path: Path, clip: Clip) -> None:
    from timekeeper.audio.codec import FORMATS, encode

    with replacing(path) as temp:
        encode([pcm16(clip)], SAMPLE_RATE, 1, temp, FORMATS[".mp3"], {})
