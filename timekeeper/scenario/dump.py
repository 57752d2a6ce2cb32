"""Scenario model -> scenario YAML text (the same format `load` reads)."""

from __future__ import annotations

from timekeeper.grammar.times import format_time
from timekeeper.model import Announcement, CommsDown, Event, Scenario, Threat, TrackKind, event_type_name


def dump_scenario(scenario: Scenario, header: str = "") -> str:
    """YAML text of `scenario`, one event per line, times quoted as "m:ss"."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines.append(f"title: {_quote(scenario.title)}")
    if scenario.kind is not TrackKind.CUSTOM:
        lines.append(f"kind: {scenario.kind.value}")
    if scenario.notes:
        lines.append(f"notes: {_quote(scenario.notes)}")
    if scenario.language:
        lines.append(f"language: {scenario.language}")
    if scenario.players is not None:
        lines.append(f"players: {scenario.players}")
    if scenario.seed is not None:
        lines.append(f"seed: {scenario.seed}")
    if scenario.double_threats and scenario.kind is not TrackKind.DOUBLE_ACTION:
        lines.append("double_threats: true")
    if scenario.generator:
        lines.append("generator:")
        lines += [f"  {key}: {_quote(value)}" for key, value in scenario.generator]
    lines.append("phase_ends: [" + ", ".join(_quote(format_time(ms, precise=True)) for ms in scenario.phase_ends_ms) + "]")
    lines.append("events:" if scenario.events else "events: []")
    lines += [f"  - {{{_event_fields(event)}}}" for event in scenario.events]
    return "\n".join(lines) + "\n"


def dump_checked(scenario: Scenario, header: str = "", display: str = "<scenario>") -> str:
    """`dump_scenario`, read back by the loader: ScenarioError (naming `display`) unless the text is
    a scenario `timekeeper validate` accepts, so no command writes a file validate would reject."""
    from timekeeper.errors import ScenarioError
    from timekeeper.scenario.load import load_text
    from timekeeper.scenario.problems import errors

    text = dump_scenario(scenario, header)
    problems = errors(load_text(text, display, spacing=False).problems)  # spacing only ever warns
    if problems:
        raise ScenarioError.listing(["would not be a valid scenario, not written:", *(str(p) for p in problems[:10])], path=display)
    return text


def _event_fields(event: Event) -> str:
    fields = [f"at: {_quote(format_time(event.at_ms, precise=True))}", f"type: {event_type_name(event)}"]
    if isinstance(event, Threat):
        fields.append(f"t: {event.turn}")
        if event.zone is not None:
            fields.append(f"zone: {event.zone.value}")
        fields.append(f"serious: {str(event.serious).lower()}")
        fields.append(f"unconfirmed: {str(event.unconfirmed).lower()}")
        if event.pile is not None:
            fields.append(f"pile: {event.pile.value}")
    elif isinstance(event, CommsDown):
        fields.append(f"until: {_quote(format_time(event.until_ms, precise=True))}")
    elif isinstance(event, Announcement):
        fields.append(f"text: {_quote(event.text)}")
    return ", ".join(fields)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
