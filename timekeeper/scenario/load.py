"""YAML scenario file -> Scenario model, with every problem reported as file:line:col."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from timekeeper.errors import ScenarioError, Words
from timekeeper.grammar.languages import LANGUAGES
from timekeeper.grammar.phrases import has_words
from timekeeper.grammar.times import TimeProblem, format_time, parse_time_ms
from timekeeper.i18n import Rephrased, Said, said
from timekeeper.model import (
    MAX_PLAYERS,
    MAX_SEED,
    Announcement,
    CommsDown,
    DataTransfer,
    Event,
    EventType,
    IncomingData,
    Pile,
    Scenario,
    Threat,
    TrackKind,
    Zone,
)
from timekeeper.scenario import yamlnodes
from timekeeper.scenario.problems import Problem, Severity, errors
from timekeeper.scenario.rules import Finding, Timer, check_scenario

MAX_EVENTS = 500
MAX_CHARS = {"title": 200, "notes": 5000, "text": 300}  # longest title, notes and announcement text
MAX_DIGITS = len(str(MAX_SEED))  # no number in a scenario file is longer than a seed
MAX_PROBLEMS = 100  # problems reported per file; the rest are counted
MULTILINE_FIELDS = ("notes",)
_FORBIDDEN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufffe\uffff]")
_FORBIDDEN_MULTILINE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def text_problem(value: str, name: str = "text") -> Said | None:
    """What is wrong with `value` as the text field `name` (title, notes, text), or None: longer than
    MAX_CHARS, or holding a control character, NUL or lone surrogate (which no output can write), or
    a line break unless the field is `notes`. Command-line options with free text use it too."""
    limit = MAX_CHARS.get(name, MAX_CHARS["text"])
    if len(value) > limit:
        return said("problem.text.too_long", count=f"{len(value):,}", most=f"{limit:,}")
    forbidden = (_FORBIDDEN_MULTILINE if name in MULTILINE_FIELDS else _FORBIDDEN_LINE).search(value)
    if not forbidden:
        return None
    code = f"U+{ord(forbidden.group()):04X}"
    what = said("problem.text.line_break") if forbidden.group() in "\n\r\u2028\u2029" else said(
        "problem.text.control", code=code)
    if 0xD800 <= ord(forbidden.group()) <= 0xDFFF:
        what = said("problem.text.surrogate", code=code)
    where = forbidden.start() + 1
    if name in MULTILINE_FIELDS:
        return said("problem.text.unprintable", what=what, at=where)
    return said("problem.text.unprintable_line", what=what, at=where)


def printable_text(value: str) -> str:
    """`value` without the characters a one-line text field may not hold (for a title made from a file name)."""
    return _FORBIDDEN_LINE.sub("", value)


TOP_KEYS = (
    "title", "kind", "notes", "language", "players", "seed", "double_threats", "phase_ends", "events", "generator",
)
COMMON_EVENT_KEYS = ("at", "type", "double")
EVENT_KEYS = {  # the fields of each event type, by its `type` word
    EventType.THREAT.value: ("t", "zone", "serious", "unconfirmed", "pile"),
    EventType.INTERNAL.value: ("t", "serious", "unconfirmed", "pile"),
    EventType.INCOMING_DATA.value: (),
    EventType.DATA_TRANSFER.value: (),
    EventType.COMMS_DOWN.value: ("until", "duration"),
    EventType.ANNOUNCE.value: ("text",),
}


@dataclass
class LoadResult:
    """The scenario (None when errors stop it being built) and every problem found."""

    path: str
    scenario: Scenario | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.scenario is not None and not errors(self.problems)


def load_file(path: str | Path, display: str | None = None, *, timer: Timer | None = None) -> LoadResult:
    """Read and check one scenario file; never raises for bad content, only collects problems.
    `timer` lays out the announcements whose overlaps are warned of (rules.check_scenario)."""
    path = Path(path)
    display = display or str(path)
    try:
        text = yamlnodes.read_text(path, display)
        return load_text(text, display, timer=timer)
    except ScenarioError as error:
        return LoadResult(display, None, [Problem.of(display, error.line, error.column, error.said or error.detail)])


def load_text(text: str, display: str = "<scenario>", *, spacing: bool = True, timer: Timer | None = None) -> LoadResult:
    """Check scenario YAML `text`; `display` names it in messages. Without `spacing`, the warnings
    about packed announcements (which need the announcement timeline, laid out by `timer`) are skipped."""
    try:
        root = yamlnodes.compose(text, display)
    except ScenarioError as error:
        return LoadResult(display, None, [Problem.of(display, error.line, error.column, error.said or error.detail)])
    builder = _Builder(display, spacing, timer)
    scenario = builder.scenario(root)
    if builder.hidden:
        builder.problems.append(Problem.of(display, 0, 0, said("problem.file.more", count=f"{builder.hidden:,}")))
    return LoadResult(display, scenario, builder.problems)


class _Builder:
    """Walks the node tree, converting values and collecting problems instead of stopping."""

    def __init__(self, display: str, spacing: bool = True, timer: Timer | None = None) -> None:
        self.display = display
        self.spacing = spacing
        self.timer = timer
        self.hidden = 0  # problems beyond MAX_PROBLEMS
        self.problems: list[Problem] = []
        self.event_nodes: list[yaml.MappingNode] = []

    # -- reporting ---------------------------------------------------------------------------
    def error(self, node: yaml.Node | None, message: str | Words, severity: Severity = Severity.ERROR) -> None:
        if len(self.problems) >= MAX_PROBLEMS:
            self.hidden += 1
            return
        line, column = yamlnodes.position(node) if node is not None else (0, 0)
        self.problems.append(Problem.of(self.display, line, column, message, severity))

    # -- the document --------------------------------------------------------------------------
    def scenario(self, root: yaml.Node | None) -> Scenario | None:
        if root is None:
            self.error(None, said("problem.file.empty"))
            return None
        if not isinstance(root, yaml.MappingNode):
            self.error(root, said("problem.file.not_mapping", found=yamlnodes.kind_name(root)))
            return None
        fields = self.mapping(root, TOP_KEYS, None)
        for required in ("title", "phase_ends", "events"):
            if required not in fields:
                self.error(root, said("problem.file.missing", field=repr(required)))
        title = self.string(fields.get("title"), "title") or ""
        kind = self.choice(fields.get("kind"), [k.value for k in TrackKind], "kind")
        phase_ends = self.phase_ends(fields.get("phase_ends"))
        events = self.events(fields.get("events"))
        language = self.choice(fields.get("language"), list(LANGUAGES), "language")  # any shipped language
        players = self.integer(fields.get("players"), "players", 1, MAX_PLAYERS)
        seed = self.integer(fields.get("seed"), "seed", 0, MAX_SEED)
        generator = self.generator(fields.get("generator"))
        if phase_ends is None or events is None:
            return None
        order = sorted(range(len(events)), key=lambda i: events[i].at_ms)
        scenario = Scenario(
            title=title,
            phase_ends_ms=phase_ends,
            events=tuple(events[i] for i in order),
            kind=TrackKind(kind) if kind else TrackKind.CUSTOM,
            notes=self.string(fields.get("notes"), "notes") or "",
            language=language,
            players=players,
            seed=seed,
            double_threats=bool(self.boolean(fields.get("double_threats"), "double_threats")),
            generator=generator,
        )
        nodes = [self.event_nodes[i] for i in order]
        structural_errors = bool(errors(self.problems))
        for finding in check_scenario(scenario, check_spacing=self.spacing and not structural_errors, timer=self.timer):
            self.report(finding, fields, nodes)
        return None if errors(self.problems) else scenario

    def report(self, finding: Finding, fields: dict[str, yaml.Node], nodes: list[yaml.MappingNode]) -> None:
        node: yaml.Node | None
        if finding.event_index is not None:
            node = nodes[finding.event_index]
            if finding.field:
                node = _value_node(node, finding.field) or node
        elif finding.phase_index is not None and "phase_ends" in fields:
            items = fields["phase_ends"].value
            node = items[finding.phase_index] if finding.phase_index < len(items) else fields["phase_ends"]
        else:
            node = fields.get(finding.field or "", None)
        self.error(node, finding.said, finding.severity)

    # -- fields --------------------------------------------------------------------------------
    def mapping(self, node: yaml.MappingNode, allowed: tuple[str, ...], event: str | None) -> dict[str, yaml.Node]:
        """The fields of a mapping that are `allowed` (a scenario's, or those of an `event` type)."""
        found: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key in allowed:
                found[key] = value_node
                continue
            hint = difflib.get_close_matches(str(key), allowed, n=1) if len(self.problems) < MAX_PROBLEMS else []
            of = {} if event is None else {"event": event}
            kind = "problem.file.unknown_field" if event is None else "problem.file.unknown_event_field"
            if hint:
                self.error(key_node, said(f"{kind}_hint", **of, key=repr(key), hint=repr(hint[0])))
            else:
                self.error(key_node, said(kind, **of, key=repr(key), expected=allowed))
        return found

    def scalar(self, node: yaml.Node | None, name: str) -> str | None:
        if node is None:
            return None
        if not isinstance(node, yaml.ScalarNode):
            self.error(node, said("problem.file.single", name=name, found=yamlnodes.kind_name(node)))
            return None
        return node.value

    def string(self, node: yaml.Node | None, name: str) -> str | None:
        """A text field: printable characters only (no control characters, NUL or lone surrogates,
        which no output can write), one line unless it is `notes`, at most MAX_CHARS long."""
        value = self.scalar(node, name)
        if value is None:
            return None
        problem = text_problem(value, name)
        if problem:
            self.error(node, said("problem.field", field=name, problem=problem))
            return None
        return value

    def choice(self, node: yaml.Node | None, options: list[str], name: str) -> str | None:
        value = self.scalar(node, name)
        if value is None:
            return None
        if value.lower() in options:
            return value.lower()
        hint = difflib.get_close_matches(value.lower(), options, n=1)
        named: Said | str = said("problem.file.event_type") if name == "event type" else name
        if hint:
            self.error(node, said("problem.file.unknown_value_hint", name=named, value=repr(value), expected=tuple(options),
                                  hint=repr(hint[0])))
        else:
            self.error(node, said("problem.file.unknown_value", name=named, value=repr(value), expected=tuple(options)))
        return None

    def integer(self, node: yaml.Node | None, name: str, low: int, high: int) -> int | None:
        value = self.scalar(node, name)
        if value is None:
            return None
        text = value.strip()
        if name == "t" and text.upper().startswith("T+"):
            text = text[2:]
        if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > MAX_DIGITS:
            shown = value if len(value) <= 40 else value[:40] + "..."
            self.error(node, said("problem.file.whole_number", name=name, low=low, high=high, found=repr(shown)))
            return None
        number = int(text)
        if not low <= number <= high:
            self.error(node, said("problem.file.out_of_range", name=name, number=number, low=low, high=high))
            return None
        return number

    def boolean(self, node: yaml.Node | None, name: str) -> bool | None:
        value = self.scalar(node, name)
        if value is None:
            return None
        lowered = value.lower()
        if lowered in ("true", "yes", "on"):
            return True
        if lowered in ("false", "no", "off"):
            return False
        self.error(node, said("problem.file.boolean", name=name, found=repr(value)))
        return None

    def time(self, node: yaml.Node | None, name: str) -> int | None:
        value = self.scalar(node, name)
        if value is None:
            return None
        try:
            return parse_time_ms(value)
        except TimeProblem as problem:
            self.error(node, said("problem.field", field=name, problem=Rephrased(
                str(problem), said(f"problem.time.{problem.key}", written=problem.written))))
            return None

    def phase_ends(self, node: yaml.Node | None) -> tuple[int, ...] | None:
        if node is None:
            return None
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, said("problem.file.phase_ends", example='["3:45", "7:30", "10:00"]',
                                  found=yamlnodes.kind_name(node)))
            return None
        times = [self.time(item, "phase_ends") for item in node.value]
        if any(t is None for t in times):
            return None
        return tuple(times)  # type: ignore[arg-type]

    def events(self, node: yaml.Node | None) -> list[Event] | None:
        if node is None:
            return None
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, said("problem.file.events", found=yamlnodes.kind_name(node)))
            return None
        if len(node.value) > MAX_EVENTS:
            self.error(node, said("problem.file.too_many_events", count=len(node.value), most=MAX_EVENTS))
            return None
        events = []
        for item in node.value:
            event = self.event(item)
            if event is not None:
                events.append(event)
                self.event_nodes.append(item)
        return events

    def event(self, node: yaml.Node) -> Event | None:
        if not isinstance(node, yaml.MappingNode):
            self.error(node, said("problem.file.event", example='{at: "1:30", type: data_transfer}',
                                  found=yamlnodes.kind_name(node)))
            return None
        raw_type = _value_node(node, "type")
        if raw_type is None:
            self.error(node, said("problem.file.missing_type", expected=tuple(EVENT_KEYS)))
            return None
        word = self.choice(raw_type, list(EVENT_KEYS), "event type")
        if word is None:
            return None
        fields = self.mapping(node, COMMON_EVENT_KEYS + EVENT_KEYS[word], word)
        if "at" not in fields:
            self.error(node, said("problem.file.missing_at", event=word, example='"2:15"'))
            return None
        at_ms = self.time(fields["at"], "at")
        if at_ms is None:
            return None
        if "double" in fields:
            self.boolean(fields["double"], "double")
        kind = EventType(word)
        if kind in (EventType.THREAT, EventType.INTERNAL):
            return self.threat(node, kind, at_ms, fields)
        if kind is EventType.INCOMING_DATA:
            return IncomingData(at_ms)
        if kind is EventType.DATA_TRANSFER:
            return DataTransfer(at_ms)
        if kind is EventType.COMMS_DOWN:
            return self.comms_down(node, at_ms, fields)
        text = self.string(fields.get("text"), "text")
        if not text:
            if text is not None or "text" not in fields:  # a bad text was reported already
                self.error(node, said("problem.file.missing_text"))
            return None
        if not has_words(text):
            self.error(fields["text"], said("problem.file.no_words", text=repr(text[:40])))
            return None
        return Announcement(at_ms, text)

    def threat(self, node: yaml.Node, kind: EventType, at_ms: int, fields: dict[str, yaml.Node]) -> Threat | None:
        if "t" not in fields:
            self.error(node, said("problem.file.missing_turn", event=kind.value))
            return None
        turn = self.integer(fields["t"], "t", 1, 8)
        zone: Zone | None = None
        if kind is EventType.THREAT:
            if "zone" not in fields:
                self.error(node, said("problem.file.missing_zone"))
                return None
            zone_name = self.choice(fields["zone"], [z.value for z in Zone], "zone")
            zone = Zone(zone_name) if zone_name else None
            if zone is None:
                return None
        serious = self.boolean(fields.get("serious"), "serious")
        unconfirmed = self.boolean(fields.get("unconfirmed"), "unconfirmed")
        pile_name = self.choice(fields.get("pile"), [p.value for p in Pile], "pile")
        if turn is None or ("pile" in fields and pile_name is None):
            return None
        return Threat(at_ms, turn, zone, bool(serious), bool(unconfirmed), Pile(pile_name) if pile_name else None)

    def comms_down(self, node: yaml.Node, at_ms: int, fields: dict[str, yaml.Node]) -> CommsDown | None:
        if ("until" in fields) == ("duration" in fields):
            self.error(node, said("problem.file.until_or_duration"))
            return None
        if "until" in fields:
            until_ms = self.time(fields["until"], "until")
        else:
            duration_ms = self.time(fields["duration"], "duration")
            until_ms = None if duration_ms is None else at_ms + duration_ms
        if until_ms is None:
            return None
        if until_ms <= at_ms:
            self.error(fields.get("until") or fields.get("duration"),
                       said("problem.file.comms_ends", end=format_time(until_ms), start=format_time(at_ms)))
            return None
        return CommsDown(at_ms, until_ms)

    def generator(self, node: yaml.Node | None) -> tuple[tuple[str, str], ...]:
        if node is None:
            return ()
        if not isinstance(node, yaml.MappingNode):
            self.error(node, said("problem.file.generator", found=yamlnodes.kind_name(node)))
            return ()
        pairs = []
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or not isinstance(value, yaml.ScalarNode):
                self.error(key, said("problem.file.generator_pairs"))
                continue
            pairs.append((key.value, value.value))
        return tuple(pairs)


def _value_node(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node
    return None
