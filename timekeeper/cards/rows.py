"""The rows of a scenario card, in the words of one language. Every card format reads these."""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.grammar.durations import default_measure
from timekeeper.grammar.phrases import PhraseBook, phrase_book
from timekeeper.grammar.script import CueKind, ScriptOptions, build_timeline
from timekeeper.grammar.times import format_time
from timekeeper.model import Announcement, CommsDown, DataTransfer, Event, IncomingData, Scenario, Threat, Zone
from timekeeper.titles import local_title


@dataclass(frozen=True)
class CardRow:
    """One line of a card. `zone` keeps the Zone so formats can colour it; `spoken` is the
    announcement text (empty for phase ends). A threat's `detail` names its threat pile, if any."""

    at_ms: int
    time: str
    turn: str
    what: str
    zone: Zone | None
    zone_name: str
    unconfirmed: bool
    detail: str
    spoken: str
    event: Event | None = None
    phase_end: int | None = None


@dataclass(frozen=True)
class CardHeader:
    title: str
    kind: str
    facts: tuple[str, ...]  # player count, seed, generator options: what is known
    phase_ends: tuple[str, ...]
    notes: str


def card_header(scenario: Scenario, phrases: PhraseBook) -> CardHeader:
    facts = []
    if scenario.players is not None:
        facts.append(phrases.word("players", n=scenario.players))
    if scenario.seed is not None:
        facts.append(phrases.word("seed", seed=scenario.seed))
    if scenario.generator:
        from timekeeper.generate.options import setting_facts

        facts += setting_facts(scenario.generator, phrases.language)
    if scenario.pace != 1.0:
        from babel.numbers import format_decimal

        from timekeeper.i18n import translate, ui_language

        pace = format_decimal(scenario.pace, locale=ui_language(phrases.language))
        facts.append(translate(phrases.language, "card.pace", pace=pace))
    return CardHeader(
        title=local_title(scenario.title, phrases.language),
        kind=phrases.word(f"kind_{scenario.kind.value}"),
        facts=tuple(facts),
        phase_ends=tuple(format_time(ms) for ms in scenario.phase_ends_ms),
        notes=scenario.notes,
    )


def card_rows(scenario: Scenario, phrases: PhraseBook | None = None) -> list[CardRow]:
    """Every event and phase end of `scenario` in time order, worded in `phrases`' language."""
    phrases = phrases or phrase_book(scenario.language or "en")
    spoken = _spoken_by_event(scenario, phrases)
    rows = [event_row(event, phrases, spoken.get(id(event), "")) for event in scenario.events]
    last = len(scenario.phase_ends_ms)
    for number, end_ms in enumerate(scenario.phase_ends_ms, start=1):
        what = phrases.word("mission_end") if number == last else phrases.word("phase_end", n=number)
        rows.append(CardRow(end_ms, format_time(end_ms), "", what, None, "", False, "", "", None, number))
    rows.sort(key=lambda row: (row.at_ms, row.phase_end is None))
    return rows


def _spoken_by_event(scenario: Scenario, phrases: PhraseBook) -> dict[int, str]:
    """The announcement text of each event, from the one announcement grammar."""
    timeline = build_timeline(scenario, phrases, default_measure(phrases.language), ScriptOptions(players=5))
    texts: dict[int, str] = {}
    for cue in timeline.cues:
        if cue.event is None:
            continue
        if cue.kind is CueKind.COMMS_RESTORED:
            texts[id(cue.event)] = f"{texts.get(id(cue.event), '')} … {cue.text}".strip()
        else:
            texts[id(cue.event)] = cue.text
    return texts


def event_row(event: Event, phrases: PhraseBook, spoken: str) -> CardRow:
    """The card row of one event (also the live screen's compact form of its announcement)."""
    time = format_time(event.at_ms)
    if isinstance(event, Threat):
        key = ("serious_" if event.serious else "") + ("internal_threat" if event.internal else "threat")
        zone_name = phrases.word(f"zone_{event.zone.value}") if event.zone else ""
        pile = phrases.word(f"pile_{event.pile.value}") if event.pile else ""
        return CardRow(event.at_ms, time, f"T+{event.turn}", phrases.word(key), event.zone, zone_name,
                       event.unconfirmed, pile, spoken, event)
    if isinstance(event, CommsDown):
        detail = phrases.word("comms_until", time=format_time(event.until_ms))
        return CardRow(event.at_ms, time, "", phrases.word("comms_down"), None, "", False, detail, spoken, event)
    if isinstance(event, Announcement):
        return CardRow(event.at_ms, time, "", phrases.word("announce"), None, "", False, event.text, spoken, event)
    key = "incoming_data" if isinstance(event, IncomingData) else "data_transfer"
    assert isinstance(event, (IncomingData, DataTransfer))
    return CardRow(event.at_ms, time, "", phrases.word(key), None, "", False, "", spoken, event)
