"""The live loop on the silent outputs with a scripted user, on a virtual clock: whole missions
run in milliseconds and every moment is checked exactly. (Real time is checked end to end by
the tmux tests, the miniaudio device test and benchmarks/bench_live.py.)"""

from __future__ import annotations

import pytest
from scripted import Recorder, ScriptedKeys

from timekeeper.grammar.script import Cue
from timekeeper.live.clock import Clock, VirtualTime
from timekeeper.live.outputs import NullOutput, PcmFeed, PcmFormat, TextOutput
from timekeeper.live.session import Outcome, run_live
from timekeeper.live.silent import SilentMix, silent_mix
from timekeeper.model import CommsDown, DataTransfer, IncomingData, Scenario, Threat, Zone
from timekeeper.scenario.catalog import builtin_paths, load_scenario

EXACT_MS = 0.001  # virtual time has no jitter: a cue is shown at its moment, to float rounding

TWO_PHASES = Scenario(
    "Two phases",
    (70_000, 140_000),
    (Threat(5_000, 1, Zone.RED), CommsDown(100_000, 110_000), DataTransfer(115_000), IncomingData(131_000)),
)
THREE_PHASES = Scenario("Three phases", (70_000, 140_000, 210_000), (IncomingData(143_000),))


def live(mix: SilentMix, output: NullOutput, presses: list[tuple[float, str]], start_ms: int = 0):  # type: ignore[no-untyped-def]
    """Run `mix` from `start_ms` on a virtual clock; returns the result, the screen and the keys."""
    time = VirtualTime()
    display, keys = Recorder(time), ScriptedKeys(presses, time)
    output.open(PcmFormat(mix.sample_rate, mix.channels))
    result = run_live(mix, output, display, keys, start_ms=start_ms, clock=Clock(start_ms, time))
    return result, display, keys, time


class FixedTime(VirtualTime):
    """A time source the test moves by hand through a one-item list."""

    def __init__(self, now: list[float]) -> None:
        super().__init__()
        self._now = now

    def monotonic(self) -> float:
        return self._now[0]


def test_clock_pauses_resumes_and_jumps_exactly() -> None:
    now = [10.0]
    clock = Clock(5_000, FixedTime(now))
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
    clock = Clock(0, FixedTime(now))
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


def _cue_errors_ms(shown: list[tuple[Cue, float]], start_ms: int, paused_s: float = 0.0, pause_at_s: float = 0.0) -> list[float]:
    """How late each cue was shown: its virtual time against its mission time (less a pause)."""
    errors = []
    for cue, at_s in shown:
        mission_s = at_s - (paused_s if at_s >= pause_at_s + paused_s else 0.0)
        errors.append(mission_s * 1000 + start_ms - cue.at_ms)
    return errors


def test_cues_start_on_time_and_pause_resume_keeps_them_on_time() -> None:
    mix = silent_mix(TWO_PHASES)
    start_ms = 127_000
    output = NullOutput()
    result, display, keys, _ = live(mix, output, [(1.0, " "), (2.5, " ")], start_ms)
    assert result.outcome is Outcome.COMPLETED and result.failure is None
    assert [cue.at_ms for cue, _ in display.shown] == [cue.at_ms for cue in mix.timeline.cues if cue.at_ms >= start_ms]
    assert [key for key, _ in keys.pressed_at] == [" ", " "]
    errors = _cue_errors_ms(display.shown, start_ms, paused_s=1.5, pause_at_s=1.0)
    assert max(abs(e) for e in errors) < EXACT_MS, errors
    assert display.lines[:2] == ["2:08 Paused.", "2:08 Resumed."]  # resumed exactly where it stopped
    assert display.lines[2].startswith("2:11 Incoming data.")
    assert output.frames_played == mix.sample_rate * (mix.duration_ms - start_ms) // 1000  # every frame, once
    assert result.stopped_ms == mix.duration_ms


OFFICIAL = [name for name, path in builtin_paths().items() if path.parent.name == "official"]


@pytest.mark.parametrize("name", OFFICIAL)
def test_a_whole_official_track_with_a_pause_keeps_every_cue_on_time(name: str) -> None:
    mix = silent_mix(load_scenario(name))
    output = NullOutput()
    result, display, keys, time = live(mix, output, [(200.0, " "), (207.0, " ")])
    assert result.outcome is Outcome.COMPLETED and result.stopped_ms == mix.duration_ms
    assert [cue for cue, _ in display.shown] == list(mix.timeline.cues)
    errors = _cue_errors_ms(display.shown, 0, paused_s=7.0, pause_at_s=200.0)
    assert max(abs(e) for e in errors) < EXACT_MS, errors
    assert time.now_s == pytest.approx(mix.duration_ms / 1000 + 7.0)  # the mission's length plus the pause
    assert output.frames_played == mix.sample_rate * mix.duration_ms // 1000


class FailingOutput(NullOutput):
    """A sound device that goes away half a second into the stream."""

    def consume(self, data: bytes) -> None:
        if self.frames_played > self.pcm.sample_rate // 2:  # type: ignore[union-attr]
            raise OSError("device unplugged")


def test_a_device_that_fails_mid_mission_does_not_stop_the_clock() -> None:
    mix = silent_mix(TWO_PHASES)
    start_ms = 129_000
    result, display, _, _ = live(mix, FailingOutput(), [], start_ms)
    assert result.outcome is Outcome.COMPLETED
    assert result.failure == "sound device failed: OSError: device unplugged; the clock carries on silently"
    assert 129_500 < (result.failure_ms or 0) <= 129_550  # noticed at the next look (every 50 ms at most)
    assert "Error at 2:09: sound device failed: OSError: device unplugged" in display.errors
    assert len(display.shown) == 2  # incoming data and the final count still came, on time
    assert max(abs(e) for e in _cue_errors_ms(display.shown, start_ms)) < EXACT_MS


def test_quit_asks_first() -> None:
    mix = silent_mix(TWO_PHASES)
    result, display, _, _ = live(mix, NullOutput(), [(0.1, "q"), (0.2, "n"), (0.3, "q"), (0.4, "y")], 60_000)
    assert result.outcome is Outcome.QUIT
    assert result.stopped_ms == 60_400
    notes = [line.split(" ", 1)[1] for line in display.lines]
    assert notes == ["Quit? Press y to quit, any other key to carry on.", "Carrying on.", "Quit? Press y to quit, any other key to carry on."]


def test_early_end_only_after_the_second_phase() -> None:
    mix = silent_mix(THREE_PHASES)
    result, display, _, time = live(mix, NullOutput(), [(0.2, "e"), (1.5, "e")], 139_000)
    assert result.outcome is Outcome.ENDED_EARLY
    lines = display.lines
    assert lines[0] == "2:19.200 The mission can be ended only after the second phase has ended."
    # The incoming data due at 2:23 is skipped: the round ends at once.
    assert len(lines) == 2 and lines[1].startswith("3:30 Action round ended at 2:20. Mission complete.")
    assert result.ended_at_ms == 140_500  # the real end time is kept
    tail_s = (mix.duration_ms - 210_000) / 1000
    assert time.now_s == pytest.approx(1.5 + tail_s)  # then the track's ending plays out


def test_prompter_shows_the_words_ahead() -> None:
    mix = silent_mix(TWO_PHASES)
    _, display, _, _ = live(mix, TextOutput(), [(1.0, "q"), (1.1, "y")], 125_500)
    assert display.lines[0] == "2:06 next at 2:11 (in 5 s): Incoming data. Repeat, incoming data."
