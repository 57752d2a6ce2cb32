"""The measurable features of one track: what the generator's rules and the fidelity report compare.

The same function measures the official tracks (tools/measure_official.py turns that into
figures.py) and every generated mission, so both sides of a comparison are counted alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.model import CommsDown, DataTransfer, EventType, IncomingData, Scenario, Threat, Zone, event_type

AMBUSH_WINDOW_MS = 60_000  # a threat in the last minute of its phase is an "ambush"
ZONE_ORDER = (Zone.RED, Zone.WHITE, Zone.BLUE)


def even_share(external: int) -> int:
    """The most threats one zone carries when `external` threats are spread as evenly as possible."""
    return -(-external // len(ZONE_ORDER))


@dataclass(frozen=True)
class Features:
    """Counts and times of one track, all times in milliseconds."""

    phase_lengths_ms: tuple[int, ...]
    threats: int
    confirmed_points: int
    unconfirmed_points: int
    unconfirmed: int
    serious: int
    internal: int
    serious_internal: int
    double_turns: int
    threats_per_phase: tuple[int, ...]
    internal_turns: tuple[int, ...]
    ambushes: int
    ambush_lead_ms: tuple[int, ...]  # for each ambush: how long before its phase ends it starts
    incoming_data: tuple[int, ...]  # per phase
    data_transfers: tuple[int, ...]  # per phase
    outages: tuple[int, ...]  # per phase (by the phase the outage starts in)
    outage_lengths_ms: tuple[int, ...]
    first_event_ms: tuple[int, ...]  # per phase: first event start after the phase start (-1: none)
    late_events: tuple[int, ...]  # per phase: events other than threats starting in its last minute
    gaps_ms: tuple[tuple[EventType, int], ...]  # (type of an event, time until the next event starts)
    zone_counts: tuple[int, ...]  # external threats (unconfirmed included) in red, white, blue

    @property
    def comms_down_ms(self) -> int:
        return sum(self.outage_lengths_ms)

    @property
    def external(self) -> int:
        return sum(self.zone_counts)

    @property
    def zones_used(self) -> int:
        return sum(1 for count in self.zone_counts if count)

    @property
    def most_in_one_zone(self) -> int:
        return max(self.zone_counts)

    @property
    def zone_excess(self) -> int:
        """How many threats the fullest zone carries beyond an even spread (0: as even as it gets)."""
        return self.most_in_one_zone - even_share(self.external)


def measure(scenario: Scenario) -> Features:
    """The features of `scenario` (unconfirmed reports included, as a 5-player crew hears them)."""
    ends = scenario.phase_ends_ms
    starts = (0, *ends[:-1])
    phases = len(ends)
    threats = scenario.threats

    def per_phase(kind: type) -> tuple[int, ...]:
        counts = [0] * phases
        for event in scenario.events:
            if isinstance(event, kind):
                counts[scenario.phase_of(event.at_ms) - 1] += 1
        return tuple(counts)

    turns: dict[int, int] = {}
    for threat in threats:
        turns[threat.turn] = turns.get(threat.turn, 0) + 1
    ambush_leads = []
    for threat in threats:
        phase = scenario.phase_of(threat.at_ms)
        lead_ms = ends[phase - 1] - threat.at_ms
        if lead_ms <= AMBUSH_WINDOW_MS:
            ambush_leads.append(lead_ms)
    first = []
    for phase in range(phases):
        times = [e.at_ms - starts[phase] for e in scenario.events if scenario.phase_of(e.at_ms) == phase + 1]
        first.append(min(times) if times else -1)
    late = [0] * phases
    for event in scenario.events:
        phase = scenario.phase_of(event.at_ms)
        if not isinstance(event, Threat) and ends[phase - 1] - event.at_ms <= AMBUSH_WINDOW_MS:
            late[phase - 1] += 1
    gaps = []
    events = sorted(scenario.events, key=lambda e: e.at_ms)
    for event, following in zip(events, events[1:]):
        start_ms = event.until_ms if isinstance(event, CommsDown) else event.at_ms
        gaps.append((event_type(event), following.at_ms - start_ms))
    outages = [e for e in scenario.events if isinstance(e, CommsDown)]
    return Features(
        phase_lengths_ms=tuple(end - start for start, end in zip(starts, ends)),
        threats=len(threats),
        confirmed_points=sum(t.points for t in threats if not t.unconfirmed),
        unconfirmed_points=sum(t.points for t in threats if t.unconfirmed),
        unconfirmed=sum(1 for t in threats if t.unconfirmed),
        serious=sum(1 for t in threats if t.serious),
        internal=sum(1 for t in threats if t.internal),
        serious_internal=sum(1 for t in threats if t.internal and t.serious),
        double_turns=sum(1 for count in turns.values() if count > 1),
        threats_per_phase=per_phase(Threat),
        internal_turns=tuple(sorted({t.turn for t in threats if t.internal})),
        ambushes=len(ambush_leads),
        ambush_lead_ms=tuple(ambush_leads),
        incoming_data=per_phase(IncomingData),
        data_transfers=per_phase(DataTransfer),
        outages=per_phase(CommsDown),
        outage_lengths_ms=tuple(o.duration_ms for o in outages),
        first_event_ms=tuple(first),
        late_events=tuple(late),
        gaps_ms=tuple(gaps),
        zone_counts=tuple(sum(1 for t in threats if t.zone is zone) for zone in ZONE_ORDER),
    )


def _span(values: list[int]) -> tuple[int, int]:
    return (min(values), max(values)) if values else (0, 0)


def _histogram(values: list[int]) -> dict[int, int]:
    return {value: values.count(value) for value in sorted(set(values))}


def summarize(tracks: list[Features]) -> dict[str, object]:
    """The ranges, sets and rates a group of tracks spans (the figures the rules are made of)."""
    phases = len(tracks[0].phase_lengths_ms)

    def phase_spans(get) -> tuple[tuple[int, int], ...]:
        return tuple(_span([get(f)[p] for f in tracks]) for p in range(phases))

    gap_kinds = sorted({kind.value for f in tracks for kind, _ in f.gaps_ms})  # figures.py holds plain words
    threat_phases = sum(1 for f in tracks for count in f.threats_per_phase if count)
    return {
        "tracks": len(tracks),
        "phase_ms": phase_spans(lambda f: f.phase_lengths_ms),
        "threats": _span([f.threats for f in tracks]),
        "confirmed_points": _span([f.confirmed_points for f in tracks]),
        "unconfirmed_points": _span([f.unconfirmed_points for f in tracks]),
        "unconfirmed": _span([f.unconfirmed for f in tracks]),
        "serious": _span([f.serious for f in tracks]),
        "internal": _span([f.internal for f in tracks]),
        "serious_internal": _span([f.serious_internal for f in tracks]),
        "double_turns": _span([f.double_turns for f in tracks]),
        "threats_per_phase": phase_spans(lambda f: f.threats_per_phase)[: phases - 1],
        "internal_turns": tuple(sorted({t for f in tracks for t in f.internal_turns})),
        "ambushes": sum(f.ambushes for f in tracks),
        "threat_phases": threat_phases,
        "ambush_lead_ms": _span([lead for f in tracks for lead in f.ambush_lead_ms]),
        "incoming_data": _span([sum(f.incoming_data) for f in tracks]),
        "incoming_data_per_phase": phase_spans(lambda f: f.incoming_data),
        "data_transfers": _span([sum(f.data_transfers) for f in tracks]),
        "data_transfers_per_phase": phase_spans(lambda f: f.data_transfers),
        "outages": _span([sum(f.outages) for f in tracks]),
        "outages_per_phase": phase_spans(lambda f: f.outages),
        "comms_down_ms": _span([f.comms_down_ms for f in tracks]),
        "outage_ms": _span([length for f in tracks for length in f.outage_lengths_ms]),
        "first_event_ms": phase_spans(lambda f: f.first_event_ms),
        "late_events": _histogram([count for f in tracks for count in f.late_events]),
        "external": _span([f.external for f in tracks]),
        "zones_used": _span([f.zones_used for f in tracks]),
        "zone_excess": _histogram([f.zone_excess for f in tracks]),
        "min_gap_ms": {kind: min(g for f in tracks for k, g in f.gaps_ms if k.value == kind) for kind in gap_kinds},
    }
