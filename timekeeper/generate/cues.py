"""How long each announcement takes, in the slowest supported language, measured once per process.

The lengths come from the real grammar: a probe scenario holding every kind of announcement is
laid out by `script.build_timeline` with `durations.default_measure(lang)` for every
language, and the longest length of each cue is kept. The sampler reserves at least that much
time for every cue, so a generated mission is free of overlaps by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from timekeeper.grammar.durations import default_measure
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.grammar.script import CueKind, build_timeline
from timekeeper.model import CommsDown, DataTransfer, Event, IncomingData, Scenario, Threat, Zone

PROBE_SPACING_MS = 60_000
PROBE_PHASE_MS = 600_000  # long probe phases: cue lengths do not depend on where a cue falls

ThreatKey = tuple[int, bool, bool, bool]  # (turn, internal, serious, unconfirmed)


@dataclass(frozen=True)
class CueLengths:
    """Longest cue lengths over `languages`, in milliseconds."""

    languages: tuple[str, ...]
    threat_ms: dict[ThreatKey, int]
    incoming_data_ms: int
    data_transfer_ms: int
    comms_down_ms: int
    comms_restored_ms: int
    begin_ms: int
    warning_1_minute_ms: tuple[int, ...]  # per phase
    closing_ms: tuple[int, ...]  # per phase: how long its last cue runs on after the phase end

    def threat(self, turn: int, internal: bool, serious: bool, unconfirmed: bool) -> int:
        return self.threat_ms[(turn, internal, serious, unconfirmed)]


def _probe(phases: int) -> Scenario:
    events: list[Event] = []
    at_ms = PROBE_SPACING_MS
    for turn in range(1, 9):
        for zone in (None, *Zone):
            for serious in (False, True):
                for unconfirmed in (False, True):
                    events.append(Threat(at_ms, turn, zone, serious, unconfirmed))
                    at_ms += PROBE_SPACING_MS
    for event_type in (IncomingData, DataTransfer):
        events.append(event_type(at_ms))
        at_ms += PROBE_SPACING_MS
    events.append(CommsDown(at_ms, at_ms + 10_000))
    ends = tuple(PROBE_PHASE_MS * 100 * (index + 1) for index in range(phases))
    return Scenario(title="probe", phase_ends_ms=ends, events=tuple(events))


@cache
def cue_lengths(languages: tuple[str, ...] = LANGUAGES, phases: int = 3) -> CueLengths:
    """The longest length of every cue over `languages` (default: all supported languages)."""
    probe = _probe(phases)
    threat_ms: dict[ThreatKey, int] = {}
    simple: dict[CueKind, int] = {}
    warning_1 = [0] * phases
    closing = [0] * phases

    for language in languages:
        timeline = build_timeline(probe, phrase_book(language), default_measure(language))
        for cue in timeline.cues:
            event = cue.event
            if isinstance(event, Threat):
                key = (event.turn, event.internal, event.serious, event.unconfirmed)
                threat_ms[key] = max(threat_ms.get(key, 0), cue.duration_ms)
            elif cue.kind is CueKind.PHASE_WARNING:
                end_ms = probe.phase_ends_ms[cue.phase - 1]
                if end_ms - cue.at_ms > 30_000:  # the one-minute warning (the 20-second one is not planned for)
                    warning_1[cue.phase - 1] = max(warning_1[cue.phase - 1], cue.duration_ms)
            elif cue.kind is CueKind.PHASE_END:
                end_ms = probe.phase_ends_ms[cue.phase - 1]
                closing[cue.phase - 1] = max(closing[cue.phase - 1], cue.end_ms - end_ms)
            else:
                simple[cue.kind] = max(simple.get(cue.kind, 0), cue.duration_ms)
    return CueLengths(
        languages=tuple(languages),
        threat_ms=threat_ms,
        incoming_data_ms=simple[CueKind.INCOMING_DATA],
        data_transfer_ms=simple[CueKind.DATA_TRANSFER],
        comms_down_ms=simple[CueKind.COMMS_DOWN],
        comms_restored_ms=simple[CueKind.COMMS_RESTORED],
        begin_ms=simple[CueKind.BEGIN],
        warning_1_minute_ms=tuple(warning_1),
        closing_ms=tuple(closing),
    )
