"""The live loop in real time on the silent outputs, with a scripted user (library level)."""

from __future__ import annotations

import io
import time

import pytest

from timekeeper.live.clock import Clock
from timekeeper.live.display import LineDisplay, LiveState
from timekeeper.live.outputs import NullOutput, PcmFeed, PcmFormat, TextOutput
from timekeeper.live.session import Outcome, run_live
from timekeeper.live.silent import silent_mix
from timekeeper.model import CommsDown, DataTransfer, IncomingData, Scenario, Threat, Zone
from timekeeper.script import Cue

TOLERANCE_MS = 15  # in-process; the 10 ms target is measured by benchmarks/bench_live.py

# Two phases of 1:10; the tests start near the end so that each run lasts a few seconds.
TWO_PHASES = Scenario(
    "Two phases",
    (70_000, 140_000),
    (Threat(5_000, 1, Zone.RED), CommsDown(100_000, 110_000), DataTransfer(115_000), IncomingData(131_000)),
)
THREE_PHASES = Scenario("Three phases", (70_000, 140_000, 210_000), (IncomingData(143_000),))


class Recorder(LineDisplay):
    """A line display that also notes the monotonic time at which each cue was shown."""

    def __init__(self) -> None:
        super().__init__(io.StringIO(), io.StringIO())
        self.shown: list[tuple[Cue, float]] = []

    def cue_started(self, cue: Cue, state: LiveState) -> None:
        self.shown.append((cue, time.monotonic()))
        super().cue_started(cue, state)

    @property
    def lines(self) -> list[str]:
        return self.out.getvalue().splitlines()  # type: ignore[attr-defined]


class ScriptedKeys:
    """Presses keys at given seconds after the first read, like a user at the table."""

    def __init__(self, presses: list[tuple[float, str]]) -> None:
        self.presses = sorted(presses)
        self.origin: float | None = None
        self.pressed_at: list[tuple[str, float]] = []

    def read(self, timeout_s: float) -> str | None:
        now = time.monotonic()
        if self.origin is None:
            self.origin = now
        deadline = now + max(0.0, timeout_s)
        if self.presses and self.origin + self.presses[0][0] <= deadline:
            at_s, key = self.presses.pop(0)
            time.sleep(max(0.0, self.origin + at_s - time.monotonic()))
            self.pressed_at.append((key, time.monotonic()))
            return key
        time.sleep(max(0.0, deadline - time.monotonic()))
        return None


def test_clock_pauses_resumes_and_jumps_exactly() -> None:
    now = [10.0]
    clock = Clock(5_000, monotonic=lambda: now[0])
    assert clock.now_ms() == 5_000 and not clock.paused
    clock.start()
    now[0] += 1.5
    assert clock.now_ms() == 6_500
    assert clock.pause() == 6_500 and clock.paused
    now[0] += 30
    assert clock.now_ms() == 6_500
    clock.resume()
    now[0] += 0.25
    assert clock.now_ms() == 6_750
    clock.jump(60_000)
    now[0] += 1
    assert clock.now_ms() == 61_000


def test_clock_follows_the_stream_position() -> None:
    now = [0.0]
    clock = Clock(0, monotonic=lambda: now[0])
    clock.start()
    now[0] = 1.0
    clock.steer(1_016)  # jitter: corrected gradually
    assert 1_000 < clock.now_ms() < 1_016
    for _ in range(60):
        clock.steer(1_016)
    assert clock.now_ms() == pytest.approx(1_016, abs=0.1)
    clock.steer(5_000)  # a large step (after a stall) is taken at once
    assert clock.now_ms() == 5_000


def test_feed_hands_out_exact_frames_and_rewinds() -> None:
    pcm = PcmFormat(1000, 1)
    chunks = iter([bytes(range(10)) * 30, bytes(100)])  # 150 + 50 frames of 2 bytes
    feed = PcmFeed(chunks, pcm, start_ms=2_000)
    first = feed.take(100)
    assert len(first) == 200 and feed.position_ms == 2_100
    assert feed.rewind(40) == 40 and feed.position_ms == 2_060
    assert feed.take(40) == first[120:]
    assert len(feed.take(1_000)) == 2 * 100  # the 100 frames that are left
    assert feed.finished


def _cue_errors_ms(shown: list[tuple[Cue, float]], origin_s: float, origin_ms: int) -> list[float]:
    return [(at_s - origin_s) * 1000 - (cue.at_ms - origin_ms) for cue, at_s in shown]


