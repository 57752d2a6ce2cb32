"""`live` as one pipeline: check the device, prepare the mix, open the output, run the session."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable

from timekeeper.live.outputs import PcmFormat, open_output
from timekeeper.live.session import LiveResult, Mix, run_live
from timekeeper.model import Scenario

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LiveOptions:
    backend: str = "miniaudio"
    start_ms: int = 0
    title: str = ""


def live_mission(scenario: Scenario, settings: object, options: LiveOptions, progress: Progress | None = None) -> LiveResult:
    """Run `scenario` live: everything is mixed before the clock starts. `settings` is a MixSettings."""
    check_backend(options.backend)
    mix = prepare(scenario, settings, progress)
    output = open_output(options.backend, PcmFormat(mix.sample_rate, mix.channels, mix.sample_width))
    return play(mix, output, options)


def check_backend(backend: str) -> None:
    """Fail before the long preparation when the backend cannot work here (PlaybackError)."""
    open_output(backend, PcmFormat(44100, 2)).close()


def prepare(scenario: Scenario, settings: object, progress: Progress | None) -> Mix:
    from timekeeper.mix import prepare_mix

    return prepare_mix(scenario, settings, progress=progress)


def play(mix: Mix, output: object, options: LiveOptions) -> LiveResult:
    """Stream `mix` with the screen that suits stdout: full-screen on a terminal, lines otherwise."""
    from timekeeper.live.display import LineDisplay, TerminalDisplay
    from timekeeper.live.keys import Keys

    display = TerminalDisplay() if sys.stdout.isatty() else LineDisplay()
    with Keys() as keys, display:
        return run_live(mix, output, display, keys, start_ms=options.start_ms, title=options.title)  # type: ignore[arg-type]
