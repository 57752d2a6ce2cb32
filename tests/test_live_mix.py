"""The live session streams exactly `render`'s mix: recorded from the null sink and decoded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scripted import Recorder, ScriptedKeys

from timekeeper.live.clock import Clock, VirtualTime
from timekeeper.live.outputs import NullOutput, PcmFormat
from timekeeper.live.premix import premix
from timekeeper.live.session import Outcome, run_live
from timekeeper.scenario.catalog import load_scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix

TRACK = Path(__file__).parent / "data" / "live" / "three-phases.yaml"


class RecordingOutput(NullOutput):
    """The null sink, keeping what it consumed."""

    def __init__(self) -> None:
        super().__init__()
        self.recorded = bytearray()

    def consume(self, data: bytes) -> None:
        self.recorded += data


@pytest.mark.full(reason="a real espeak-ng render, compared sample for sample")
def test_the_stream_is_the_render_mix_with_speech_at_the_cue_time() -> None:
    scenario = load_scenario(str(TRACK))
    prepared = prepare_mix(scenario, MixSettings(background=False))
    start_ms = 143_500  # 2:23.5, after the phase end's last words; "Incoming data" is due at 2:25
    mix = premix(prepared, start_ms)
    output = RecordingOutput()
    output.open(PcmFormat(mix.sample_rate, mix.channels, mix.sample_width))
    time = VirtualTime()
    keys = ScriptedKeys([(4.0, "q"), (4.05, "y")], time)
    result = run_live(mix, output, Recorder(time), keys, start_ms=start_ms, clock=Clock(start_ms, time))
    assert result.outcome is Outcome.QUIT and result.stopped_ms == start_ms + 4_050
    recorded = bytes(output.recorded)
    played_ms = len(recorded) / 2 * 1000 / mix.sample_rate
    assert played_ms == pytest.approx(4_050, abs=0.1)  # consumed as the clock went
    assert recorded == b"".join(prepared.pcm(start_ms))[: len(recorded)]  # the same mix as render
    samples = np.frombuffer(recorded, dtype="<i2").astype(np.float64) / 32768.0
    first_sound_ms = np.argmax(np.abs(samples) > 0.02) * 1000 / mix.sample_rate
    assert first_sound_ms == pytest.approx(1_500, abs=15)  # speech starts at 2:25
