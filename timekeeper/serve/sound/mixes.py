"""The sound of a game: the same prepared mix `render` uses, served as a WAV whose bytes are mixed
on demand for any byte range (so the page can start, seek and resume at once), and soundtrack
downloads encoded by `render.encode` in the background with progress.
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path

from timekeeper.audio.pcm import pcm16
from timekeeper.model import Scenario
from timekeeper.soundtrack.mix import MixSettings, PreparedMix, prepare_mix

WAV_HEADER_BYTES = 44
CHUNK_SAMPLES = 44_100  # mixed and sent one second at a time
MIX_CACHE_SIZE = 4  # prepared mixes kept (each holds its clips, a few MB)


def wav_header(n_samples: int, sample_rate: int, channels: int = 1, sample_width: int = 2) -> bytes:
    """The 44-byte header of a PCM WAV file of `n_samples` frames."""
    data_bytes = n_samples * channels * sample_width
    return b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVE" + b"fmt " + struct.pack(
        "<IHHIIHH", 16, 1, channels, sample_rate, sample_rate * channels * sample_width,
        channels * sample_width, sample_width * 8,
    ) + b"data" + struct.pack("<I", data_bytes)


def wav_size(mix: PreparedMix) -> int:
    return WAV_HEADER_BYTES + mix.n_samples * mix.channels * mix.sample_width


def wav_bytes(mix: PreparedMix, first: int, last: int) -> Generator[bytes, None, None]:
    """Bytes `first`..`last` (inclusive) of the mix as a WAV file, mixed a second at a time."""
    header = wav_header(mix.n_samples, mix.sample_rate, mix.channels, mix.sample_width)
    if first < WAV_HEADER_BYTES:
        yield header[first : min(last + 1, WAV_HEADER_BYTES)]
        first = WAV_HEADER_BYTES
    if last < first:
        return
    frame = mix.channels * mix.sample_width
    sample = (first - WAV_HEADER_BYTES) // frame
    skip = (first - WAV_HEADER_BYTES) - sample * frame
    remaining = last - first + 1
    music = mix.music_from(sample)
    while remaining > 0 and sample < mix.n_samples:
        n = min(CHUNK_SAMPLES, mix.n_samples - sample)
        chunk = mix.mix_chunk(sample, n, music)
        data = pcm16(chunk)[skip : skip + remaining]
        skip = 0
        remaining -= len(data)
        sample += n
        yield data


class MixCache:
    """Prepared mixes by key, the most recently used kept; preparing one key happens once at a time."""

    def __init__(self, size: int = MIX_CACHE_SIZE) -> None:
        self.size = size
        self._mixes: OrderedDict[str, PreparedMix] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def kept(self, key: str) -> PreparedMix | None:
        """The mix of `key` if it is kept (nothing is prepared)."""
        with self._guard:
            return self._mixes.get(key)

    def get(self, key: str, scenario: Scenario, settings: MixSettings) -> PreparedMix:
        """The mix of `key`, prepared now (synthesizing missing phrases) if it is not kept."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                if key in self._mixes:
                    self._mixes.move_to_end(key)
                    return self._mixes[key]
            mix = prepare_mix(scenario, settings, background=True)
            with self._guard:
                self._mixes[key] = mix
                while len(self._mixes) > self.size:
                    old, _ = self._mixes.popitem(last=False)
                    old_lock = self._locks.get(old)
                    if old != key and old_lock is not None and not old_lock.locked():
                        del self._locks[old]
            return mix


FORMATS = ("mp3", "ogg")


@dataclass
class RenderJob:
    """An encoding of a game's soundtrack to `path` (mp3 or ogg); progress in seconds of audio."""

    id: str
    path: Path
    done: int = 0
    total: int = 1
    finished: bool = False
    error: str | None = None
    game_id: str = ""  # the game it renders (another worker takes a job left to it from there)
    left: bool = False  # its worker stopped (SIGTERM) before it finished: the next worker asked renders it

    def as_json(self) -> dict:
        return {"id": self.id, "done": self.done, "total": self.total, "finished": self.finished,
                "error": self.error, "ready": self.finished and self.error is None}


def run_render(job: RenderJob, mix: PreparedMix, scenario: Scenario, source: str,
               report: Callable[[int, int], None] | None = None) -> None:
    """Encode `mix` to `job.path` (kept as it was if this fails), recording progress in `job`
    (seconds of audio done and in all) and passing it to `report`."""
    from timekeeper.audio.codec import output_format
    from timekeeper.errors import OutputError, TimekeeperError
    from timekeeper.soundtrack.render import encode, tags

    def progress(done: int, total: int) -> None:
        job.done, job.total = done, total
        if report is not None:
            report(done, total)

    try:
        job.path.parent.mkdir(parents=True, exist_ok=True)
        encode(mix, job.path, output_format(job.path), tags(scenario, source, mix.settings, mix.timeline.phrases), progress)
    except TimekeeperError as error:
        job.error = error.detail  # (without the place: the page shows it)
    except OSError as error:
        job.error = OutputError.cannot_write(job.path, error, "the soundtrack").detail
    finally:
        job.finished = True
