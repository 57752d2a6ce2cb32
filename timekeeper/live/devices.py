"""Sound-card outputs: miniaudio (default) and simpleaudio (optional, old Pythons only); and
`open_output`, which opens the output a backend names (these, or the null and text outputs)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Generator, Iterator
from typing import Any

from timekeeper.errors import PlaybackError
from timekeeper.files.quiet import silenced
from timekeeper.live.clock import Clock
from timekeeper.live.outputs import BACKENDS, AudioOutput, NullOutput, PcmFeed, PcmFormat, TextOutput

HINT = "--backend text runs the mission as a prompter (a person reads the announcements), --backend null rehearses it silently"
PERIOD_MS = 20  # one device callback period
PERIODS = 3  # periods in the device buffer
STALL_S = 1.5  # no callback for this long while playing: the device is gone
SETTLE_CALLBACKS = PERIODS + 1  # callbacks after a start before the position is trusted


class MiniaudioOutput(AudioOutput):
    """Streams to the default sound device; the device's sample position steers the clock."""

    name = "miniaudio"

    def __init__(self, backends: list[Any] | None = None) -> None:
        super().__init__()
        self._backends = backends  # e.g. [miniaudio.Backend.NULL] in tests: a device without hardware
        self._device: Any = None
        self._feed: PcmFeed | None = None
        self._paused = False
        self._playing = False
        self._last_callback_s = 0.0
        self._lock = threading.Lock()

    def open(self, pcm: PcmFormat) -> None:
        import miniaudio

        if pcm.sample_width != 2:
            raise PlaybackError(f"miniaudio output plays 16-bit audio, not {8 * pcm.sample_width}-bit")
        self.pcm = pcm
        try:
            with silenced(2):
                self._device = miniaudio.PlaybackDevice(
                    output_format=miniaudio.SampleFormat.SIGNED16,
                    nchannels=pcm.channels,
                    sample_rate=pcm.sample_rate,
                    buffersize_msec=PERIOD_MS,
                    callback_periods=PERIODS,
                    backends=self._backends,
                    app_name="timekeeper",
                )
        except miniaudio.MiniaudioError as error:
            raise PlaybackError(f"no sound device could be opened ({_describe(error)}); {HINT}") from error
        self._device.stop_callback = self._device_stopped

    def play(self, chunks: Iterator[bytes], start_ms: int, clock: Clock) -> None:
        self.stop()
        self._feed = PcmFeed(chunks, self.pcm, start_ms)
        self._clock = clock
        self._start_device()

    def _start_device(self) -> None:
        assert self._feed is not None and self._clock is not None, "play() sets the feed and the clock"
        generator = self._generate(self._feed, self._clock)
        next(generator)
        self._last_callback_s = self._clock.source.monotonic()
        try:
            self._device.start(generator)
        except Exception as error:
            self.failure = f"the sound device could not start ({_describe(error)})"
            return
        self._playing = True

    def _generate(self, feed: PcmFeed, clock: Clock) -> Generator[bytes, int, None]:
        frames = yield b""  # miniaudio primes the generator, then sends the frames it wants
        callbacks = 0
        queued_frames = (PERIODS - 1) * self.pcm.frames(PERIOD_MS)
        while True:
            try:
                now_s = clock.source.monotonic()
                self._last_callback_s = now_s
                callbacks += 1
                if callbacks > SETTLE_CALLBACKS and feed.frames_taken > queued_frames:
                    clock.steer(feed.start_ms + self.pcm.ms(feed.frames_taken - queued_frames), now_s)
                data = feed.take(frames)
                data += bytes(frames * self.pcm.frame_bytes - len(data))
            except Exception as error:  # never let an exception escape into the audio thread
                self.failure = f"{type(error).__name__}: {error}"
                return
            frames = yield data

    def _device_stopped(self) -> None:
        if self._playing and not self._paused and not (self._feed and self._feed.finished):
            self.failure = "the sound device stopped (was it unplugged?)"

    def check(self) -> None:
        """Notice a device that stopped calling back while it should be playing."""
        if self._playing and not self._paused and self.failure is None:
            if self._clock.source.monotonic() - self._last_callback_s > STALL_S:
                self.failure = "the sound device stopped responding"

    def pause(self) -> None:
        if not self._playing or self._paused:
            return
        self._paused = True
        self._halt()
        # Audio still queued in the device was never heard: hand it back for the resume.
        assert self._feed is not None
        heard_frames = self.pcm.frames(self._clock.now_ms() - self._feed.start_ms)
        self._feed.rewind(max(0, self._feed.frames_taken - heard_frames))

    def resume(self) -> None:
        if self._paused:
            self._paused = False
            self._start_device()

    def _halt(self) -> None:
        self._playing = False
        if self._device is not None:
            try:
                self._device.stop()
            except Exception as error:
                self.failure = f"the sound device could not stop ({_describe(error)})"

    def stop(self) -> None:
        self._halt()
        self._paused = False

    def close(self) -> None:
        self.stop()
        if self._device is not None:
            self._device.close()
            self._device = None

    @property
    def frames_played(self) -> int:
        return self._feed.frames_taken if self._feed is not None else 0


