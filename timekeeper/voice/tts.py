"""The synthesized voice (espeak-ng, or pyttsx3: see engines.py) with an on-disk clip cache.

Each phrase is synthesized once per (text, voice, rate, volume, engine), one sentence at a
time: the sentences are trimmed and joined with the grammar's sentence gap (pydub, clips.py),
normalized to the speech loudness (BS.1770, loudness.py) and kept as a 16-bit WAV at
SAMPLE_RATE under the cache folder, so a second render synthesizes and measures nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from timekeeper.audio.clipcache import cache_dir, write_wav
from timekeeper.audio.pcm import SAMPLE_RATE, Clip, Progress, as_stored
from timekeeper.errors import TimekeeperError, VoiceError
from timekeeper.files import stopping
from timekeeper.grammar.phrases import has_words
from timekeeper.voice.base import Voice, cached_or_shipped
from timekeeper.voice.engines import Engine, EspeakCli, EspeakLibrary, get_engine
from timekeeper.voice.levelling import Levelling, import_ahead
from timekeeper.voice.reference import TTS_PREFIX
from timekeeper.voice.settings import TtsSettings

CACHE_FORMAT = 10  # bump when trimming, levels or storage change, so old clips are not reused
LEAD_PAD_MS = 10
TAIL_PAD_MS = 30
EDGE_FADE_MS = 5
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def decode_file(path: Path) -> Clip:
    """Any wav/mp3/ogg/flac file as a mono float32 clip at SAMPLE_RATE (VoiceError if unreadable)."""
    import miniaudio

    try:
        decoded = miniaudio.decode_file(
            str(path), output_format=miniaudio.SampleFormat.FLOAT32, nchannels=1, sample_rate=SAMPLE_RATE
        )
    except (miniaudio.MiniaudioError, OSError, ValueError) as error:
        raise VoiceError(f"not a readable audio clip ({error})", path=str(path)) from error
    return np.asarray(decoded.samples, dtype=np.float32)


def sentences(text: str) -> list[str]:
    """`text` cut after each full stop, question or exclamation mark; a part without words (a lone
    "..." or "-", grammar/phrases.py has_words) is left out: there is nothing in it to say."""
    return [part for part in SENTENCE_END.split(text.strip()) if has_words(part)]


def silence() -> Clip:
    """The clip of a phrase with nothing to say (no words: "...", "-", " "): no sound at all."""
    return np.zeros(0, dtype=np.float32)


def finish_phrase(sentences_audio: list[Clip]) -> Clip:
    """Trimmed sentences joined with the sentence gap, faded at the edges, at the speech level."""
    draft = draft_phrase(sentences_audio)
    return level_phrase(draft) if len(draft) else draft


def draft_phrase(sentences_audio: list[Clip]) -> Clip:
    """The first step of finish_phrase: the trimmed sentences joined with the sentence gap and faded
    at the edges, not yet levelled (already the phrase's final length)."""
    from timekeeper.audio import clips
    from timekeeper.grammar.script import GAP_MS

    parts = [clips.trimmed(clip, LEAD_PAD_MS, TAIL_PAD_MS) for clip in sentences_audio]
    parts = [part for part in parts if len(part)]
    if not parts:
        return np.zeros(0, dtype=np.float32)
    return clips.faded(clips.joined(parts, GAP_MS), EDGE_FADE_MS, EDGE_FADE_MS)


def level_phrase(draft: Clip) -> Clip:
    """The second step of finish_phrase: `draft` at the speech level (its length unchanged)."""
    from timekeeper.audio.loudness import SPEECH_LUFS, normalized

    return normalized(draft, SPEECH_LUFS, compress=True)


class TtsVoice(Voice):
    """The synthesized voice of `language` (its default settings from voices/<lang>.yaml)."""

    def __init__(
        self, language: str, voice: str | None = None, folder: Path | None = None, engine: str | None = None
    ) -> None:
        self.warnings: list[str] = []
        self.language = language
        self.settings = TtsSettings.default(language, voice)
        self.name = TTS_PREFIX + self.settings.voice
        self.base = folder or cache_dir()
        self.folder = self.base / "tts"
        self.engine_choice = engine
        self._voice_id: str | None = None
        self._clips: dict[str, Clip] = {}
        self._cache_problem: str | None = None
        self._levelling: Levelling | None = None

    def voice_id(self) -> str:
        """The engine's id of this voice (VoiceError if the engine has no such voice), asked once."""
        if self._voice_id is None:
            self._voice_id = get_engine(self.engine_choice).resolve(self.settings.voice)
        return self._voice_id

    def cache_path(self, text: str) -> Path:
        key = json.dumps(
            [CACHE_FORMAT, get_engine(self.engine_choice).name, self.settings.voice, self.settings.rate_wpm, self.settings.volume, text],
            ensure_ascii=False,
        )
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.wav"

    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        items = list(dict.fromkeys(text for _, text in phrases if has_words(text)))
        missing = [text for text in items if text not in self._clips and not self.cache_path(text).is_file()
                   and not self._load(text)]  # (no cache file: the shipped clip, if any)
        self._each(self._synthesize, missing, progress)

    def draft(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> Levelling:
        """Like prepare, but the phrases not cached are only drafted (their length known; `clip`
        gives the draft until it is levelled): the returned Levelling makes their final clips."""
        items = list(dict.fromkeys(text for _, text in phrases if has_words(text)))
        missing = [text for text in items if not self._load(text)]
        if missing:
            import_ahead()  # while the phrases are drafted
        levelling = Levelling(self._store)
        drafts = self._each(self._draft, missing, progress)
        for text, draft in zip(missing, drafts):
            levelling.add(text, draft)
        self._levelling = levelling
        return levelling

    def _each(self, make: Callable[[str], Any], texts: list[str], progress: Progress | None) -> list[Any]:
        """make(text) for each of `texts`, side by side where the engine allows, in order."""
        if not texts:
            return []
        engine = get_engine(self.engine_choice)
        self.voice_id()
        # espeak-ng runs as its own process per sentence (its program, or a fork holding its
        # library), so phrases can be made side by side (one per core); pyttsx3 from one thread.
        from concurrent.futures import ThreadPoolExecutor  # imported here: plan's timing check imports this module

        workers = min(len(texts), os.cpu_count() or 1) if isinstance(engine, (EspeakCli, EspeakLibrary)) else 1
        made = []
        pool = ThreadPoolExecutor(max_workers=workers, initializer=stopping.signals_to_main_thread)
        try:
            for done, result in enumerate(pool.map(make, texts), start=1):
                made.append(result)
                if progress is not None:
                    progress(done, len(texts))
        except BaseException:  # a failure or a stop: the phrases not started are dropped, not awaited
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return made

    def _load(self, text: str) -> bool:
        """Whether `text`'s clip is in memory, or was read from the cache or the shipped clips."""
        if text not in self._clips:
            clip = cached_or_shipped(self.cache_path(text), self.base, write_back=self._cache_problem is None)
            if clip is None:
                return False
            self._clips[text] = clip
        return True

    def clip(self, key: str, text: str) -> Clip:
        if not has_words(text):
            return silence()
        if text not in self._clips and self._levelling is not None:
            draft = self._levelling.draft(text)
            if draft is not None:
                return draft  # (levelled later: the Levelling hands the mix the final clip)
        if not self._load(text):
            self._synthesize(text)
        return self._clips[text]

    def _synthesize(self, text: str) -> None:
        """Speak `text` sentence by sentence, make the phrase (finish_phrase) and store it in the cache
        (kept in memory only, with one warning, when the cache folder cannot be written)."""
        self._store(text, self._draft(text))

    def _draft(self, text: str) -> Clip:
        """`text` spoken sentence by sentence, as draft_phrase makes it (not levelled)."""
        engine = get_engine(self.engine_choice)
        self.voice_id()
        path = self.cache_path(text)
        scratch = path.parent if self._cache_writable(path.parent) else None  # (None: Python's temporary folder)
        spoken = [self._speak(engine, sentence, scratch) for sentence in sentences(text)]
        draft = draft_phrase(spoken)
        if len(draft) == 0:
            raise VoiceError(f"the TTS engine produced only silence for {text!r} (voice {self.settings.voice!r})")
        return draft

    def _store(self, text: str, draft: Clip) -> Clip:
        """The phrase levelled from `draft`, kept in memory and in the cache; the clip kept."""
        clip = level_phrase(draft)
        self._clips[text] = stored = as_stored(clip)  # the same samples a later run reads from the cache
        path = self.cache_path(text)
        if self._cache_problem is None:
            try:
                write_wav(path, clip)
            except (OSError, TimekeeperError) as error:
                self._cache_failed(path.parent, error)
        return stored

    def _speak(self, engine: Engine, sentence: str, folder: Path | None) -> Clip:
        """One sentence as the engine says it (untrimmed), via a temp file in `folder` (None: Python's
        temporary folder), removed whatever happens (files/stopping.py removes it after a stop)."""
        from timekeeper.audio import clips

        assert self._voice_id is not None
        raw = stopping.scratch_file(folder, suffix=".raw.wav")
        try:
            engine.synthesize(sentence, self._voice_id, self.settings.rate_wpm, self.settings.volume, raw)
            try:
                return clips.read_wav(raw)
            except Exception:  # not a plain WAV (some system voices write other formats)
                return decode_file(raw)
        finally:
            with contextlib.suppress(OSError):
                raw.unlink()
            stopping.forget(raw)

    def _cache_writable(self, folder: Path) -> bool:
        if self._cache_problem is not None:
            return False
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = stopping.scratch_file(folder, suffix=".probe")
            probe.unlink()
            stopping.forget(probe)
        except OSError as error:
            self._cache_failed(folder, error)
            return False
        return True

    def _cache_failed(self, folder: Path, error: BaseException) -> None:
        if self._cache_problem is None:
            reason = getattr(error, "strerror", None) or str(error)
            self._cache_problem = reason
            self.warnings.append(f"cannot write the clip cache {self.folder} ({reason}); phrases are synthesized "
                                 "again next time (set TIMEKEEPER_CACHE to a writable folder)")
