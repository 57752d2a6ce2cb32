"""FlashPlayerCode, the comma-separated track form fan tools share, to and from the Scenario model.

A code is tokens `<time><code>`: the time is minutes followed by two digits of seconds
(`010` = 0:10, `1030` = 10:30; a seconds field of 60 or more is read as minutes*60+seconds).
Codes: `AL<n><type>[zone]` / `UR<n><type>[zone]` a confirmed / unconfirmed threat for T+n
(type T, ST, IT, SIT; zone R, W, B for external threats only), `ID` incoming data, `DT` data
transfer, `CS<seconds>` communications down, `PE<n>` the moment phase n really ends (the last
one ends the mission). Two threats with the same n make a double-threat track.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from timekeeper.errors import ScenarioError
from timekeeper.grammar.times import format_time
from timekeeper.i18n import Said, WordedError, said, words_of
from timekeeper.model import (
    MAX_PHASES,
    Announcement,
    CommsDown,
    DataTransfer,
    Event,
    IncomingData,
    Scenario,
    Threat,
    Zone,
)
from timekeeper.scenario.load import MAX_EVENTS
from timekeeper.scenario.problems import Severity
from timekeeper.scenario.rules import check_scenario

DEFAULT_TITLE = str(said("title.imported"))  # the title timekeeper gives an imported code (said in any language)
MAX_TOKENS = MAX_EVENTS + MAX_PHASES

_TOKEN = re.compile(
    r"(?P<time>\d{1,5})(?:"
    r"(?P<threat>AL|UR)(?P<turn>\d)(?P<type>SIT|IT|ST|T)(?P<zone>[RWB]?)"
    r"|(?P<simple>ID|DT)"
    r"|CS(?P<outage>\d{1,4})"
    r"|PE(?P<phase>\d)"
    r")",
    re.ASCII,
)
_CODE_START = re.compile(r"\d*([A-Z]*)")
_ZONES = {"R": Zone.RED, "W": Zone.WHITE, "B": Zone.BLUE}
_ZONE_LETTERS = {zone: letter for letter, zone in _ZONES.items()}
_KNOWN_CODES = ("AL", "UR", "ID", "DT", "CS", "PE")


@dataclass(frozen=True)
class Token:
    """One token of a code: its number (1-based), the column (1-based) where it starts, its text."""

    number: int
    column: int
    text: str

    def where(self) -> Said:
        return said("problem.code.token", number=self.number, column=self.column, text=repr(self.text))

    def says(self, problem: Said | str) -> Said:
        """`problem` at this token: "token 2 (column 10) '050XX': ..."."""
        return said("problem.code.at", token=self.where(), problem=problem)


def parse_flashcode(code: str, title: str = DEFAULT_TITLE, *, first_column: int = 1) -> Scenario:
    """The scenario of FlashPlayerCode `code`, checked by the scenario rules.

    Raises ScenarioError naming the token number, column and text of every problem found;
    columns count from `first_column` (where the code starts in its line).
    """
    return _parse(code, title, first_column, repair=False)[0]


def repair_flashcode(code: str, title: str = DEFAULT_TITLE, *, first_column: int = 1) -> tuple[Scenario, list[str]]:
    """Like parse_flashcode, but repairs the known defects of the Java generator's codes.

    Overlapping outages are merged into one; a phase end lost to an event at the same second (the
    generator wrote the event instead of the PE token) is put back at that event. Returns the
    scenario and one warning per repair, naming the tokens. Other problems still raise.
    """
    return _parse(code, title, first_column, repair=True)


def _parse(code: str, title: str, first_column: int, repair: bool) -> tuple[Scenario, list[str]]:
    tokens = split_tokens(code, first_column)
    if not tokens:
        raise ScenarioError(said("problem.code.empty"))
    if len(tokens) > MAX_TOKENS:
        raise ScenarioError(said("problem.code.too_many", count=f"{len(tokens):,}", events=MAX_EVENTS, phases=MAX_PHASES))
    problems: list[Said] = []
    events: list[tuple[Event, Token]] = []
    phase_ends: dict[int, tuple[int, Token]] = {}
    for token in tokens:
        try:
            item = _parse_token(token)
        except ValueError as error:
            problems.append(token.says(words_of(error)))
            continue
        if isinstance(item, tuple):
            number, at_ms = item
            if number in phase_ends:
                problems.append(token.says(said("problem.code.phase_again", number=number, at=format_time(phase_ends[number][0]),
                                                token=phase_ends[number][1].where())))
            phase_ends[number] = (at_ms, token)
        else:
            events.append((item, token))
    if problems:
        raise ScenarioError.listing(problems)
    events.sort(key=lambda pair: pair[0].at_ms)
    repairs: list[str] = []
    if repair:
        events, repairs = _merge_outages(events)
        repairs += _restore_phase_ends(phase_ends, events)
    problems += _phase_problems(phase_ends, tokens)
    if problems:
        raise ScenarioError.listing(problems + ([] if repair else _repair_hint(problems)))
    turns = [event.turn for event, _ in events if isinstance(event, Threat)]
    scenario = Scenario(
        title=title,
        phase_ends_ms=tuple(phase_ends[n][0] for n in sorted(phase_ends)),
        events=tuple(event for event, _ in events),
        double_threats=len(turns) != len(set(turns)),
    )
    try:
        _check(scenario, [token for _, token in events], [phase_ends[n][1] for n in sorted(phase_ends)])
    except ScenarioError as error:
        found = [words or line for line, words in zip(error.lines, error.lines_said)]
        raise ScenarioError.listing([*found, *([] if repair else _repair_hint(error.lines))]) from None
    return scenario, repairs


def _repair_hint(problems: Sequence[object]) -> list[Said]:
    """A pointer to --repair (a line to add) when a problem is one of the Java generator's known defects."""
    english = [str(problem) for problem in problems]
    known = any("is missing (the code has" in p or "communications outage at" in p and "overlaps" in p for p in english)
    return [said("problem.code.repair_hint")] if known else []


