"""The synthesized voice: pyttsx3 (espeak-ng on Linux, SAPI5, NSSpeech) with an on-disk clip cache.

Each phrase is synthesized once per (text, voice, rate, volume, engine) and kept as a trimmed
16-bit WAV at SAMPLE_RATE under the cache folder, so a second render synthesizes nothing and
does not even start the engine.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from timekeeper.errors import MissingToolError, VoiceError
from timekeeper.voice.base import SAMPLE_RATE, Clip, Progress, Voice
from timekeeper.voice.phrases import phrase_book

CACHE_FORMAT = 2  # bump when trimming or storage changes, so old clips are not reused
SILENCE_LEVEL = 0.01  # |sample| below this (about -40 dBFS) counts as silence when trimming
SYNTH_ATTEMPTS = 3
WAV_HEADER_BYTES = 44
LEAD_PAD_MS = 10
TAIL_PAD_MS = 30

INSTALL_HINT = (
    "install it with 'sudo apt-get install espeak-ng' (Debian/Ubuntu) and 'pip install pyttsx3'"
)


def cache_dir() -> Path:
    """$TIMEKEEPER_CACHE, else $XDG_CACHE_HOME/timekeeper, else ~/.cache/timekeeper."""
    if os.environ.get("TIMEKEEPER_CACHE"):
        return Path(os.environ["TIMEKEEPER_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "timekeeper"


@dataclass(frozen=True)
class TtsSettings:
    """The requested voice (an engine voice id, name or language tag), words per minute, volume 0-1."""

    voice: str
    rate_wpm: int
    volume: float

    @classmethod
    def default(cls, language: str, voice: str | None = None) -> "TtsSettings":
        tts = phrase_book(language).tts
        return cls(
            voice=voice or str(tts.get("voice", language)),
            rate_wpm=int(tts.get("rate", 175)),  # type: ignore[call-overload]
            volume=float(tts.get("volume", 1.0)),  # type: ignore[arg-type]
        )


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence what the engine prints (pyttsx3 prints "Audio saved to ...", espeak may too)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no real stdout (e.g. under a test runner capturing it)
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def engine_name() -> str:
    """The pyttsx3 driver this system uses, and the pyttsx3 version (part of the cache key)."""
    import importlib.metadata

    driver = {"win32": "sapi5", "darwin": "nsss"}.get(sys.platform, "espeak")
    try:
        version = importlib.metadata.version("pyttsx3")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return f"pyttsx3-{version}-{driver}"


_ENGINE: list[Any] = []  # one engine per process: a dropped pyttsx3 engine unhooks espeak for all


def start_engine() -> Any:
    """The process's pyttsx3 engine, or MissingToolError with the install hint."""
    if _ENGINE:
        return _ENGINE[0]
    try:
        import pyttsx3
    except ImportError as error:
        raise MissingToolError(f"the speech synthesizer pyttsx3 is not installed; {INSTALL_HINT}") from error
    try:
        with quiet_stdout():
            _ENGINE.append(pyttsx3.init())
            return _ENGINE[0]
    except Exception as error:  # the driver raises OSError/RuntimeError/ImportError when espeak is absent
        raise MissingToolError(f"no speech engine found ({error}); {INSTALL_HINT}") from error


def installed_voices() -> list[tuple[str, str, tuple[str, ...]]]:
    """(id, name, languages) of every voice the engine offers."""
    engine = start_engine()
    found = []
    for voice in engine.getProperty("voices"):
        languages = tuple(
            lang.decode("ascii", "replace") if isinstance(lang, bytes) else str(lang) for lang in voice.languages or ()
        )
        found.append((str(voice.id), str(voice.name), languages))
    return found


def resolve_voice(engine: Any, wanted: str) -> str:
    """The engine's id for `wanted` (an id, an id's last part "en-us", a name or a language tag)."""
    voices = engine.getProperty("voices")
    lowered = wanted.lower()
    for match in (
        lambda v: str(v.id) == wanted,
        lambda v: str(v.id).lower().rsplit("/", 1)[-1] == lowered,
        lambda v: str(v.name).lower() == lowered,
        lambda v: lowered in [str(lang).lower() for lang in (v.languages or ())],
    ):
        for voice in voices:
            if match(voice):
                return str(voice.id)
    raise VoiceError(f"unknown TTS voice {wanted!r}; 'timekeeper voices' lists the installed ones")


