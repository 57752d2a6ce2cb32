"""The `Voice` interface: clips of spoken phrases, and how long each one lasts.

Every voice (the synthesized one, a neural one, a prerecorded pack) delivers its phrases as clips
(timekeeper.audio.pcm), so the mixer never converts anything while it streams.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from timekeeper.audio.pcm import Clip, Progress, clip_ms

if TYPE_CHECKING:
    from timekeeper.grammar.phrases import PhraseBook
    from timekeeper.grammar.script import Cue, Speech

@dataclass(frozen=True)
class Placement:
    """`clip` starts at `at_ms` in the track; `speech` marks spoken audio (the bed ducks under it).
    `key` and `text` name the phrase (or the bundle, or the whole cue) the clip speaks, and `source`
    where the clip comes from (a pack's file, a voice), for messages."""

    at_ms: int
    clip: Clip
    speech: bool = True
    key: str = ""
    text: str = ""
    source: str = ""

    @property
    def end_ms(self) -> int:
        return self.at_ms + clip_ms(self.clip)


class Voice(ABC):
    """Speaks phrases: `clip(key, text)` is the audio, `measure(key, text)` its length in ms."""

    name: str
    language: str
    _faster: dict[tuple[int, float], tuple[Clip, Clip]] | None = None  # (id, tempo) -> (clip, faster)

    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        """Make every (key, text) in `phrases` ready (synthesize, load); reports progress(done, total)."""
        items = list(dict.fromkeys(phrases))
        for done, (key, text) in enumerate(items, start=1):
            self.clip(key, text)
            if progress is not None:
                progress(done, len(items))

    @abstractmethod
    def clip(self, key: str, text: str) -> Clip:
        """The audio of phrase `key` whose words are `text`."""

    def measure(self, key: str, text: str) -> int:
        """How long the voice speaks phrase `key`, in ms."""
        return clip_ms(self.clip(key, text))

    def effect(self, key: str) -> Clip | None:
        """A voice's own recording of effect `key` (alert, white_noise, ...), or None."""
        return None

    def placements(self, cue: Cue) -> list[Placement]:
        """Where the speech of `cue` sounds: by default one clip per Speech part at its time."""
        return [
            Placement(part.at_ms, self.spoken(part), key=part.key, text=part.text, source=self.name)
            for part in cue.speech
        ]

    def spoken(self, part: Speech) -> Clip:
        """The clip of `part` at its tempo."""
        return self.at_tempo(self.clip(part.key, part.text), part.tempo)

    def at_tempo(self, clip: Clip, tempo: float) -> Clip:
        """`clip` sped up to `tempo` (a tight cue; see script.PACES), made once per clip and tempo."""
        if tempo == 1.0:
            return clip
        from timekeeper.audio.clips import sped_up

        if self._faster is None:
            self._faster = {}
        key = (id(clip), tempo)
        if key not in self._faster:
            self._faster[key] = (clip, sped_up(clip, tempo))  # the clip is kept so its id stays unique
        return self._faster[key][1]

    def phrases(self) -> PhraseBook:
        """The words this voice speaks and outputs print (the language's shipped table by default)."""
        from timekeeper.grammar.phrases import phrase_book

        return phrase_book(self.language)

    def whole(self, cue: Cue) -> object | None:
        """The voice's recording of the whole of `cue` (its phrases need no clips), or None."""
        return None

    def keeps_sound(self, cue: Cue, key: str) -> bool:
        """False when the voice's own recording of `cue` already holds sound effect `key` (alert, beep)."""
        return True


def cached_or_shipped(path: Path, base: Path, *, write_back: bool = True) -> Clip | None:
    """The clip the clip cache keeps as `path` (a damaged file is removed: made again), else the
    clip timekeeper ships for it (seed.py), then written to the cache when `write_back`; None when
    neither has it."""
    import contextlib

    from timekeeper.audio.clipcache import read_cached, write_wav
    from timekeeper.audio.seed import seed_clip
    from timekeeper.errors import TimekeeperError

    clip = read_cached(path)
    if clip is not None:
        return clip
    clip = seed_clip(path, base)
    if clip is not None and write_back:
        with contextlib.suppress(OSError, TimekeeperError):  # (only a cache: the shipped clip is read again next time)
            write_wav(path, clip)
    return clip
