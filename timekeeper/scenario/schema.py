"""A JSON Schema of the scenario format, for editors (validation and completion)."""

from __future__ import annotations

from timekeeper.grammar.languages import LANGUAGES
from timekeeper.model import MAX_PLAYERS, EventType, Pile, TrackKind, Zone
from timekeeper.scenario.load import EVENT_KEYS

TIME = {
    "description": "m:ss (quote it: \"3:45\"), m:ss.fff, or plain seconds",
    "anyOf": [
        {"type": "string", "pattern": r"^\s*\d{1,3}:[0-5]?\d(\.\d{1,3})?\s*$"},
        {"type": "string", "pattern": r"^\s*\d{1,5}(\.\d{1,3})?\s*s?\s*$"},
        {"type": "integer", "minimum": 0},
    ],
}
TURN = {"description": "the turn T+N", "anyOf": [
    {"type": "integer", "minimum": 1, "maximum": 8},
    {"type": "string", "pattern": r"^T\+[1-8]$"},
]}
FLAG = {"type": "boolean", "default": False}

_FIELD_SCHEMAS = {
    "t": TURN,
    "zone": {"enum": [z.value for z in Zone]},
    "serious": FLAG,
    "unconfirmed": FLAG,
    "pile": {"enum": [p.value for p in Pile], "description": "the threat pile to draw the card from (printed, not spoken)"},
    "until": TIME,
    "duration": {**TIME, "description": "length of the outage: seconds or m:ss"},
    "text": {"type": "string", "minLength": 1},
}
_REQUIRED = {EventType.THREAT.value: ["t", "zone"], EventType.INTERNAL.value: ["t"], EventType.ANNOUNCE.value: ["text"]}


def _event_schema(kind: str) -> dict:
    properties = {
        "at": TIME,
        "type": {"const": kind},
        "double": {"type": "boolean", "description": "informational: this turn carries two threats"},
    }
    properties.update({name: _FIELD_SCHEMAS[name] for name in EVENT_KEYS[kind]})
    schema = {
        "type": "object",
        "properties": properties,
        "required": ["at", "type", *_REQUIRED.get(kind, [])],
        "additionalProperties": False,
    }
    if kind == EventType.COMMS_DOWN.value:
        schema["oneOf"] = [{"required": ["until"]}, {"required": ["duration"]}]
    return schema


def scenario_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a scenario file."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://timekeeper.invalid/scenario.schema.json",
        "title": "timekeeper scenario",
        "description": "One Space Alert track: phase ends and timed events. See docs/scenario-format.md.",
        "type": "object",
        "required": ["title", "phase_ends", "events"],
        "additionalProperties": False,
        "properties": {
            "title": {"type": "string"},
            "kind": {"enum": [k.value for k in TrackKind], "default": "custom"},
            "notes": {"type": "string", "description": "briefing or notes printed on the card"},
            "language": {"enum": list(LANGUAGES)},
            "players": {"type": "integer", "minimum": 1, "maximum": MAX_PLAYERS},
            "seed": {"type": "integer", "minimum": 0},
            "double_threats": FLAG,
            "generator": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
            "phase_ends": {"type": "array", "items": TIME, "minItems": 2, "maxItems": 3},
            "events": {
                "type": ["array", "null"],
                "items": {"oneOf": [_event_schema(kind) for kind in EVENT_KEYS]},
            },
        },
    }