def _merge_outages(events: list[tuple[Event, Token]]) -> tuple[list[tuple[Event, Token]], list[str]]:
    """Merge each outage that starts before the previous one ends into it (events in time order)."""
    kept: list[tuple[Event, Token]] = []
    warnings = []
    last: int | None = None  # index in `kept` of the latest outage
    for event, token in events:
        if isinstance(event, CommsDown) and last is not None:
            previous, previous_token = kept[last]
            assert isinstance(previous, CommsDown)
            if event.at_ms < previous.until_ms:
                merged = CommsDown(previous.at_ms, max(previous.until_ms, event.until_ms))
                warnings.append(
                    f"repaired {token.where()}: its outage {_span(event)} overlaps the outage {_span(previous)} of "
                    f"{previous_token.where()}; merged into one outage {_span(merged)}")
                kept[last] = (merged, previous_token)
                continue
        if isinstance(event, CommsDown):
            last = len(kept)
        kept.append((event, token))
    return kept, warnings


def _span(outage: CommsDown) -> str:
    return f"{format_time(outage.at_ms)}-{format_time(outage.until_ms)}"


def _restore_phase_ends(phase_ends: dict[int, tuple[int, Token]], events: list[tuple[Event, Token]]) -> list[str]:
    """Put back a missing PE<n> below the highest one at the event it was lost to.

    The lost end lies between its neighbours, at the second of an event that keeps T+1..T+4 in
    phase 1 and T+5..T+8 in phase 2; of those, the one nearest the middle of its neighbours wins
    (a phase end at the same second as an event happens where a phase's first event starts).
    """
    warnings: list[str] = []
    if not phase_ends:
        return warnings
    for number in range(1, max(phase_ends)):
        if number in phase_ends:
            continue
        before_ms = phase_ends[number - 1][0] if number - 1 in phase_ends else 0
        after_ms = next(phase_ends[n][0] for n in sorted(phase_ends) if n > number)
        candidates = [(event, token) for event, token in events
                      if before_ms < event.at_ms < after_ms and _splits_turns(event.at_ms, number, events)]
        if not candidates:
            continue  # nothing to repair it with: reported as missing
        middle_ms = (before_ms + after_ms) / 2
        event, token = min(candidates, key=lambda pair: (abs(pair[0].at_ms - middle_ms), pair[0].at_ms))
        phase_ends[number] = (event.at_ms, token)
        warnings.append(f"repaired: phase end PE{number} is missing; put back at {format_time(event.at_ms)}, "
                        f"the second of {token.where()} (an event at the same second took its place)")
    return warnings


