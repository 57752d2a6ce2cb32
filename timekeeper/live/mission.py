"""`live` as one pipeline: check the device, prepare and mix everything, open the output, run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from timekeeper.environment import current
from timekeeper.live.devices import open_output
from timekeeper.live.outputs import AudioOutput, PcmFormat
from timekeeper.live.premix import premix
from timekeeper.live.session import LiveResult, Mix, run_live
from timekeeper.model import Scenario

if TYPE_CHECKING:
    from timekeeper.soundtrack.mix import MixSettings

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LiveOptions:
    backend: str = "miniaudio"
    start_ms: int = 0
    title: str = ""


def live_mission(
    scenario: Scenario,
    settings: MixSettings,
    options: LiveOptions,
    preparing: Progress | None = None,
    mixing: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> LiveResult:
    """Run `scenario` live. Speech is synthesized and the whole track mixed before the clock starts."""
    check_backend(options.backend)
    prepared = prepare(scenario, settings, preparing)
    for warning in getattr(prepared, "warnings", ()):
        if warn is not None:
            warn(warning)
    mix = premix(prepared, options.start_ms, mixing)
    output = open_output(options.backend, PcmFormat(mix.sample_rate, mix.channels, mix.sample_width))
    return play(mix, output, options)


def check_backend(backend: str) -> None:
    """Fail before the long preparation when the backend cannot work here (PlaybackError)."""
    open_output(backend, PcmFormat(44100, 1)).close()


def prepare(scenario: Scenario, settings: MixSettings, progress: Progress | None) -> Mix:
    """Synthesize (or load from the cache) every phrase and lay out the timeline: `render`'s mix."""
    from timekeeper.soundtrack.mix import prepare_mix

    return prepare_mix(scenario, settings, progress=progress)


def play(mix: Mix, output: AudioOutput, options: LiveOptions) -> LiveResult:
    """Stream `mix` with the screen that suits stdout: full-screen on a terminal, lines otherwise."""
    from timekeeper.live.clock import Clock
    from timekeeper.live.display import LineDisplay, TerminalDisplay
    from timekeeper.live.keys import Keys

    streams = current().streams
    clock = Clock(options.start_ms)
    display = TerminalDisplay(streams.stdout) if streams.stdout.isatty() else LineDisplay(streams.stdout, streams.stderr)
    with Keys(streams.stdin, source=clock.source) as keys, display:
        return run_live(mix, output, display, keys, start_ms=options.start_ms, title=options.title, clock=clock)
