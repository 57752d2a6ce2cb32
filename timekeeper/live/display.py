"""What the players see: a full-screen view on a terminal, or one line per cue when piped.

Only what has already happened is shown (plus, in prompter mode, the next words to read).
"""

from __future__ import annotations

import os
import select
import shutil
import stat
import time
from dataclasses import dataclass, field
from typing import IO, Any

from timekeeper.environment import current as current_environment
from timekeeper.grammar.phrases import phrase_book
from timekeeper.grammar.script import Cue, CueKind, Sound, Speech, Timeline
from timekeeper.grammar.times import format_time
from timekeeper.i18n import messages, translate, ui_language
from timekeeper.model import CommsDown

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
    ended_at_ms: int | None = None  # the real mission time when `e` ended the action round

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
            if isinstance(cue.event, CommsDown) and cue.kind is CueKind.COMMS_DOWN and cue.at_ms <= self.now_ms < cue.event.until_ms:
                return True
        return False

    def __post_init__(self) -> None:
        messages(ui_language(self.timeline.language))  # the catalogue read now, before the clock starts

    def say(self, key: str, **values: object) -> str:
        """The prompter's message `key` (prompter.* in the catalogues) in the language of the run."""
        return translate(self.timeline.language, f"prompter.{key}", **values)

    @property
    def can_end_early(self) -> bool:
        ends = self.timeline.phase_ends_ms
        return len(ends) > 2 and ends[-2] <= self.now_ms < ends[-1]


def shown_text(cue: Cue, language: str) -> str:
    """The words of `cue` as the screen shows them: a threat also names its threat pile (never spoken)."""
    pile = getattr(cue.event, "pile", None)
    if pile is None or cue.kind is not CueKind.THREAT:
        return cue.text
    from timekeeper.grammar.phrases import phrase_book

    return f"{cue.text} [{phrase_book(language).word(f'pile_{pile.value}')}]"


def cue_line(cue: Cue, language: str = "en") -> str:
    return f"{format_time(cue.at_ms)} {shown_text(cue, language)}"


