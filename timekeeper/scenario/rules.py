"""The rules every scenario must keep, checked on the model (no file positions here).

A Finding points at an event (by its index in `scenario.events`) or a phase end, so the loader
can turn it into file:line:col, and the generator can run the same checks on what it makes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from timekeeper.grammar.times import format_time
from timekeeper.i18n import Said, said
from timekeeper.model import (
    MAX_PHASES,
    MAX_TURN,
    MIN_PHASES,
    CommsDown,
    Scenario,
    Threat,
    turn_phase,
)
from timekeeper.scenario.problems import Severity

if TYPE_CHECKING:
    from timekeeper.grammar.script import Overlap, Timeline

MAX_DURATION_MS = 60 * 60 * 1000  # one hour: longer than any sensible action round
LATE_THREAT_GRACE_MS = 15_000  # a threat may still be announced this long after its phase ended


@dataclass(frozen=True)
class Finding:
    """A broken rule: its words (said in any language; `message` is their English), how bad it is,
    and where: an event (by index, and its `field`) or a phase end."""

    said: Said
    severity: Severity = Severity.ERROR
    event_index: int | None = None
    phase_index: int | None = None
    field: str | None = None

    @property
    def message(self) -> str:
        return str(self.said)


Timer = Callable[[Scenario], "Timeline"]  # the timeline a voice would speak a scenario with


def check_scenario(scenario: Scenario, *, check_spacing: bool = True, timer: Timer | None = None) -> list[Finding]:
    """Every broken rule of `scenario`; with `check_spacing`, also warn of packed announcements, as
    `timer` lays them out (default: the shipped phrase lengths of the synthesized voice)."""
    findings = _check_phases(scenario)
    if any(f.severity is Severity.ERROR for f in findings):
        return findings
    findings += _check_event_times(scenario)
    findings += _check_threats(scenario)
    findings += _check_outages(scenario)
    if check_spacing and not any(f.severity is Severity.ERROR for f in findings):
        findings += spacing_findings(scenario, (timer or _shipped_timeline)(scenario))
    return findings


def _check_phases(scenario: Scenario) -> list[Finding]:
    ends = scenario.phase_ends_ms
    if not MIN_PHASES <= len(ends) <= MAX_PHASES:
        return [Finding(said("problem.rule.phase_count", count=len(ends), low=MIN_PHASES, high=MAX_PHASES), field="phase_ends")]
    findings = []
    previous = 0
    for index, end_ms in enumerate(ends):
        if end_ms <= previous:
            findings.append(Finding(
                said("problem.rule.phase_order", number=index + 1, end=format_time(end_ms), previous=index,
                     previous_end=format_time(previous)) if index else
                said("problem.rule.phase_order_start", number=index + 1, end=format_time(end_ms)),
                phase_index=index,
            ))
        elif end_ms - previous < 60_000:
            findings.append(Finding(
                said("problem.rule.phase_short", number=index + 1, length=format_time(end_ms - previous)),
                phase_index=index,
            ))
        previous = max(previous, end_ms)
    if ends[-1] > MAX_DURATION_MS:
        findings.append(Finding(
            said("problem.rule.too_long", end=format_time(ends[-1]), most=format_time(MAX_DURATION_MS)),
            phase_index=len(ends) - 1,
        ))
    return findings


def _check_event_times(scenario: Scenario) -> list[Finding]:
    end_ms = scenario.duration_ms
    findings = []
    for index, event in enumerate(scenario.events):
        if event.at_ms >= end_ms:
            findings.append(Finding(
                said("problem.rule.event_late", at=format_time(event.at_ms), end=format_time(end_ms)),
                event_index=index, field="at",
            ))
        if isinstance(event, CommsDown) and event.until_ms > end_ms:
            findings.append(Finding(
                said("problem.rule.comms_late", until=format_time(event.until_ms), end=format_time(end_ms)),
                event_index=index, field="until",
            ))
    return findings


def _check_threats(scenario: Scenario) -> list[Finding]:
    findings = []
    by_turn: dict[int, list[int]] = defaultdict(list)
    for index, event in enumerate(scenario.events):
        if not isinstance(event, Threat):
            continue
        by_turn[event.turn].append(index)
        findings += _check_threat_phase(scenario, index, event)
    allowed = 2 if scenario.allows_double_threats else 1
    for turn, indexes in sorted(by_turn.items()):
        for index in indexes[allowed:]:
            first = scenario.events[indexes[0]]
            key = "problem.rule.turn_again_double" if allowed == 2 else "problem.rule.turn_again"
            findings.append(Finding(said(key, turn=turn, first=format_time(first.at_ms)), event_index=index, field="t"))
    return findings


def _check_threat_phase(scenario: Scenario, index: int, threat: Threat) -> list[Finding]:
    due = turn_phase(threat.turn)
    actual = scenario.phase_of(threat.at_ms)
    if due == actual:
        return []
    if due >= len(scenario.phase_ends_ms):
        return [Finding(
            said("problem.rule.turn_no_phase", turn=threat.turn, phases=len(scenario.phase_ends_ms),
                 last=4 * (len(scenario.phase_ends_ms) - 1)),
            event_index=index, field="t",
        )]
    phase_start = scenario.phase_ends_ms[due - 2] if due >= 2 else 0
    phase_end = scenario.phase_ends_ms[due - 1]
    window = said("problem.rule.window", phase=due, start=format_time(phase_start), end=format_time(phase_end))
    late_ms = threat.at_ms - phase_end
    if actual > due and late_ms <= LATE_THREAT_GRACE_MS:
        return [Finding(
            said("problem.rule.turn_late", turn=threat.turn, window=window, seconds=late_ms // 1000),
            Severity.WARNING, event_index=index, field="at",
        )]
    at = format_time(threat.at_ms)
    if actual == len(scenario.phase_ends_ms):
        found = said("problem.rule.turn_in_last", turn=threat.turn, window=window, at=at, phase=actual)
    else:
        found = said("problem.rule.turn_phase", turn=threat.turn, window=window, at=at, phase=actual,
                     low=4 * (actual - 1) + 1, high=min(4 * actual, MAX_TURN))
    return [Finding(found, event_index=index, field="t")]


def _check_outages(scenario: Scenario) -> list[Finding]:
    findings = []
    outages = [(i, e) for i, e in enumerate(scenario.events) if isinstance(e, CommsDown)]
    for (_, first), (index, second) in zip(outages, outages[1:]):
        if second.at_ms < first.until_ms:
            findings.append(Finding(
                said("problem.rule.outages_overlap", at=format_time(second.at_ms), start=format_time(first.at_ms),
                     end=format_time(first.until_ms)),
                event_index=index, field="at",
            ))
    for index, event in enumerate(scenario.events):
        for _, outage in outages:
            if event is not outage and outage.at_ms < event.at_ms < outage.until_ms and not isinstance(event, CommsDown):
                findings.append(Finding(
                    said("problem.rule.during_outage", at=format_time(event.at_ms), start=format_time(outage.at_ms),
                         end=format_time(outage.until_ms)),
                    Severity.WARNING, event_index=index, field="at",
                ))
    return findings


def _shipped_timeline(scenario: Scenario) -> Timeline:
    """The timeline of `scenario` with the shipped phrase lengths of its language's synthesized voice."""
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import build_timeline

    language = scenario.language or "en"
    return build_timeline(scenario, phrase_book(language), default_measure(language))


def spacing_findings(scenario: Scenario, timeline: Timeline) -> list[Finding]:
    """A warning at each event whose announcement overlaps another in `timeline` (`plan` marks the same ones)."""
    index_of = {id(event): i for i, event in enumerate(scenario.events)}
    findings = []
    for overlap in timeline.overlaps():
        cue = overlap.second if overlap.second.event is not None else overlap.first
        findings.append(Finding(overlap_said(overlap), Severity.WARNING, event_index=index_of.get(id(cue.event)), field="at"))
    return findings


def overlap_said(overlap: Overlap, *, advice: bool = True) -> Said:
    """An overlap of two announcements, as `plan` words it (Overlap.describe), in any language;
    with `advice`, as `validate` warns of it ("...; move one of them")."""
    from timekeeper.grammar.times import format_time

    second, first = overlap.second, overlap.first
    described = said("problem.overlap", second=said(f"problem.cue.{second.kind.value}"),
                     at=format_time(second.at_ms, precise=True), seconds=f"{overlap.overlap_ms / 1000:.1f}",
                     first=said(f"problem.cue.{first.kind.value}"), of=format_time(first.at_ms, precise=True))
    return said("problem.rule.overlap", overlap=described) if advice else described
