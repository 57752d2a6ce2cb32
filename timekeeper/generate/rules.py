"""The named rules every generated mission keeps, each with the official figure it comes from.

`check_generated` runs them all (tests and the benchmark run it on every generated mission);
docs/generator.md lists the same rules with the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from timekeeper.generate.features import Features, measure
from timekeeper.generate.settings import GenerateOptions
from timekeeper.grammar.times import format_time
from timekeeper.model import CommsDown, EventType, Scenario, turn_phase

PHASE_MARGIN_MS = 5000  # the "small margin" around the official phase lengths


@dataclass(frozen=True)
class Rule:
    name: str
    summary: str
    figure: Callable[[GenerateOptions], str]
    check: Callable[[Scenario, Features, GenerateOptions], list[str]]


def _span(span: tuple[int, int]) -> str:
    return str(span[0]) if span[0] == span[1] else f"{span[0]}-{span[1]}"


def _time_span(span: tuple[int, int]) -> str:
    return f"{format_time(span[0])}-{format_time(span[1])}"


def _seconds(span: tuple[int, int]) -> str:
    return f"{_span((span[0] // 1000, span[1] // 1000))} s"


def _within(name: str, value: int, span: tuple[int, int]) -> list[str]:
    return [] if span[0] <= value <= span[1] else [f"{name} {value}, official {_span(span)}"]


def _phase_lengths(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    found = []
    for number, (length_ms, (low, high)) in enumerate(zip(f.phase_lengths_ms, o.profile.phase_ms), start=1):
        if not low - PHASE_MARGIN_MS <= length_ms <= high + PHASE_MARGIN_MS:
            found.append(f"phase {number} lasts {format_time(length_ms)}, official {_time_span((low, high))}")
    return found


def _threat_points(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    found = [] if f.confirmed_points == o.level else [f"{f.confirmed_points} confirmed points, asked for {o.level}"]
    if o.players == 5:
        return found + _within("unconfirmed points", f.unconfirmed_points, o.profile.unconfirmed_points)
    return found + ([f"{f.unconfirmed} unconfirmed reports in a 4-player mission"] if f.unconfirmed else [])


def _threat_mix(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    p = o.profile
    if not o.is_default:
        caps = [] if o.max_serious is None else _within("serious threats", f.serious, (0, o.max_serious))
        return caps + ([] if o.max_internal is None else _within("internal threats", f.internal, (0, o.max_internal)))
    count = p.threats if o.players == 5 else (p.threats[0] - p.unconfirmed[1], p.threats[1] - p.unconfirmed[0])
    return (_within("threats", f.threats, count) + _within("serious threats", f.serious, p.serious)
            + (_within("external threats", f.external, p.external) if o.players == 5 else [])
            + _within("internal threats", f.internal, p.internal)
            + _within("serious internal threats", f.serious_internal, p.serious_internal))


def _zone_spread(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    excess = max(o.profile.zone_excess)
    found = [] if f.zone_excess <= excess else [
        f"{f.most_in_one_zone} of {f.external} external threats in one zone, official at most {excess} above an even spread"]
    if f.zones_used < min(3, f.external):
        found.append(f"{f.external} external threats use only {f.zones_used} zone(s), official all three")
    return found


def _first_event(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    spans = o.profile.first_event_ms
    return [f"phase {n}: first event {ms // 1000} s after its start, official {spans[n - 1][0] // 1000}-{spans[n - 1][1] // 1000} s"
            for n, ms in enumerate(f.first_event_ms, start=1) if ms >= 0 and not spans[n - 1][0] <= ms <= spans[n - 1][1]]


def _turn_phases(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    return [f"T+{t.turn} at {format_time(t.at_ms)} is in phase {s.phase_of(t.at_ms)}, not {turn_phase(t.turn)}"
            for t in s.threats if s.phase_of(t.at_ms) != turn_phase(t.turn)]


def _turn_order(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    threats = sorted(s.threats, key=lambda t: t.at_ms)
    found = [f"T+{b.turn} at {format_time(b.at_ms)} follows T+{a.turn}" for a, b in zip(threats, threats[1:]) if b.turn < a.turn]
    allowed = 2 if o.max_doubles else 1
    for turn in sorted({t.turn for t in threats}):
        same = [t for t in threats if t.turn == turn]
        if len(same) > allowed:
            found.append(f"T+{turn} is announced {len(same)} times")
        elif len(same) == 2 and sorted(t.internal for t in same) != [False, True]:
            found.append(f"T+{turn} is a double turn without one internal and one external threat")
    return found + _within("double turns", f.double_turns, (0, o.max_doubles))


def _internal_turns(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    allowed = o.profile.internal_turns
    return [f"internal threat on T+{turn}, official turns {allowed}" for turn in f.internal_turns if turn not in allowed]


def _event_counts(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    p, found = o.profile, []
    for name, per_phase, placed in (("incoming data", f.incoming_data, EventType.INCOMING_DATA),
                                    ("data transfers", f.data_transfers, EventType.DATA_TRANSFER),
                                    ("outages", f.outages, EventType.COMMS_DOWN)):
        found += _within(name, sum(per_phase), p.count(placed))
        for number, (count, span) in enumerate(zip(per_phase, p.count_per_phase(placed)), start=1):
            found += _within(f"{name} in phase {number}:", count, span)
    return found


def _comms_down(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    p = o.profile
    found = [] if p.comms_down_ms[0] <= f.comms_down_ms <= p.comms_down_ms[1] else [
        f"communications down for {f.comms_down_ms // 1000} s, official {_time_span(p.comms_down_ms)}"]
    return found + [f"an outage of {ms // 1000} s, official {_time_span(p.outage_ms)}"
                    for ms in f.outage_lengths_ms if not p.outage_ms[0] <= ms <= p.outage_ms[1]]


def _outages_clear(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    warnings = [end - lead for end in s.phase_ends_ms for lead in (60_000, 20_000, 7_000)]
    return [f"the outage {format_time(e.at_ms)}-{format_time(e.until_ms)} hides the warning at {format_time(w)}"
            for e in s.events if isinstance(e, CommsDown) for w in warnings if e.at_ms <= w <= e.until_ms + 3000]


def _ambush(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    span = o.profile.ambush_lead_ms
    found = [f"a late threat {lead // 1000} s before its phase ends, official {span[0] // 1000}-{span[1] // 1000} s"
             for lead in f.ambush_lead_ms if not span[0] <= lead <= span[1]]
    for number in range(1, len(s.phase_ends_ms)):
        late = [t for t in s.threats if s.phase_of(t.at_ms) == number and s.phase_ends_ms[number - 1] - t.at_ms <= 60_000]
        if len(late) > 1:
            found.append(f"{len(late)} ambushes in phase {number}")
    return found


def _no_overlap(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import LANGUAGES, phrase_book
    from timekeeper.grammar.script import ScriptOptions, build_timeline

    found = []
    for language in LANGUAGES:
        timeline = build_timeline(s, phrase_book(language), default_measure(language), ScriptOptions(players=5))
        found += [f"{language}: {x.second.kind.value} at {format_time(x.second.at_ms)} overlaps "
                  f"{x.first.kind.value} at {format_time(x.first.at_ms)}" for x in timeline.overlaps()]
    return found


def _scenario_rules(s: Scenario, f: Features, o: GenerateOptions) -> list[str]:
    from timekeeper.scenario.rules import check_scenario

    return [finding.message for finding in check_scenario(s)]


def _points_figure(o: GenerateOptions) -> str:
    return f"{o.default_level} confirmed points + {_span(o.profile.unconfirmed_points)} unconfirmed (5 players)"


RULES = (
    Rule("phase-lengths", "each phase lasts as long as on the official tracks, within 5 s",
         lambda o: ", ".join(_time_span(span) for span in o.profile.phase_ms), _phase_lengths),
    Rule("first-event", "each phase's first event comes as soon after its start as on the official tracks",
         lambda o: "phase 1 " + ", phase 2 ".join(_seconds(span) for span in o.profile.first_event_ms[:2])
                   + f", phase 3 {_seconds(o.profile.first_event_ms[2])}", _first_event),
    Rule("threat-points", "confirmed points = --threat-level (normal 1, serious 2); unconfirmed reports only with 5 players",
         _points_figure, _threat_points),
    Rule("threat-mix", "threats, external, serious, internal and serious internal threats as many as official (at the official level)",
         lambda o: "threats {}, external {}, serious {}, internal {}, serious internal {}".format(
             *(_span(span) for span in (o.profile.threats, o.profile.external, o.profile.serious, o.profile.internal,
                                        o.profile.serious_internal))), _threat_mix),
    Rule("zone-spread", "external threats use every zone; the fullest zone carries at most a little more than an even spread",
         lambda o: f"all 3 zones; fullest zone even share + {_span((0, max(o.profile.zone_excess)))} "
                   f"({o.profile.zone_excess.get(0, 0)} of {o.profile.tracks} tracks: + 0)", _zone_spread),
    Rule("turn-phases", "T+1..T+4 in phase 1, T+5..T+8 in phase 2, none in phase 3", lambda o: "rulebook", _turn_phases),
    Rule("turn-order", "each T+N once (a double turn: one external + one internal), announced in increasing order",
         lambda o: f"double turns {_span((0, o.max_doubles))}", _turn_order),
    Rule("internal-turns", "internal threats only on the turns the official tracks use",
         lambda o: "T+" + ", T+".join(map(str, o.profile.internal_turns)), _internal_turns),
    Rule("event-counts", "incoming data, data transfers and outages: totals and per-phase counts as official",
         lambda o: "; ".join(f"{name} {_span(o.profile.count(placed))} (per phase "
                             f"{', '.join(_span(x) for x in o.profile.count_per_phase(placed))})"
                             for name, placed in (("incoming data", EventType.INCOMING_DATA),
                                                  ("data transfers", EventType.DATA_TRANSFER), ("outages", EventType.COMMS_DOWN))),
         _event_counts),
    Rule("comms-down", "communications down as long in total and per outage as official",
         lambda o: f"total {_seconds(o.profile.comms_down_ms)}, each {_seconds(o.profile.outage_ms)}", _comms_down),
    Rule("outages-clear", "no outage hides a phase-end warning", lambda o: "rulebook", _outages_clear),
    Rule("ambush", "at most one late threat per phase, as far before its end as official ambushes",
         lambda o: f"{_seconds(o.profile.ambush_lead_ms)} before the end, "
                   f"in {o.profile.ambushes} of {o.profile.threat_phases} official phases with threats", _ambush),
    Rule("no-overlap", "no two announcements overlap in any shipped language (real cue lengths)", lambda o: "script.build_timeline", _no_overlap),
    Rule("scenario-rules", "timekeeper's own scenario rules: no error, no warning", lambda o: "scenario.rules", _scenario_rules),
)

FAST_RULES = tuple(rule for rule in RULES if rule.name != "no-overlap")


def check_generated(scenario: Scenario, options: GenerateOptions, *, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """`rule-name: what is wrong` for every rule `scenario` breaks (empty: it keeps them all)."""
    features = measure(scenario)
    return [f"{rule.name}: {message}" for rule in rules for message in rule.check(scenario, features, options)]