class LineDisplay:
    """Piped output: one flushed line per cue as it starts, `m:ss` first."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.out: IO[str] | None = out or current_environment().streams.stdout
        self.err = err or current_environment().streams.stderr
        self._prompted: set[int] = set()
        self._poll = _pipe_poll(self.out)

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
        if self._reader_gone():
            raise BrokenPipeError("the reader of the output went away")
        cue = state.upcoming
        if state.prompter and cue is not None and id(cue) not in self._prompted:
            if cue.at_ms - state.now_ms <= PROMPT_LEAD_MS:
                self._prompted.add(id(cue))
                lead_s = max(0, round((cue.at_ms - state.now_ms) / 1000))
                self._write(f"{format_time(round(state.now_ms))} next at {format_time(cue.at_ms)} (in {lead_s} s): {prompt_text(cue, state.timeline.language)}")

    def _reader_gone(self) -> bool:
        """True when stdout is a pipe whose reader has closed it (`live ... | head -1`): seen at once,
        not only at the next line, which may be minutes away."""
        if self._poll is None:
            return False
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in self._poll.poll(0))

    def _write(self, line: str) -> None:
        if self.out is None:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except BrokenPipeError:  # the reader went away (`| head -1`): stop the mission, quietly
            self.out = None
            raise


def _pipe_poll(out: IO[str]) -> Any:
    """A poll object watching `out` if it is a pipe (where a closed reader shows as POLLERR), else None."""
    try:
        fd = out.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) or not hasattr(select, "poll"):
            return None
    except (AttributeError, OSError, ValueError):
        return None
    poll = select.poll()
    poll.register(fd, select.POLLERR | select.POLLHUP)
    return poll


class TerminalDisplay:
    """A full-screen view redrawn a few times a second on the alternate screen.

    It fits any terminal: announcements wrap (the newest in full, older ones in a compact
    "T+8 Threat BLUE ?" form when space is short), the clock is drawn in large digits when there is
    room, status notes ("Paused.", "Carrying on.") fade after NOTE_SECONDS, and the key hints
    show only when keys can be typed (stdin is a terminal).
    """

    def __init__(self, out: IO[str] | None = None, *, key_hints: bool | None = None) -> None:
        self.out = out or current_environment().streams.stdout
        self._last: Any = None
        self._notes: list[tuple[str, float]] = []  # (text, monotonic time it fades)
        self.key_hints = _stdin_is_terminal() if key_hints is None else key_hints

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
        at_ms = state.ended_at_ms if state.ended_at_ms is not None else round(state.now_ms)
        line = f"{format_time(at_ms)} {text}"
        self._notes = (self._notes + [(line, time.monotonic() + NOTE_SECONDS)])[-2:]
        self.refresh(state, force=True)

    def error(self, text: str, state: LiveState) -> None:
        self.note(state.say("error", text=text), state)

    def refresh(self, state: LiveState, force: bool = False) -> None:
        now = time.monotonic()
        self._notes = [(text, fades) for text, fades in self._notes if fades > now]
        width, height = self._size()
        key = (int(state.now_ms // REDRAW_MS), len(state.made), state.paused, state.asking_quit, state.failure,
               len(self._notes), width, height, state.ended_at_ms)
        if key == self._last and not force:
            return
        self._last = key
        lines = [_fit(line, width) for line in self.lines(state, height, width)][:height]
        self.out.write("\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[K\x1b[J")  # no newline after the last: no scrolling
        self.out.flush()

    def _size(self) -> tuple[int, int]:
        """The terminal's real size (not $COLUMNS/$LINES, which go stale when a window is resized)."""
        try:
            size = os.get_terminal_size(self.out.fileno())
            return max(20, size.columns), max(5, size.lines)
        except (AttributeError, OSError, ValueError):
            return shutil.get_terminal_size((80, 24))

    def lines(self, state: LiveState, height: int, width: int = 80) -> list[str]:
        """The screen, top to bottom: at most `height` lines of at most `width` columns."""
        top = [f" {state.title}   [{state.backend}]"] + self._clock(state, height, width)
        if state.paused:
            top.append("   " + state.say("paused"))
        if state.comms_down():
            words = phrase_book(state.timeline.language)
            top.append(f"   ###  {words.word('comms_down').upper()} — {words.word('no_talking')}  ###")
        bottom = self._prompter(state, width) if state.prompter else []
        bottom += [f" {text}" for text, _ in self._notes]
        if state.failure:
            bottom.append(f" ! {state.failure}")
        if state.asking_quit:
            bottom.append(" " + state.say("quit_question"))
        elif self.key_hints:
            keys = " " + state.say("keys")
            bottom.append(keys + (" · " + state.say("key_end") if state.can_end_early else ""))
        room = height - len(top) - len(bottom) - 1
        if room < 2:  # a small terminal: the clock, the words to read and the quit question come first
            question = bottom[-1:] if state.asking_quit else []
            top = [self._clock_line(state, width)]
            to_read = self._prompter(state, width, limit=max(0, height - 2 - len(question))) if state.prompter else []
            bottom = to_read + question
            if height - 1 - len(top) - len(bottom) >= 2:
                top.insert(0, f" {state.title}   [{state.backend}]")
            room = max(0 if to_read else 1, height - len(top) - len(bottom) - 1)
        log = announcement_lines(state, room - 1, width) if room > 1 else announcement_lines(state, room, width)
        header = [" " + state.say("announcements")] if room > 1 else []
        return top + header + log + [""] * (room - len(header) - len(log)) + bottom

    def _clock(self, state: LiveState, height: int, width: int) -> list[str]:
        line = self._clock_line(state, width)
        scale = big_clock_scale(height, width)
        if scale == 0:
            return ["", line, ""] if height >= 20 else [line]
        big = big_digits(self._shown_clock(state), scale)
        pad = " " * max(0, (width - len(big[0])) // 2)
        return [""] + [pad + row for row in big] + ["", line, ""]

    @staticmethod
    def _shown_clock(state: LiveState) -> str:
        return format_time(state.ended_at_ms if state.ended_at_ms is not None else int(state.now_ms))

    def _clock_line(self, state: LiveState, width: int) -> str:
        """The mission time and the phase, in one line of at most `width` columns where it can be."""
        phase, left_ms = state.phase()
        phases = len(state.timeline.phase_ends_ms)
        clock = self._shown_clock(state)
        left = format_time(int(-(-left_ms // 1000)) * 1000)
        ended = state.ended_at_ms is not None
        status = state.say("round_ended") if ended else state.say("phase_status", phase=phase, phases=phases, left=left)
        line = f"   {state.say('mission_time')}  {clock}      {status}"
        if len(line) > width:
            short = state.say("ended_short") if ended else state.say("phase_short", phase=phase, phases=phases, left=left)
            line = f" {state.say('mission_time')} {clock} · {short}"
            if len(line) > width:  # a very narrow terminal: the times matter, the words less
                line = f" {clock}  {short}"
        return line

    def _prompter(self, state: LiveState, width: int, limit: int | None = None) -> list[str]:
        """The words to read now (the part being spoken marked >>) and the next ones. With `limit` (a
        small terminal) at most that many lines, kept in this order: the READ NOW heading, the part
        being read, the NEXT heading, the parts after it, the next words, the parts already read."""
        reading: list[str] = []  # the lines under READ NOW
        first = 0  # the first of them not read yet
        current = state.made[-1] if state.made else None
        if current is not None and current.at_ms <= state.now_ms < current.end_ms:
            first = -1
            for part in current.parts:
                if isinstance(part, Sound) and part.key not in PROMPT_SOUNDS:
                    continue
                if first < 0 and state.now_ms < part.end_ms:
                    first = len(reading)
                mark = ">>" if part.at_ms <= state.now_ms < part.end_ms else "  "
                words = part.text if isinstance(part, Speech) else sound_mark(part.key, state.timeline.language)
                reading += _wrapped(f"  {mark} {format_time(part.at_ms)}  ", words, width)
            first = len(reading) if first < 0 else first
            read_now = [" " + state.say("read_now")]
        else:
            read_now = []
        coming: list[str] = []  # the lines under NEXT
        cue = state.upcoming
        if cue is not None and cue.at_ms - state.now_ms <= PROMPT_LEAD_MS:
            wait_s = max(0, -(-int(cue.at_ms - state.now_ms) // 1000))
            coming = [" " + state.say("next_at", time=format_time(cue.at_ms), seconds=wait_s)] + _wrapped("     ", prompt_text(cue, state.timeline.language), width)
        lines = read_now + reading + coming
        if limit is None or len(lines) <= limit:
            return lines
        # which lines a small terminal keeps, most needed first; they are shown in their own order
        ranks = [(0, 0)] * len(read_now) + [(1, 0) if index == first else (3, index) if index > first else (5, -index)
                                            for index in range(len(reading))]
        ranks += [(2, 0) if index == 0 else (4, index) for index in range(len(coming))]
        kept = sorted(sorted(range(len(lines)), key=lambda index: ranks[index])[:limit])
        return [lines[index] for index in kept]


NOTE_SECONDS = 4.0  # how long a status note ("Paused.", "Carrying on.") stays on the screen
PROMPT_SOUNDS = ("alert", "beep")  # sounds the prompter marks for the reader


def sound_mark(key: str, language: str = "en") -> str:
    """Sound `key` as the prompter marks it, in the printed words of `language`: "[KLAXON]"."""
    return f"[{(phrase_book(language).sound(key) or key).upper()}]"


def prompt_text(cue: Cue, language: str = "en") -> str:
    """The words of `cue` with its klaxon and transfer beep marked where they sound."""
    pieces = []
    for part in cue.parts:
        if isinstance(part, Sound):
            if part.key in PROMPT_SOUNDS:
                pieces.append(sound_mark(part.key, language))
        else:
            pieces.append(part.text)
    return " ".join(pieces)


def announcement_lines(state: LiveState, room: int, width: int) -> list[str]:
    """The announcements made so far that fit in `room` lines: the newest wrapped in full, older
    ones wrapped while there is space, else in their compact form, oldest dropped first."""
    picked: list[list[str]] = []
    left = room
    for cue in reversed(state.made):
        if left <= 0:
            break
        full = _wrapped(f"   {format_time(cue.at_ms)}  ", shown_text(cue, state.timeline.language), width)
        chosen = full if len(full) <= left and (not picked or len(full) <= max(1, left - 1)) else None
        if chosen is None:
            chosen = [_fit(f"   {format_time(cue.at_ms)}  {compact_text(cue, state.timeline.language)}", width)]
        picked.append(chosen)
        left -= len(chosen)
    return [line for block in reversed(picked) for line in block]


def compact_text(cue: Cue, language: str = "en") -> str:
    """A short form of `cue` that keeps what players need: "T+8 Threat BLUE ?",
    "Communications down until 4:20", or the first words of anything else."""
    from timekeeper.cards.rows import event_row
    from timekeeper.grammar.phrases import phrase_book

    if cue.event is not None and cue.kind in (CueKind.THREAT, CueKind.INCOMING_DATA, CueKind.DATA_TRANSFER,
                                               CueKind.COMMS_DOWN):
        row = event_row(cue.event, phrase_book(language), "")
        pieces = [row.turn, row.what, row.zone_name.upper(), row.detail, "?" if row.unconfirmed else ""]
        return " ".join(piece for piece in pieces if piece)
    return cue.text


def big_clock_scale(height: int, width: int) -> int:
    """0 (one text line), 1 (digits 5 rows high) or 2 (10 rows, twice as wide) for this terminal."""
    if height >= 40 and width >= 90:
        return 2
    if height >= 26 and width >= 50:
        return 1
    return 0


_GLYPHS = {
    "0": ("###", "# #", "# #", "# #", "###"), "1": ("  #", "  #", "  #", "  #", "  #"),
    "2": ("###", "  #", "###", "#  ", "###"), "3": ("###", "  #", "###", "  #", "###"),
    "4": ("# #", "# #", "###", "  #", "  #"), "5": ("###", "#  ", "###", "  #", "###"),
    "6": ("###", "#  ", "###", "# #", "###"), "7": ("###", "  #", "  #", "  #", "  #"),
    "8": ("###", "# #", "###", "# #", "###"), "9": ("###", "# #", "###", "  #", "###"),
    ":": (" ", "#", " ", "#", " "), "-": ("   ", "   ", "###", "   ", "   "),
}


def big_digits(text: str, scale: int = 1) -> list[str]:
    """`text` (digits and colons) in block letters, 5 * scale rows high."""
    rows = []
    for row in range(5):
        line = "  ".join(_GLYPHS.get(char, _GLYPHS["-"])[row] for char in text)
        line = "".join(("█" if char == "#" else " ") * (2 * scale) for char in line)
        rows += [line.rstrip()] * scale
    return rows


def _wrapped(lead: str, text: str, width: int) -> list[str]:
    """`text` wrapped after `lead`, continuation lines indented to match; at least one line."""
    import textwrap

    room = max(10, width - len(lead) - 1)
    pieces = textwrap.wrap(text, room) or [""]
    return [lead + pieces[0]] + [" " * len(lead) + piece for piece in pieces[1:]]


def _fit(line: str, width: int) -> str:
    return line if len(line) < width else line[: max(0, width - 2)] + "…"


def _stdin_is_terminal() -> bool:
    try:
        stdin = current_environment().streams.stdin
        return stdin is not None and stdin.isatty()
    except (AttributeError, ValueError):
        return False
