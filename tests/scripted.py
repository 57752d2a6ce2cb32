"""A scripted user and a recording screen for the live loop, on any time source.

With `VirtualTime` a whole mission runs in milliseconds and every moment is exact; with
`REAL_TIME` the same doubles drive a real device in real time.
"""

from __future__ import annotations

import io

from timekeeper.grammar.script import Cue
from timekeeper.live.clock import REAL_TIME, TimeSource
from timekeeper.live.display import LineDisplay, LiveState


class Recorder(LineDisplay):
    """A line display that also notes the time (of `source`) at which each cue was shown."""

    def __init__(self, source: TimeSource = REAL_TIME) -> None:
        super().__init__(io.StringIO(), io.StringIO())
        self.source = source
        self.shown: list[tuple[Cue, float]] = []

    def cue_started(self, cue: Cue, state: LiveState) -> None:
        self.shown.append((cue, self.source.monotonic()))
        super().cue_started(cue, state)

    @property
    def lines(self) -> list[str]:
        return self.out.getvalue().splitlines()  # type: ignore[attr-defined]

    @property
    def errors(self) -> str:
        return self.err.getvalue()  # type: ignore[attr-defined]


class ScriptedKeys:
    """Presses keys at given seconds after the first read, like a user at the table."""

    def __init__(self, presses: list[tuple[float, str]], source: TimeSource = REAL_TIME) -> None:
        self.presses = sorted(presses)
        self.source = source
        self.origin: float | None = None
        self.pressed_at: list[tuple[str, float]] = []

    def read(self, timeout_s: float) -> str | None:
        now = self.source.monotonic()
        if self.origin is None:
            self.origin = now
        deadline = now + max(0.0, timeout_s)
        if self.presses and self.origin + self.presses[0][0] <= deadline:
            at_s, key = self.presses.pop(0)
            self.source.sleep(self.origin + at_s - now)
            self.pressed_at.append((key, self.source.monotonic()))
            return key
        self.source.sleep(deadline - now)
        return None