def _splits_turns(at_ms: int, number: int, events: list[tuple[Event, Token]]) -> bool:
    """True when a phase `number` ending at `at_ms` keeps every threat in the phase of its turn."""
    for event, _ in events:
        if isinstance(event, Threat):
            phase = (event.turn - 1) // 4 + 1
            if (phase <= number) != (event.at_ms < at_ms):
                return False
    return True


def split_tokens(code: str, first_column: int = 1) -> list[Token]:
    """The non-empty comma-separated tokens of `code`, as written, with their positions."""
    tokens: list[Token] = []
    column = first_column
    for raw in code.split(","):
        stripped = raw.strip()
        if stripped:
            start = column + len(raw) - len(raw.lstrip())
            tokens.append(Token(len(tokens) + 1, start, stripped))
        column += len(raw) + 1
    return tokens


def _parse_token(token: Token) -> Event | tuple[int, int]:
    """An event, or (phase number, end in ms) for a PE token; ValueError says what is wrong."""
    text = token.text.replace(" ", "").upper()
    match = _TOKEN.fullmatch(text)
    if match is None:
        raise WordedError(_explain(text))
    at_ms = _time_ms(match["time"])
    if match["threat"]:
        turn = int(match["turn"])
        if not 1 <= turn <= 8:
            raise WordedError("problem.code.turn", turn=turn)
        internal = match["type"] in ("IT", "SIT")
        if internal and match["zone"]:
            raise WordedError("problem.code.internal_zone")
        if not internal and not match["zone"]:
            raise WordedError("problem.code.external_zone")
        return Threat(at_ms, turn, None if internal else _ZONES[match["zone"]],
                      serious=match["type"].startswith("S"), unconfirmed=match["threat"] == "UR")
    if match["simple"]:
        return IncomingData(at_ms) if match["simple"] == "ID" else DataTransfer(at_ms)
    if match["outage"]:
        seconds = int(match["outage"])
        if seconds == 0:
            raise WordedError("problem.code.outage_zero")
        return CommsDown(at_ms, at_ms + seconds * 1000)
    number = int(match["phase"])
    if not 1 <= number <= MAX_PHASES:
        raise WordedError("problem.code.phase_number", number=number, most=MAX_PHASES)
    return number, at_ms


def _time_ms(digits: str) -> int:
    """`010` -> 0:10, `1030` -> 10:30, `360` -> 4:00: the last two digits are seconds."""
    minutes, seconds = digits[:-2] or "0", digits[-2:]
    return (int(minutes) * 60 + int(seconds)) * 1000


def _explain(text: str) -> Said:
    """Why `text` is not a token, as precisely as a glance can tell."""
    leading = re.match(r"\d*", text)  # always matches, perhaps nothing
    digits = leading.group() if leading else ""
    if not digits:
        return said("problem.code.no_time")
    if len(digits) > 5:
        return said("problem.code.long_time", digits=repr(digits))
    rest = text[len(digits):]
    if rest.startswith(("AL", "UR")):
        return said("problem.code.threat", rest=repr(rest), code=rest[:2])
    if rest.startswith("CS"):
        return said("problem.code.outage", rest=repr(rest))
    if rest.startswith("PE"):
        return said("problem.code.phase_end", rest=repr(rest))
    if rest.startswith(("ID", "DT")):
        return said("problem.code.after", rest=repr(rest[2:]), code=rest[:2])
    return said("problem.code.unknown", rest=repr(rest), codes=_KNOWN_CODES) if rest else said(
        "problem.code.no_code", digits=repr(digits))


