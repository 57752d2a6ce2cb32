"""What the generator draws from: the figures measured from the official tracks of a kind
(figures.py), with the user's settings applied (options.py). One typed record, so every figure is
named once and checked by the type checker instead of looked up by string."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from timekeeper.generate.figures import PROFILES
from timekeeper.model import MAX_TURN, EventType

Span = tuple[int, int]  # (lowest, highest)

PLACED = (EventType.COMMS_DOWN, EventType.DATA_TRANSFER, EventType.INCOMING_DATA)  # the events placed besides threats


@dataclass(frozen=True)
class Profile:
    # threats
    threats: Span
    threats_per_phase: tuple[Span, ...]
    external: Span
    internal: Span
    serious: Span
    serious_internal: Span
    internal_turns: tuple[int, ...]
    double_turns: Span
    confirmed_points: Span
    unconfirmed: Span
    unconfirmed_points: Span
    zone_excess: dict[int, int]  # excess of the fullest zone -> official tracks with it
    zones_used: Span
    # phases and the other events
    phase_ms: tuple[Span, ...]
    first_event_ms: tuple[Span, ...]
    outages: Span
    outages_per_phase: tuple[Span, ...]
    outage_ms: Span
    comms_down_ms: Span  # the whole time without communications
    data_transfers: Span
    data_transfers_per_phase: tuple[Span, ...]
    incoming_data: Span
    incoming_data_per_phase: tuple[Span, ...]
    min_gap_ms: dict[EventType, int]  # the tightest spacing after an event of each type
    late_events: dict[int, int]
    ambush_lead_ms: Span
    ambushes: int
    threat_phases: int
    tracks: int
    # the user's settings (None: as official)
    turns: int = MAX_TURN  # the turns threats may be announced on (fewer in a short mission: shortened.py)
    scaled: bool = False  # the threats and events scaled down to a mission shorter than official (shortened.py)
    mission_ms: int | None = None
    ambush_chance: float = 0.0
    max_serious: int | None = None
    unconfirmed_serious: bool = True  # may an unconfirmed report be a serious threat
    threat_colors: tuple[str, ...] = ()

    @staticmethod
    def official(kind: str) -> Profile:
        """The figures of the official tracks of `kind` (made once: the generator asks often)."""
        return _OFFICIAL[kind]

    def count(self, placed: EventType) -> Span:
        """How many of `placed` (one of PLACED) a mission carries."""
        if placed is EventType.COMMS_DOWN:
            return self.outages
        return self.data_transfers if placed is EventType.DATA_TRANSFER else self.incoming_data

    def count_per_phase(self, placed: EventType) -> tuple[Span, ...]:
        if placed is EventType.COMMS_DOWN:
            return self.outages_per_phase
        return self.data_transfers_per_phase if placed is EventType.DATA_TRANSFER else self.incoming_data_per_phase

    def required(self, placed: EventType) -> int:
        """How many of `placed` a mission must carry: the official minimum, in all and per phase."""
        return max(self.count(placed)[0], sum(low for low, _ in self.count_per_phase(placed)))

    def with_count(self, placed: EventType, span: Span) -> Profile:
        """The total of `placed` set to `span`. The sampler keeps to the official per-phase limits where
        it can, but every event asked for must be placed, so a phase may carry up to the whole total."""
        per_phase = self.count_per_phase(placed)
        keep_minima = sum(low for low, _ in per_phase) <= span[0]
        widened = tuple((low if keep_minima else 0, max(high, span[1])) for low, high in per_phase)
        if placed is EventType.COMMS_DOWN:
            return replace(self, outages=span, outages_per_phase=widened)
        if placed is EventType.DATA_TRANSFER:
            return replace(self, data_transfers=span, data_transfers_per_phase=widened)
        return replace(self, incoming_data=span, incoming_data_per_phase=widened)


def _measured(kind: str) -> Profile:
    measured: dict[str, Any] = PROFILES[kind]  # figures.py is written by a tool: plain data
    names = {field.name for field in fields(Profile)}
    typed = {name: value for name, value in measured.items() if name in names}
    typed["min_gap_ms"] = {EventType(word): ms for word, ms in measured["min_gap_ms"].items()}
    return Profile(**typed)


_OFFICIAL = {kind: _measured(kind) for kind in PROFILES}
