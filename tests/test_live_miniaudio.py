"""The miniaudio output on miniaudio's own null device (a real device thread, no hardware), in real
time: the end-to-end check of the clock steered by a device."""

from __future__ import annotations

import time

import pytest
from realparts import needs
from scripted import Recorder, ScriptedKeys

from timekeeper.live.clock import Clock
from timekeeper.live.devices import STALL_S, MiniaudioOutput
from timekeeper.live.outputs import PcmFormat
from timekeeper.live.session import Outcome, run_live
from timekeeper.live.silent import silent_mix
from timekeeper.model import IncomingData, Scenario

pytestmark = needs("miniaudio")

TRACK = Scenario("Device", (70_000, 140_000), (IncomingData(136_000),))


def null_device(pcm: PcmFormat) -> MiniaudioOutput:
    import miniaudio

    output = MiniaudioOutput(backends=[miniaudio.Backend.NULL])
    output.open(pcm)
    return output


def test_stream_plays_every_frame_once_across_a_pause() -> None:
    mix = silent_mix(TRACK)
    start_ms = 135_000
    output = null_device(PcmFormat(mix.sample_rate, mix.channels))
    display = Recorder()
    started = time.monotonic()
    result = run_live(mix, output, display, ScriptedKeys([(0.5, " "), (1.5, " ")]), start_ms=start_ms)
    elapsed_s = time.monotonic() - started
    assert result.outcome is Outcome.COMPLETED and result.failure is None
    assert [cue.at_ms for cue, _ in display.shown] == [cue.at_ms for cue in mix.timeline.cues if cue.at_ms >= start_ms]
    # Every frame from the start point to the end was handed to the device exactly once:
    # what was queued when paused was taken back and played after the resume.
    assert output.frames_played == mix.sample_rate * (mix.duration_ms - start_ms) // 1000
    # The clock followed the device (whose null backend keeps roughly real time): the mission took
    # as long as its sound, never less (a busy machine may make the device, and so the mission, slower).
    played_s = (mix.duration_ms - start_ms) / 1000 + 1.0
    assert played_s * 0.95 <= elapsed_s < played_s + 10, (elapsed_s, played_s)


@pytest.mark.parametrize(
    "notified, message",
    [(True, "the sound device stopped (was it unplugged?)"), (False, "the sound device stopped responding")],
)
def test_a_device_that_goes_away_is_reported(notified: bool, message: str) -> None:
    mix = silent_mix(TRACK)
    output = null_device(PcmFormat(mix.sample_rate, mix.channels))
    clock = Clock(130_000)
    clock.start()
    output.play(mix.pcm(130_000), 130_000, clock)
    time.sleep(0.3)
    if not notified:  # miniaudio's stop notification "doesn't work consistently"
        output._device.stop_callback = None
    output._device.stop()  # the device goes away behind the output's back
    time.sleep(STALL_S + 0.2)
    output.check()
    assert output.failure == message
    assert clock.now_ms() > 131_500  # the clock carried on
    output.close()
