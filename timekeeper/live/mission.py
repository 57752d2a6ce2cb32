"""`live` as one pipeline: check the device, prepare and mix everything, open the output, run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from timekeeper.environment import current
from timekeeper.grammar.script import Timeline
from timekeeper.grammar.times import format_time
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
    start_ms = resume_point(prepared.timeline, options.start_ms)
    if start_ms != options.start_ms:
        options = replace(options, start_ms=start_ms)
        if warn is not None:
            under_way = next(cue for cue in prepared.timeline.cues if cue.at_ms == start_ms)
            warn(f"starting at {format_time(start_ms, precise=True)}, where the {under_way.kind.value.replace('_', ' ')} "
                 "under way then begins, so it is heard whole")
    mix = premix(prepared, options.start_ms, mixing)
    output = open_output(options.backend, PcmFormat(mix.sample_rate, mix.channels, mix.sample_width))
    return play(mix, output, options)


def resume_point(timeline: Timeline, start_ms: int) -> int:
    """Where to start playing for a mission resumed at `start_ms`: the start of the earliest
    announcement still under way then (a phase-end countdown, a data transfer), so nobody misses
    its words; `start_ms` itself when none is."""
    return min((cue.at_ms for cue in timeline.cues if cue.at_ms < start_ms < cue.end_ms), default=start_ms)


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
