"""random.Random(seed) + options -> a new Scenario that plays like an official track.

The mission is built in stages, each drawing only from ranges known to fit (so no stage can fail
and nothing is retried): phase lengths, threats, the other events, their windows, their times.
"""

from __future__ import annotations

import random

from timekeeper.generate.cues import cue_lengths
from timekeeper.generate.draw import below, chance, from_histogram, pick, shuffled
from timekeeper.generate.layout import Item, Window, event_item, phase_windows, spread, threat_item
from timekeeper.generate.options import check_options, generator_pairs, reproducing_command
from timekeeper.generate.profile import PLACED, Profile
from timekeeper.generate.room import required_count
from timekeeper.generate.settings import GenerateOptions
from timekeeper.generate.threats import plan_threats
from timekeeper.generate.windows import GRID_MS, TWENTY_SECONDS_MS
from timekeeper.model import CommsDown, DataTransfer, Event, EventType, IncomingData, Scenario, Threat, TrackKind
from timekeeper.titles import generated_title

Phase = tuple[Window, Window]  # (main window, last-minute window)


def generate(seed: int, options: GenerateOptions = GenerateOptions(), *, title: str | None = None,
             extra: tuple[tuple[str, str], ...] = ()) -> Scenario:
    """The mission of `seed` under `options`; the same arguments give the same mission everywhere."""
    check_options(options)
    rng = random.Random(seed)
    profile = options.profile
    lengths = cue_lengths()
    ends_ms = _phase_ends(rng, profile.phase_ms, profile.mission_ms)
    phases = [
        phase_windows(index + 1, start_ms, end_ms, lengths, profile.first_event_ms[index])
        for index, (start_ms, end_ms) in enumerate(zip((0, *ends_ms[:-1]), ends_ms))
    ]
    threat_items = [threat_item(t, lengths, profile.min_gap_ms) for t in plan_threats(rng, options)]
    _place_threats(rng, threat_items, phases, profile)
    late_targets = [from_histogram(rng, profile.late_events) for _ in phases]
    for entry in _event_items(rng, options):
        _assign(rng, entry, phases, late_targets, options)
    events = _timed_events(rng, phases, profile)
    generator = generator_pairs(options) + extra
    return Scenario(
        title=title or generated_title(options.kind, seed),
        phase_ends_ms=ends_ms,
        events=tuple(events),
        kind=TrackKind(options.kind),
        notes=f"Made by '{reproducing_command(seed, generator)}'. Play it with 'timekeeper live FILE'.",
        players=options.players,
        seed=seed,
        generator=generator,
    )