def test_cues_start_on_time_and_pause_resume_keeps_them_on_time() -> None:
    mix = silent_mix(TWO_PHASES)
    start_ms = 127_000
    display, keys = Recorder(), ScriptedKeys([(1.0, " "), (2.5, " ")])
    output = NullOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    started = time.monotonic()
    result = run_live(mix, output, display, keys, start_ms=start_ms)
    assert result.outcome is Outcome.COMPLETED and result.failure is None
    assert [cue.at_ms for cue, _ in display.shown] == [cue.at_ms for cue in mix.timeline.cues if cue.at_ms >= start_ms]
    (_, paused_s), (_, resumed_s) = keys.pressed_at
    pause_s = resumed_s - paused_s
    errors = _cue_errors_ms(display.shown, started + pause_s, start_ms)
    assert max(abs(e) for e in errors) < TOLERANCE_MS, errors
    assert display.lines[0].endswith("Paused.") and display.lines[1].endswith("Resumed.")
    assert display.lines[0].split()[0] == display.lines[1].split()[0]  # resumed exactly where it stopped
    assert display.lines[2].startswith("2:11 Incoming data.")
    expected_frames = mix.sample_rate * (mix.duration_ms - start_ms) // 1000
    assert abs(output.frames_played - expected_frames) < mix.sample_rate * TOLERANCE_MS // 1000


class FailingOutput(NullOutput):
    """A sound device that goes away half a second into the stream."""

    def consume(self, data: bytes) -> None:
        if self.frames_played > self.pcm.sample_rate // 2:  # type: ignore[union-attr]
            raise OSError("device unplugged")


def test_a_device_that_fails_mid_mission_does_not_stop_the_clock() -> None:
    mix = silent_mix(TWO_PHASES)
    start_ms = 129_000
    display = Recorder()
    output = FailingOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    started = time.monotonic()
    result = run_live(mix, output, display, ScriptedKeys([]), start_ms=start_ms)
    assert result.outcome is Outcome.COMPLETED
    assert result.failure and "device unplugged" in result.failure
    assert 129_400 < (result.failure_ms or 0) < 129_700
    assert "Error at 2:09: sound device failed: OSError: device unplugged" in display.err.getvalue()  # type: ignore[attr-defined]
    assert len(display.shown) == 2  # incoming data and the final count still came, on time
    assert max(abs(e) for e in _cue_errors_ms(display.shown, started, start_ms)) < TOLERANCE_MS


def test_quit_asks_first() -> None:
    mix = silent_mix(TWO_PHASES)
    display = Recorder()
    keys = ScriptedKeys([(0.1, "q"), (0.2, "n"), (0.3, "q"), (0.4, "y")])
    output = NullOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    result = run_live(mix, output, display, keys, start_ms=60_000)
    assert result.outcome is Outcome.QUIT
    assert 60_350 < result.stopped_ms < 60_550
    notes = [line.split(" ", 1)[1] for line in display.lines]
    assert notes == ["Quit? Press y to quit, any other key to carry on.", "Carrying on.", "Quit? Press y to quit, any other key to carry on."]


def test_early_end_only_after_the_second_phase() -> None:
    mix = silent_mix(THREE_PHASES)
    display = Recorder()
    keys = ScriptedKeys([(0.2, "e"), (1.5, "e")])
    output = NullOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    started = time.monotonic()
    result = run_live(mix, output, display, keys, start_ms=139_000)
    elapsed_s = time.monotonic() - started
    assert result.outcome is Outcome.ENDED_EARLY
    lines = display.lines
    assert lines[0].endswith("The mission can be ended only after the second phase has ended.")
    # The incoming data due at 2:23 is skipped: the round ends at once.
    assert len(lines) == 2 and lines[1].startswith("3:30 Action round ended at 2:20. Mission complete.")
    assert result.ended_at_ms == pytest.approx(140_500, abs=300)  # the real end time is kept
    tail_s = (mix.duration_ms - 210_000) / 1000
    assert elapsed_s == pytest.approx(1.5 + tail_s, abs=0.3)


def test_prompter_shows_the_words_ahead() -> None:
    mix = silent_mix(TWO_PHASES)
    display = Recorder()
    output = TextOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    run_live(mix, output, display, ScriptedKeys([(1.0, "q"), (1.1, "y")]), start_ms=125_500)
    assert display.lines[0] == "2:06 next at 2:11 (in 5 s): Incoming data. Repeat, incoming data."
