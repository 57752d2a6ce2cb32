"""Which official rules the generator's settings relax, said two ways from one description: on
the command line with its flags ("event-counts: --outages 6 (official 2-5; ...)"), and in the
page with its field labels, in the page's language ("Ereignisanzahl — Kommunikationsausfälle: 6
(offiziell 2-5; ...)"). The words are the `generate.*` entries of the message catalogues; the
command line reads the English ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from timekeeper.generate.options import OPTION_SPECS, SPECS_BY_KEY, span_text
from timekeeper.generate.problems import setting_text
from timekeeper.generate.settings import COUNT_KEYS, GenerateOptions, Span
from timekeeper.generate.threats import fewest_external
from timekeeper.generate.windows import GRID_MS
from timekeeper.grammar.times import format_time
from timekeeper.i18n import FALLBACK, translate
from timekeeper.model import EventType


@dataclass(frozen=True)
class Relaxation:
    """One official rule a setting relaxes: the rule's name, its message (`generate.relaxed.<message>`),
    the settings that relax it as (option key, typed value), and the figures the message names."""

    rule: str
    message: str
    settings: tuple[tuple[str, Any], ...]
    figures: tuple[tuple[str, str], ...] = ()

    def text(self, ui: str | None = None) -> str:
        """As the command line says it (ui None: flags, "rule: ..."), or as the page does (field labels, in `ui`)."""
        language = ui or FALLBACK
        settings = (" " if ui is None else ", ").join(setting_text(key, SPECS_BY_KEY[key].shown(value), ui)
                                                      for key, value in self.settings)
        said = translate(language, f"generate.relaxed.{self.message}", settings=settings, **dict(self.figures))
        if ui is None:
            return f"{self.rule}: {said}"
        return translate(ui, "generate.relaxes", rule=translate(ui, f"generate.rule.{self.rule.replace('-', '_')}"), text=said)


def relaxations(options: GenerateOptions) -> tuple[str, ...]:
    """`rule: setting (official figure)` for every official rule these settings relax (empty: none),
    as the command line says it."""
    return tuple(relaxation.text() for relaxation in relaxed_rules(options))


def _seconds(span_ms: Span) -> str:
    return span_text((span_ms[0] // 1000, span_ms[1] // 1000))


def relaxed_rules(options: GenerateOptions) -> tuple[Relaxation, ...]:
    """Every official rule these settings relax, in the order of the options."""
    o, official, found = options, options.official, []
    p = o.profile
    lengths: tuple[str, Any] = ("length", o.length_ms) if o.length_ms else ("phase_lengths", o.phase_lengths_ms)
    official_phases = ("official", ", ".join(f"{format_time(a)}-{format_time(b)}" for a, b in official.phase_ms))
    if p.scaled:  # a short mission: its phases, threats and events scaled down with it (shortened.py), one note
        found.append(Relaxation("phase-lengths", "shortened", (lengths,), (
            official_phases, ("points", str(o.default_level)), ("incoming", span_text(p.incoming_data)),
            ("transfers", span_text(p.data_transfers)), ("outages", span_text(p.outages)))))
    elif p.phase_ms != official.phase_ms:
        inside = all(low - GRID_MS <= a and b <= high + GRID_MS for (a, b), (low, high) in zip(p.phase_ms, official.phase_ms))
        if not inside:
            found.append(Relaxation("phase-lengths", "phase_lengths", (lengths,), (official_phases,)))
    for placed in (EventType.COMMS_DOWN, EventType.INCOMING_DATA, EventType.DATA_TRANSFER):  # the order of the options
        if p.scaled and o.asked_count(placed) is None:
            continue
        if p.count_per_phase(placed) != official.count_per_phase(placed):
            found.append(Relaxation("event-counts", "event_counts", ((COUNT_KEYS[placed], p.count(placed)),), (
                ("official", span_text(official.count(placed))), ("most", str(p.count(placed)[1])))))
    asked_outages = o.outages is not None or o.outage_length_ms is not None
    if (asked_outages or not p.scaled) and (not _inside(p.outage_ms, official.outage_ms)
                                            or not _inside(p.comms_down_ms, official.comms_down_ms)):
        found.append(Relaxation("comms-down", "comms_down", (), (
            ("each", _seconds(p.outage_ms)), ("total", _seconds(p.comms_down_ms)),
            ("official_each", _seconds(official.outage_ms)), ("official_total", _seconds(official.comms_down_ms)))))
    official_chance = official.ambushes / official.threat_phases
    if abs(p.ambush_chance - official_chance) > 0.005:
        found.append(Relaxation("ambush", "ambush", (("ambush_chance", o.ambush_percent),),
                                (("official", str(round(100 * official_chance))),)))
    if o.level != o.default_level:
        found.append(Relaxation("threat-mix", "threat_level", (("threat_level", o.level),), (("official", str(o.default_level)),)))
    for mine, theirs, key in ((p.serious, official.serious, "max_serious"), (p.internal, official.internal, "max_internal")):
        if mine != theirs and (getattr(o, key) is not None or not p.scaled):
            found.append(Relaxation("threat-mix", key, ((key, getattr(o, key)),),
                                    (("threats", span_text(mine)), ("official", span_text(theirs)))))
    fewest, official_fewest = fewest_external(o), fewest_external(GenerateOptions(kind=o.kind, players=o.players))
    asked = tuple((spec.key, getattr(o, spec.field)) for spec in OPTION_SPECS
                  if spec.rule == "threat-mix" and getattr(o, spec.field) is not None)
    if fewest < min(3, official_fewest) and (asked or not p.scaled):  # a zone may get no threat (a 4-player crew hears
        # fewer on some official tracks; a short mission carries fewer: its own note says so)
        found.append(Relaxation("zone-spread", "zone_spread", asked, (
            ("fewest", str(fewest)), ("official", span_text(official.external)))))
    if p.internal_turns != official.internal_turns:
        found.append(Relaxation("internal-turns", "internal_turns", (), (
            ("official", "T+" + ", T+".join(map(str, official.internal_turns))),)))
    return tuple(found)


def _inside(span: Span, official: Span) -> bool:
    return official[0] <= span[0] and span[1] <= official[1]