def read_wav(path: Path) -> Clip:
    """A cached 16-bit mono WAV at SAMPLE_RATE as float32."""
    with wave.open(str(path), "rb") as handle:
        frames = handle.readframes(handle.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0


def write_wav(path: Path, clip: Clip) -> None:
    """Write `clip` as 16-bit mono WAV at SAMPLE_RATE, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    samples = (np.clip(clip, -1.0, 1.0) * 32767.0).astype("<i2")
    fd, temp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as raw, wave.open(raw, "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(SAMPLE_RATE)
            handle.writeframes(samples.tobytes())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def decode_file(path: Path) -> Clip:
    """Any wav/mp3/ogg/flac file as a mono float32 clip at SAMPLE_RATE (VoiceError if unreadable)."""
    import miniaudio

    try:
        decoded = miniaudio.decode_file(
            str(path), output_format=miniaudio.SampleFormat.FLOAT32, nchannels=1, sample_rate=SAMPLE_RATE
        )
    except (miniaudio.MiniaudioError, OSError, ValueError) as error:
        raise VoiceError(f"{path}: not a readable audio clip ({error})") from error
    return np.asarray(decoded.samples, dtype=np.float32)


def trim(clip: Clip) -> Clip:
    """`clip` without the silence the engine leaves before and after the words."""
    loud = np.flatnonzero(np.abs(clip) > SILENCE_LEVEL)
    if len(loud) == 0:
        return clip[:0]
    start = max(0, loud[0] - LEAD_PAD_MS * SAMPLE_RATE // 1000)
    end = min(len(clip), loud[-1] + 1 + TAIL_PAD_MS * SAMPLE_RATE // 1000)
    return clip[start:end]


class TtsVoice(Voice):
    """The synthesized voice of `language` (its default settings from voices/<lang>.yaml)."""

    def __init__(self, language: str, voice: str | None = None, folder: Path | None = None) -> None:
        self.language = language
        self.settings = TtsSettings.default(language, voice)
        self.name = f"tts:{self.settings.voice}"
        self.folder = (folder or cache_dir()) / "tts"
        self._engine_name = engine_name()
        self._voice_id: str | None = None
        self._clips: dict[str, Clip] = {}

    def cache_path(self, text: str) -> Path:
        key = json.dumps(
            [CACHE_FORMAT, self._engine_name, self.settings.voice, self.settings.rate_wpm, self.settings.volume, text],
            ensure_ascii=False,
        )
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.wav"

    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        items = list(dict.fromkeys(text for _, text in phrases))
        missing = [text for text in items if text not in self._clips and not self.cache_path(text).is_file()]
        for done, text in enumerate(missing, start=1):
            self._synthesize(text)
            if progress is not None:
                progress(done, len(missing))

    def clip(self, key: str, text: str) -> Clip:
        if text not in self._clips:
            path = self.cache_path(text)
            if not path.is_file():
                self._synthesize(text)
            try:
                self._clips[text] = read_wav(path)
            except (wave.Error, EOFError, OSError) as error:
                path.unlink(missing_ok=True)
                raise VoiceError(f"{path}: damaged cached clip (removed; run again)") from error
        return self._clips[text]

    def _start(self) -> tuple[Any, str]:
        """The engine and the id of the wanted voice (VoiceError if the engine has no such voice)."""
        engine = start_engine()
        if self._voice_id is None:
            self._voice_id = resolve_voice(engine, self.settings.voice)
        return engine, self._voice_id

    def _synthesize(self, text: str) -> None:
        """Say `text` into a temp file (one runAndWait per file: batching loses files in pyttsx3
        2.99's espeak driver), trim it, resample it and store it in the cache."""
        engine, voice_id = self._start()
        path = self.cache_path(text)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, raw = tempfile.mkstemp(dir=path.parent, suffix=".raw.wav")
        os.close(fd)
        try:
            for _attempt in range(SYNTH_ATTEMPTS):  # pyttsx3's espeak driver now and then writes nothing
                with quiet_stdout():  # properties first: the engine is shared by every TtsVoice
                    engine.setProperty("voice", voice_id)
                    engine.setProperty("rate", self.settings.rate_wpm)
                    engine.setProperty("volume", self.settings.volume)
                    engine.save_to_file(text, raw)
                    engine.runAndWait()
                if str(engine.getProperty("voice")).lower() != voice_id.lower():  # pyttsx3 ignores bad voices
                    raise VoiceError(f"the TTS engine ignored voice {self.settings.voice!r} ({voice_id})")
                if os.path.getsize(raw) > WAV_HEADER_BYTES:
                    break
            else:
                raise VoiceError(f"the TTS engine produced no audio for {text!r} (voice {self.settings.voice!r})")
            clip = trim(decode_file(Path(raw)))
            write_wav(path, clip)
            self._clips[text] = clip
        finally:
            with contextlib.suppress(OSError):
                os.unlink(raw)
