"""What the players see: a full-screen view on a terminal, or one line per cue when piped.

Only what has already happened is shown (plus, in prompter mode, the next words to read).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from typing import IO, Any

from timekeeper.script import Cue, CueKind, Timeline
from timekeeper.times import format_time
from timekeeper.voice.phrases import phrase_book

PROMPT_LEAD_MS = 5000  # the prompter shows an announcement this long before it is due
REDRAW_MS = 100


@dataclass
class LiveState:
    """Everything the screen may show at one moment of the mission."""

    timeline: Timeline
    title: str
    backend: str
    prompter: bool = False
    now_ms: float = 0.0
    made: list[Cue] = field(default_factory=list)
    upcoming: Cue | None = None  # only shown in prompter mode
    paused: bool = False
    asking_quit: bool = False
    failure: str | None = None

    def phase(self) -> tuple[int, float]:
        """(1-based phase, ms left in it) at `now_ms`."""
        ends = self.timeline.phase_ends_ms
        for index, end_ms in enumerate(ends):
            if self.now_ms < end_ms:
                return index + 1, end_ms - self.now_ms
        return len(ends), 0.0

    def comms_down(self) -> bool:
        """True while an outage that has been announced is not over yet."""
        for cue in self.made:
            if cue.kind is CueKind.COMMS_DOWN and cue.at_ms <= self.now_ms < cue.event.until_ms:  # type: ignore[union-attr]
                return True
        return False

    @property
    def can_end_early(self) -> bool:
        ends = self.timeline.phase_ends_ms
        return len(ends) > 2 and ends[-2] <= self.now_ms < ends[-1]


def shown_text(cue: Cue, language: str) -> str:
    """The words of `cue` as the screen shows them: a threat also names its threat pile (never spoken)."""
    pile = getattr(cue.event, "pile", None)
    if pile is None or cue.kind is not CueKind.THREAT:
        return cue.text
    from timekeeper.voice.phrases import phrase_book

    return f"{cue.text} [{phrase_book(language).word(f'pile_{pile.value}')}]"


def cue_line(cue: Cue, language: str = "en") -> str:
    return f"{format_time(cue.at_ms)} {shown_text(cue, language)}"


class LineDisplay:
    """Piped output: one flushed line per cue as it starts, `m:ss` first."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._prompted: set[int] = set()

    def __enter__(self) -> LineDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def cue_started(self, cue: Cue, state: LiveState) -> None:
        self._write(cue_line(cue, state.timeline.language))

    def note(self, text: str, state: LiveState) -> None:
        self._write(f"{format_time(round(state.now_ms), precise=True)} {text}")

    def error(self, text: str, state: LiveState) -> None:
        print(f"Error at {format_time(round(state.now_ms))}: {text}", file=self.err, flush=True)

    def refresh(self, state: LiveState) -> None:
        cue = state.upcoming
        if state.prompter and cue is not None and id(cue) not in self._prompted:
            if cue.at_ms - state.now_ms <= PROMPT_LEAD_MS:
                self._prompted.add(id(cue))
                lead_s = max(0, round((cue.at_ms - state.now_ms) / 1000))
                self._write(f"{format_time(round(state.now_ms))} next at {format_time(cue.at_ms)} (in {lead_s} s): {cue.text}")

    def _write(self, line: str) -> None:
        if self.out is None:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except BrokenPipeError:  # the reader went away; the mission (and the sound) carry on
            self.out = None  # type: ignore[assignment]


class TerminalDisplay:
    """A full-screen view redrawn a few times a second on the alternate screen."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self._last: Any = None
        self._notes: list[str] = []

    def __enter__(self) -> TerminalDisplay:
        self.out.write("\x1b[?1049h\x1b[?25l")
        self.out.flush()
        return self

    def __exit__(self, *exc: object) -> None:
        self.out.write("\x1b[?25h\x1b[?1049l")
        self.out.flush()

    def cue_started(self, cue: Cue, state: LiveState) -> None:
        self.refresh(state, force=True)

    def note(self, text: str, state: LiveState) -> None:
        self._notes = (self._notes + [f"{format_time(round(state.now_ms))} {text}"])[-3:]
        self.refresh(state, force=True)

    def error(self, text: str, state: LiveState) -> None:
        self.note(f"ERROR: {text}", state)

    def refresh(self, state: LiveState, force: bool = False) -> None:
        key = (int(state.now_ms // REDRAW_MS), len(state.made), state.paused, state.asking_quit, state.failure)
        if key == self._last and not force:
            return
        self._last = key
        width, height = shutil.get_terminal_size((80, 24))
        lines = [line[: width - 1] for line in self.lines(state, height)]
        self.out.write("\x1b[H" + "".join(line + "\x1b[K\n" for line in lines) + "\x1b[J")
        self.out.flush()

    def lines(self, state: LiveState, height: int) -> list[str]:
        phase, left_ms = state.phase()
        phases = len(state.timeline.phase_ends_ms)
        top = [
            f" {state.title}   [{state.backend}]",
            "",
            f"   MISSION TIME  {format_time(int(state.now_ms))}"
            f"      PHASE {phase} of {phases}  ·  {format_time(int(-(-left_ms // 1000)) * 1000)} left",
            "",
        ]
        if state.paused:
            top += ["   ‖ PAUSED — press space to continue", ""]
        if state.comms_down():
            words = phrase_book(state.timeline.language)
            top += [f"   ###  {words.word('comms_down').upper()} — {words.word('no_talking')}  ###", ""]
        bottom = self._prompter(state) if state.prompter else []
        bottom += [""] + self._notes
        if state.failure:
            bottom.append(f" ! {state.failure}")
        if state.asking_quit:
            bottom.append(" Quit the mission? y = quit, any other key = carry on")
        else:
            keys = " space pause/resume · q quit"
            bottom.append(keys + (" · e end the mission now" if state.can_end_early else ""))
        room = max(1, height - len(top) - len(bottom) - 2)
        log = [f"   {format_time(cue.at_ms)}  {shown_text(cue, state.timeline.language)}" for cue in state.made[-room:]]
        return top + [" Announcements:"] + log + [""] * (room - len(log)) + bottom

    def _prompter(self, state: LiveState) -> list[str]:
        lines = []
        current = state.made[-1] if state.made else None
        if current is not None and current.at_ms <= state.now_ms < current.end_ms:
            lines.append(" READ NOW:")
            for part in current.speech:
                mark = ">>" if part.at_ms <= state.now_ms < part.end_ms else "  "
                lines.append(f"  {mark} {format_time(part.at_ms)}  {part.text}")
        cue = state.upcoming
        if cue is not None and cue.at_ms - state.now_ms <= PROMPT_LEAD_MS:
            wait_s = max(0, -(-int(cue.at_ms - state.now_ms) // 1000))
            lines += [f" NEXT at {format_time(cue.at_ms)} — read in {wait_s} s:", f"     {cue.text}"]
        return lines
