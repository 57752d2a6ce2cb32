"""The live loop: stream the prepared mix, follow the clock, show cues as they start, obey keys."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from timekeeper.errors import Terminated
from timekeeper.grammar.script import Cue, CueKind, Speech, Timeline
from timekeeper.grammar.times import format_time
from timekeeper.live import keys as keynames
from timekeeper.live.clock import Clock
from timekeeper.live.display import LineDisplay, LiveState, TerminalDisplay
from timekeeper.live.keys import Keys
from timekeeper.live.outputs import AudioOutput

IDLE_WAKE_MS = 50.0  # the loop looks at keys, the device and the screen at least this often

Display = LineDisplay | TerminalDisplay


class Mix(Protocol):
    """What the session needs of `timekeeper.soundtrack.mix.PreparedMix`."""

    @property
    def timeline(self) -> Timeline: ...
    @property
    def sample_rate(self) -> int: ...
    @property
    def channels(self) -> int: ...
    @property
    def sample_width(self) -> int: ...
    @property
    def duration_ms(self) -> int: ...

    def pcm(self, start_ms: int = 0, chunk_ms: int = 1000) -> Iterator[bytes]: ...


class Outcome(str, Enum):
    COMPLETED = "completed"
    ENDED_EARLY = "ended early"
    QUIT = "quit"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class LiveResult:
    outcome: Outcome
    stopped_ms: int  # mission time when the session stopped
    failure: str | None = None  # the device error, if the device failed on the way
    failure_ms: int | None = None
    ended_at_ms: int | None = None  # the real mission time when `e` ended the action round


def run_live(
    mix: Mix,
    output: AudioOutput,
    display: Display,
    keys: Keys,
    *,
    start_ms: int = 0,
    title: str = "",
    clock: Clock | None = None,
) -> LiveResult:
    """Play `mix` from `start_ms` through `output` in real time until it ends, or the user stops it."""
    session = _Session(mix, output, display, keys, start_ms, title, clock or Clock(start_ms))
    try:
        return session.run()
    except Terminated:
        raise  # SIGTERM: the process ends (exit 143) after the `finally` below
    except KeyboardInterrupt:
        return session.result(Outcome.INTERRUPTED)
    finally:
        output.close()


class _Session:
    def __init__(
        self, mix: Mix, output: AudioOutput, display: Display, keys: Keys, start_ms: int, title: str, clock: Clock
    ) -> None:
        self.mix = mix
        self.output = output
        self.display = display
        self.keys = keys
        self.clock = clock
        self.start_ms = start_ms
        timeline = mix.timeline
        self.end_ms = max(mix.duration_ms, timeline.duration_ms)
        self.state = LiveState(timeline, title, output.name, prompter=output.prompter, now_ms=start_ms)
        self.state.made = [cue for cue in timeline.cues if cue.at_ms < start_ms]
        self.pending = deque(cue for cue in timeline.cues if cue.at_ms >= start_ms)
        self.failure_ms: int | None = None
        self.outcome = Outcome.COMPLETED

    def run(self) -> LiveResult:
        self.clock.start()
        self.output.play(self.mix.pcm(self.start_ms), self.start_ms, self.clock)
        while True:
            now_ms = self.tick()
            if now_ms >= self.end_ms:
                return self.result(self.outcome)
            wait_ms = IDLE_WAKE_MS
            if not self.state.paused:
                if self.pending:
                    wait_ms = min(wait_ms, self.pending[0].at_ms - now_ms)
                wait_ms = min(wait_ms, self.end_ms - now_ms)
            key = self.keys.read(wait_ms / 1000)
            if key is not None and self.on_key(key):
                return self.result(Outcome.QUIT)

    def tick(self) -> float:
        """Start every cue that is due, watch the device, redraw; returns the mission time."""
        state = self.state
        state.now_ms = now_ms = self.clock.now_ms()
        while self.pending and self.pending[0].at_ms <= now_ms:
            cue = self.pending.popleft()
            state.made.append(cue)
            self.display.cue_started(cue, state)
        state.upcoming = self.pending[0] if self.pending else None
        self.output.check()
        if self.output.failure and state.failure is None:
            state.failure = f"sound device failed: {self.output.failure}; the clock carries on silently"
            self.failure_ms = round(now_ms)
            self.display.error(state.failure, state)
        self.display.refresh(state)
        return now_ms

    def on_key(self, key: str) -> bool:
        """Act on one key; True means quit."""
        state = self.state
        if state.asking_quit:
            state.asking_quit = False
            if key == keynames.YES:
                return True
            self.display.note(state.say("carrying_on"), state)
        elif key == keynames.QUIT:
            state.asking_quit = True
            self.display.note(state.say("quit_asked"), state)
        elif key == keynames.PAUSE:
            self.toggle_pause()
        elif key == keynames.END:
            self.end_early()
        return False

    def toggle_pause(self) -> None:
        state = self.state
        if state.paused:
            self.output.resume()
            state.now_ms = self.clock.resume()
            state.paused = False
            self.display.note(state.say("resumed"), state)
        else:
            state.now_ms = self.clock.pause()
            self.output.pause()
            state.paused = True
            self.display.note(state.say("paused_note"), state)

    def end_early(self) -> None:
        """After the second phase: jump to "Mission complete" and play the track's end."""
        state = self.state
        state.now_ms = self.clock.now_ms()
        if state.paused or not state.can_end_early:
            self.display.note(state.say("end_too_early"), state)
            return
        closing = _closing_speech(self.mix.timeline)
        state.ended_at_ms = round(state.now_ms)
        self.output.stop()
        self.clock.jump(closing.at_ms)
        self.output.play(self.mix.pcm(closing.at_ms), closing.at_ms, self.clock)
        while self.pending and self.pending[0].at_ms < closing.at_ms:
            self.pending.popleft()
        state.now_ms = closing.at_ms
        self.outcome = Outcome.ENDED_EARLY
        self.display.note(state.say("ended_at", time=format_time(state.ended_at_ms), closing=closing.text), state)

    def result(self, outcome: Outcome) -> LiveResult:
        stopped_ms = round(self.clock.now_ms())
        return LiveResult(outcome, stopped_ms, self.state.failure, self.failure_ms, self.state.ended_at_ms)


def _closing_speech(timeline: Timeline) -> Speech:
    """The "Mission complete" words of the last phase end."""
    finals = [cue for cue in timeline.cues if cue.kind is CueKind.PHASE_END]
    last: Cue = max(finals, key=lambda cue: cue.at_ms)
    return last.speech[-1]