def _phase_problems(phase_ends: dict[int, tuple[int, Token]], tokens: list[Token]) -> list[Said]:
    if not phase_ends:
        return [said("problem.code.no_phase_end", count=len(tokens))]
    numbers = sorted(phase_ends)
    missing = [n for n in range(1, numbers[-1] + 1) if n not in phase_ends]
    if missing:
        return [said("problem.code.missing_phase", number=missing[0], ends=", ".join(f"PE{n}" for n in numbers))]
    if len(numbers) < 2:
        return [said("problem.code.one_phase", at=format_time(phase_ends[1][0]))]
    return []


def _check(scenario: Scenario, event_tokens: list[Token], phase_tokens: list[Token]) -> None:
    """Raise ScenarioError for every rule the scenario breaks, located at its token."""
    problems: list[Said] = []
    for finding in check_scenario(scenario, check_spacing=False):
        if finding.severity is not Severity.ERROR:
            continue
        if finding.event_index is not None:
            problems.append(event_tokens[finding.event_index].says(finding.said))
        elif finding.phase_index is not None and finding.phase_index < len(phase_tokens):
            problems.append(phase_tokens[finding.phase_index].says(finding.said))
        else:
            problems.append(finding.said)
    if problems:
        raise ScenarioError.listing(problems)


def format_flashcode(scenario: Scenario) -> str:
    """The FlashPlayerCode of `scenario`: events and phase ends in time order.

    Raises ScenarioError when the scenario holds what the code cannot say (free-text
    announcements, times that are not whole seconds).
    """
    problems: list[Said] = []
    items: list[tuple[int, int, str]] = []
    for index, event in enumerate(scenario.events):
        at = format_time(event.at_ms, precise=True)
        if isinstance(event, Announcement):
            problems.append(said("problem.code.free_text", number=index + 1, at=at))
            continue
        if event.at_ms % 1000 or (isinstance(event, CommsDown) and event.until_ms % 1000):
            problems.append(said("problem.code.event_seconds", number=index + 1, at=at))
            continue
        items.append((event.at_ms, 1, _time_code(event.at_ms) + _event_code(event)))
    for number, end_ms in enumerate(scenario.phase_ends_ms, start=1):
        if end_ms % 1000:
            problems.append(said("problem.code.phase_seconds", number=number, at=format_time(end_ms, precise=True)))
        items.append((end_ms, 0, f"{_time_code(end_ms)}PE{number}"))
    if problems:
        raise ScenarioError.listing([said("problem.code.cannot_write"), *problems], path=scenario.title)
    items.sort(key=lambda item: (item[0], item[1]))
    return ",".join(text for _, _, text in items)


def _time_code(at_ms: int) -> str:
    minutes, seconds = divmod(at_ms // 1000, 60)
    return f"{minutes}{seconds:02d}"


def _event_code(event: Event) -> str:
    if isinstance(event, Threat):
        kind = ("S" if event.serious else "") + ("IT" if event.internal else "T")
        zone = _ZONE_LETTERS[event.zone] if event.zone else ""
        return f"{'UR' if event.unconfirmed else 'AL'}{event.turn}{kind}{zone}"
    if isinstance(event, CommsDown):
        return f"CS{event.duration_ms // 1000}"
    return "ID" if isinstance(event, IncomingData) else "DT"


def same_track(first: Scenario, second: Scenario) -> bool:
    """True when both carry the same phase ends and events (what a FlashPlayerCode can hold)."""
    return first.phase_ends_ms == second.phase_ends_ms and first.events == second.events
