"""The mission clock: milliseconds of mission time, pausable, never built from summed sleeps.

The clock reads a time source: the real monotonic clock at the table, a `VirtualTime` in tests,
where a whole mission runs in milliseconds. Every wait of the live layer goes through the
source (`Clock.sleep`), so nothing in it waits on the wall clock behind the source's back.
An audio output that knows its stream's sample position calls `steer` from its callback, so
the clock follows the sound card; when the steering stops (null/text outputs, or a device that
died) the clock simply runs on the time source from where it was.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

SNAP_MS = 250.0  # a stream position further off than this is taken as is
SLEW = 0.125  # fraction of a small error corrected per steering call


class TimeSource(Protocol):
    """Seconds that only move forward, and a way to wait for them."""

    def monotonic(self) -> float: ...
    def sleep(self, seconds: float) -> None: ...


class RealTime:
    """The machine's monotonic clock; `sleep` really waits."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


class VirtualTime:
    """Time that moves only when somebody sleeps: a 10-minute mission runs in milliseconds."""

    def __init__(self, start_s: float = 0.0) -> None:
        self.now_s = start_s

    def monotonic(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.now_s += max(0.0, seconds)


REAL_TIME = RealTime()


class Clock:
    """Mission time in ms: `start_ms` when `start()` is called, then advancing with `source`."""

    def __init__(self, start_ms: int = 0, source: TimeSource = REAL_TIME) -> None:
        self.source = source
        self._monotonic = source.monotonic
        self._lock = threading.Lock()
        self._anchor_ms = float(start_ms)  # mission time at `_anchor_s`
        self._anchor_s: float | None = None  # None: not started yet, or paused
        self.started = False

    @property
    def paused(self) -> bool:
        return self.started and self._anchor_s is None

    def start(self) -> None:
        with self._lock:
            self._anchor_s = self._monotonic()
            self.started = True

    def sleep(self, seconds: float) -> None:
        """Wait `seconds` of the clock's time source (whether the clock runs or is paused)."""
        self.source.sleep(seconds)

    def now_ms(self) -> float:
        """Current mission time in ms (frozen while paused or before `start`)."""
        with self._lock:
            return self._now_locked(self._monotonic())

    def _now_locked(self, at_s: float) -> float:
        if self._anchor_s is None:
            return self._anchor_ms
        return self._anchor_ms + (at_s - self._anchor_s) * 1000.0

    def pause(self) -> float:
        """Freeze the clock; returns the mission time it stopped at."""
        with self._lock:
            if self._anchor_s is not None:
                self._anchor_ms = self._now_locked(self._monotonic())
                self._anchor_s = None
            return self._anchor_ms

    def resume(self) -> float:
        """Continue from exactly where `pause` stopped; returns that mission time."""
        with self._lock:
            if self._anchor_s is None:
                self._anchor_s = self._monotonic()
                self.started = True
            return self._anchor_ms

    def jump(self, to_ms: int) -> None:
        """Set the mission time to `to_ms` (early end), keeping the running/paused state."""
        with self._lock:
            self._anchor_ms = float(to_ms)
            if self._anchor_s is not None:
                self._anchor_s = self._monotonic()

    def steer(self, stream_ms: float, at_s: float | None = None) -> None:
        """Pull the clock towards `stream_ms`, the mission time the listener hears at `at_s`.

        Small errors (callback jitter) are corrected gradually; large ones at once.
        """
        with self._lock:
            if self._anchor_s is None:
                return
            at_s = self._monotonic() if at_s is None else at_s
            error_ms = stream_ms - self._now_locked(at_s)
            correction_ms = error_ms if abs(error_ms) > SNAP_MS else error_ms * SLEW
            self._anchor_ms += correction_ms