class SimpleaudioOutput(AudioOutput):
    """simpleaudio plays whole buffers: the clock runs on the monotonic source.

    simpleaudio is unmaintained and crashes on Python 3.12 and later, so it is refused there.
    """

    name = "simpleaudio"

    def __init__(self) -> None:
        super().__init__()
        self._audio = b""
        self._start_ms = 0
        self._player: Any = None

    def open(self, pcm: PcmFormat) -> None:
        if sys.version_info >= (3, 12):
            raise PlaybackError(
                f"the simpleaudio backend does not work on Python {sys.version_info[0]}.{sys.version_info[1]} "
                f"(simpleaudio is unmaintained and crashes on 3.12+); use the default --backend miniaudio; {HINT}"
            )
        try:
            import simpleaudio
        except ImportError as error:
            raise PlaybackError(
                "simpleaudio is not installed (pip install 'timekeeper[simpleaudio]'); "
                f"or use the default --backend miniaudio; {HINT}"
            ) from error
        self._simpleaudio = simpleaudio
        self.pcm = pcm

    def play(self, chunks: Iterator[bytes], start_ms: int, clock: Clock) -> None:
        self.stop()
        self._audio = b"".join(chunks)
        self._start_ms = start_ms
        self._clock = clock
        self._play_from(start_ms)

    def _play_from(self, at_ms: float) -> None:
        offset = self.pcm.frames(at_ms - self._start_ms) * self.pcm.frame_bytes
        try:
            self._player = self._simpleaudio.play_buffer(
                self._audio[offset:], self.pcm.channels, self.pcm.sample_width, self.pcm.sample_rate
            )
        except Exception as error:
            self.failure = f"simpleaudio could not play ({_describe(error)})"

    def pause(self) -> None:
        self.stop()

    def resume(self) -> None:
        self._play_from(self._clock.now_ms())

    def stop(self) -> None:
        if self._player is not None:
            self._player.stop()
            self._player = None

    @property
    def frames_played(self) -> int:
        return self.pcm.frames(self._clock.now_ms() - self._start_ms) if self._player else 0


def _describe(error: BaseException) -> str:
    args = [str(arg) for arg in getattr(error, "args", ())]
    return ", ".join(args) or type(error).__name__


def open_output(backend: str, pcm: PcmFormat) -> AudioOutput:
    """An opened output for `backend` (one of BACKENDS); PlaybackError if it cannot work here."""
    output: AudioOutput
    if backend == "null":
        output = NullOutput()
    elif backend == "text":
        output = TextOutput()
    elif backend == "miniaudio":
        output = MiniaudioOutput()
    elif backend == "simpleaudio":
        output = SimpleaudioOutput()
    else:
        raise PlaybackError(f"unknown backend {backend!r} (expected one of {', '.join(BACKENDS)})")
    output.open(pcm)
    return output