def _phase_ends(rng: random.Random, spans: tuple[tuple[int, int], ...], mission_ms: int | None) -> tuple[int, ...]:
    """Phase lengths on the grid, each in its span; with `mission_ms` they add up to exactly that."""
    ends, at_ms = [], 0
    for index, (low_ms, high_ms) in enumerate(spans):
        if mission_ms is not None:
            rest_low = sum(low for low, _ in spans[index + 1:])
            rest_high = sum(high for _, high in spans[index + 1:])
            low_ms = max(low_ms, mission_ms - at_ms - rest_high)
            high_ms = min(high_ms, mission_ms - at_ms - rest_low)
        at_ms += GRID_MS * pick(rng, low_ms // GRID_MS, high_ms // GRID_MS)
        ends.append(at_ms)
    return tuple(ends)


def _place_threats(rng: random.Random, items: list[Item], phases: list[Phase], profile: Profile) -> None:
    """Threats go to the main window of their phase; now and then the last one is a late ambush, and
    always when the main window cannot hold them all (a short phase: room.py made sure the late one can)."""
    for number, (main, late) in enumerate(phases[:-1], start=1):
        mine = [item for item in items if item.threat is not None and item.threat.phase == number]
        ambush = len(mine) > 1 and chance(rng, profile.ambush_chance)  # a phase never starts silent, unless
        if ambush or (mine and sum(item.footprint_ms for item in mine) > main.free_ms):  # too short to say it early
            late.add(mine.pop())
        main.add(*mine)


def _event_items(rng: random.Random, options: GenerateOptions) -> list[tuple[Item, int | None, bool]]:
    """Incoming data, data transfers and outages: (item, the phase it must go to or None, required).

    Required items (the official minimum per phase and in total, or every one the user asked for)
    come first.
    """
    profile = options.profile
    lengths = cue_lengths()
    planned: list[tuple[Item, int | None, bool]] = []
    for placed in PLACED:  # largest first
        per_phase = profile.count_per_phase(placed)
        minima = [low for low, _ in per_phase]
        low, high = profile.count(placed)
        low = max(low, sum(minima))
        count = pick(rng, low, min(high, sum(high_p for _, high_p in per_phase)))
        required = max(low, min(count, required_count(options, placed)))
        durations = _outage_lengths(rng, count, profile) if placed is EventType.COMMS_DOWN else [0] * count
        items = [event_item(placed, lengths, profile.min_gap_ms, ms) for ms in shuffled(rng, durations)]
        fixed = [phase for phase, minimum in enumerate(minima) for _ in range(minimum)]
        planned += [(item, fixed[i] if i < len(fixed) else None, i < required) for i, item in enumerate(items)]
    return sorted(planned, key=lambda entry: (entry[1] is None, not entry[2]))


def _outage_lengths(rng: random.Random, count: int, profile: Profile) -> list[int]:
    """`count` outage lengths on the grid, each in the official range, adding up to an official total."""
    (low_ms, high_ms), (total_low_ms, total_high_ms) = profile.outage_ms, profile.comms_down_ms
    low, high = low_ms // GRID_MS, high_ms // GRID_MS
    total = pick(rng, max(total_low_ms // GRID_MS, count * low), min(total_high_ms // GRID_MS, count * high))
    units = [low] * count
    for _ in range(total - low * count):
        open_slots = [index for index, value in enumerate(units) if value < high]
        units[open_slots[below(rng, len(open_slots))]] += 1
    return [unit * GRID_MS for unit in units]


def _assign(rng: random.Random, entry: tuple[Item, int | None, bool], phases: list[Phase],
            late_targets: list[int], options: GenerateOptions) -> None:
    """Put an item into a window with room: its fixed phase, or a phase below the official maximum.

    An optional item that fits nowhere is left out; a required one goes to any phase with room
    (check_room makes sure there is room for every required one).
    """
    item, phase, required = entry
    limits = [(0, min(official, own)) for (_, official), (_, own)  # (a short mission's own are lower: shortened.py)
              in zip(options.official.count_per_phase(item.kind), options.profile.count_per_phase(item.kind))]
    if phase is not None:
        candidates = [phase]
    else:
        candidates = [p for p in range(len(phases)) if _count(phases[p], item.kind) < limits[p][1]]
    fitting = [p for p in candidates if any(w.free_ms >= item.footprint_ms for w in phases[p])]
    if not fitting:
        if not required:
            return
        fitting = [p for p in range(len(phases)) if any(w.free_ms >= item.footprint_ms for w in phases[p])]
        if not fitting:
            return  # never seen within what check_room allows; the event-counts rule would report it
    chosen = fitting[below(rng, len(fitting))]
    main, late = phases[chosen]
    late_count = sum(1 for i in late.items if i.threat is None)
    wants_late = late_count < late_targets[chosen] and late.free_ms >= item.footprint_ms and bool(main.items)
    (late if wants_late or main.free_ms < item.footprint_ms else main).add(item)


def _count(phase: Phase, kind: EventType) -> int:
    return sum(1 for window in phase for item in window.items if item.kind is kind)


def _interleave(rng: random.Random, ordered: list[Item], others: list[Item]) -> list[Item]:
    """`ordered` kept in order with `others` mixed in at random places."""
    merged, i, j = [], 0, 0
    while i < len(ordered) or j < len(others):
        if below(rng, len(ordered) - i + len(others) - j) < len(ordered) - i:
            merged.append(ordered[i])
            i += 1
        else:
            merged.append(others[j])
            j += 1
    return merged


def _timed_events(rng: random.Random, phases: list[Phase], profile: Profile) -> list[Event]:
    """Times for every item: the first soon after the phase starts, an ambush as late as official ones."""
    events: list[Event] = []
    lead_low_ms, lead_high_ms = profile.ambush_lead_ms
    starts_ms = [0] + [late.end_ms + TWENTY_SECONDS_MS for _, late in phases[:-1]]
    for (main, late), start_ms, (_, first_high_ms) in zip(phases, starts_ms, profile.first_event_ms):
        threats = [item for item in main.items if item.threat is not None]
        main.items = _interleave(rng, threats, shuffled(rng, [i for i in main.items if i.threat is None]))
        ambush = [item for item in late.items if item.threat is not None]
        late.items = ambush + shuffled(rng, [i for i in late.items if i.threat is None])
        first_gap_ms = max(0, start_ms + first_high_ms - main.start_ms)
        events += [_event(at_ms, item) for at_ms, item in spread(rng, main, first_gap_ms, short_tail=not late.items)]
        late_cap_ms = lead_high_ms - lead_low_ms if ambush else None
        events += [_event(at_ms, item) for at_ms, item in spread(rng, late, late_cap_ms)]
    return events


def _event(at_ms: int, item: Item) -> Event:
    if item.threat is not None:
        t = item.threat
        return Threat(at_ms, t.turn, None if t.internal else t.zone, t.serious, t.unconfirmed, t.pile)
    if item.kind is EventType.COMMS_DOWN:
        return CommsDown(at_ms, at_ms + item.outage_ms)
    return IncomingData(at_ms) if item.kind is EventType.INCOMING_DATA else DataTransfer(at_ms)
