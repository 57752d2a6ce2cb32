"""The `AudioOutput` interface, the PCM feed every backend reads, and the silent backends.

An output receives the prepared mix as a stream of 16-bit PCM chunks and plays it in real
time. `null` is a real-time silent sink (it consumes frames as the clock advances); `text`
is the same sink for the prompter mode, where a person reads the announcements aloud.
The sound-card backends live in `timekeeper.live.devices` and are imported only when used.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from timekeeper.live.clock import Clock

BACKENDS = ("miniaudio", "simpleaudio", "null", "text")
HISTORY_MS = 2000  # how far a feed can be rewound (audio a device had queued when paused)


@dataclass(frozen=True)
class PcmFormat:
    sample_rate: int
    channels: int
    sample_width: int = 2

    @property
    def frame_bytes(self) -> int:
        return self.channels * self.sample_width

    def frames(self, duration_ms: float) -> int:
        return int(duration_ms * self.sample_rate / 1000)

    def ms(self, frames: int) -> float:
        return frames * 1000.0 / self.sample_rate


class PcmFeed:
    """Hands out exact numbers of frames from a chunk iterator and knows its position.

    `position_ms` is the mission time of the next frame to be handed out. The last
    `HISTORY_MS` are kept so that `rewind` can give back audio a device never played.
    """

    def __init__(self, chunks: Iterator[bytes], pcm: PcmFormat, start_ms: int) -> None:
        self.pcm = pcm
        self.start_ms = start_ms
        self.frames_taken = 0
        self.exhausted = False
        self._chunks = chunks
        self._pending = bytearray()
        self._history: deque[bytes] = deque()
        self._history_bytes = 0

    @property
    def position_ms(self) -> float:
        return self.start_ms + self.pcm.ms(self.frames_taken)

    def take(self, frames: int) -> bytes:
        """Up to `frames` frames (fewer only at the end of the stream)."""
        want = frames * self.pcm.frame_bytes
        while len(self._pending) < want and not self.exhausted:
            chunk = next(self._chunks, None)
            if chunk is None:
                self.exhausted = True
            else:
                self._pending += chunk
        data = bytes(self._pending[:want])
        del self._pending[:want]
        data = data[: len(data) - len(data) % self.pcm.frame_bytes]
        self.frames_taken += len(data) // self.pcm.frame_bytes
        self._remember(data)
        return data

    @property
    def finished(self) -> bool:
        return self.exhausted and not self._pending

    def rewind(self, frames: int) -> int:
        """Give back up to `frames` of the most recent frames; returns how many were given back."""
        give = min(frames * self.pcm.frame_bytes, self._history_bytes)
        back = bytearray()
        while len(back) < give:
            piece = self._history.pop()
            need = give - len(back)
            if len(piece) > need:
                self._history.append(piece[:-need])
                piece = piece[-need:]
            back[:0] = piece
        self._history_bytes -= len(back)
        self._pending[:0] = back
        self.frames_taken -= len(back) // self.pcm.frame_bytes
        return len(back) // self.pcm.frame_bytes

    def _remember(self, data: bytes) -> None:
        if not data:
            return
        self._history.append(data)
        self._history_bytes += len(data)
        limit = self.pcm.frames(HISTORY_MS) * self.pcm.frame_bytes
        while self._history_bytes - len(self._history[0]) >= limit:
            self._history_bytes -= len(self._history.popleft())


class AudioOutput(ABC):
    """Plays a PCM stream in real time. Errors while playing are kept in `failure`, not raised."""

    name = "output"
    prompter = False  # True: the screen shows each announcement ahead for a person to read

    def __init__(self) -> None:
        self.failure: str | None = None

    @abstractmethod
    def open(self, pcm: PcmFormat) -> None:
        """Get the device ready; raise PlaybackError (with a hint) when there is none."""

    @abstractmethod
    def play(self, chunks: Iterator[bytes], start_ms: int, clock: Clock) -> None:
        """Start streaming `chunks`, whose first frame is mission time `start_ms`."""

    @abstractmethod
    def pause(self) -> None: ...

    @abstractmethod
    def resume(self) -> None: ...

    @abstractmethod
    def stop(self) -> None:
        """Stop the current stream (a new `play` may follow)."""

    def close(self) -> None:
        self.stop()

    def check(self) -> None:  # noqa: B027 (most outputs have nothing to check)
        """Look for a device that went away silently (sets `failure`); called by the session."""

    @property
    @abstractmethod
    def frames_played(self) -> int:
        """Frames of the current stream that have been played (or consumed)."""


class NullOutput(AudioOutput):
    """A silent sink that consumes the stream's frames as the mission clock advances.

    It has no thread of its own: the session calls `check` every time it looks at the clock,
    and the sink takes the frames the clock has moved past. So it keeps time in real time at
    the table and in virtual time in tests alike.
    """

    name = "null"

    def __init__(self) -> None:
        super().__init__()
        self._feed: PcmFeed | None = None
        self._clock: Clock | None = None
        self.pcm: PcmFormat | None = None

    def open(self, pcm: PcmFormat) -> None:
        self.pcm = pcm

    def play(self, chunks: Iterator[bytes], start_ms: int, clock: Clock) -> None:
        assert self.pcm is not None, "open() first"
        self._feed = PcmFeed(chunks, self.pcm, start_ms)
        self._clock = clock

    def check(self) -> None:
        """Consume the frames up to the clock's time (a failing sink never stops the clock)."""
        feed, clock = self._feed, self._clock
        if feed is None or clock is None or feed.finished or self.failure is not None:
            return
        try:
            missing = feed.pcm.frames(clock.now_ms() - feed.start_ms) - feed.frames_taken
            if missing > 0:
                self.consume(feed.take(missing))
        except Exception as error:
            self.failure = f"{type(error).__name__}: {error}"

    def consume(self, data: bytes) -> None:
        """Where the frames go: nowhere. Test doubles override this to fail."""

    def pause(self) -> None:
        self.check()  # the frames up to the pause were played; the paused clock holds the rest

    def resume(self) -> None:
        pass

    def stop(self) -> None:
        self.check()
        self._clock = None

    @property
    def frames_played(self) -> int:
        return self._feed.frames_taken if self._feed is not None else 0


class TextOutput(NullOutput):
    """The prompter: silent like `null`; the screen shows what to read and when."""

    name = "text"
    prompter = True
