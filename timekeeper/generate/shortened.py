"""Missions shorter than the official ones: the phases and the official figures scaled to the
length asked for, the way the official training tracks are shorter and carry less.

The test runs last 7:00 and carry 3 threats (3 points), 2-3 data transfers, 1-2 incoming data and
no outage; a simulation or mission of 10:00 carries 5 or 7 points, 3-4 transfers, 2-3 incoming
data and 2-5 outages. A mission shorter than the shortest official one of its kind (9:20 for
missions and simulations, 12:20 for double action) is scaled the same way, by the share of that
length it keeps (`factor`): its phases keep their official proportions, but none lasts under
MIN_PHASE_MS (its warnings need a minute and a half); its threat points and every count are
that share of the official ones (rounded half up; at least 2 points, one incoming data and one
transfer, and one outage where the official tracks always have one); and each phase gets at most
the threats its windows hold (its main window, and one ambush in its last minute), which bounds
the threat points too. Nothing changes for a length within or above the official range.
"""

from __future__ import annotations

import math
from dataclasses import replace

from timekeeper.generate.cues import cue_lengths
from timekeeper.generate.profile import PLACED, Profile
from timekeeper.generate.windows import GRID_MS, TWENTY_SECONDS_MS, events_need_ms, footprint_ms, unusable_ms, window_spans
from timekeeper.model import TURNS_PER_PHASE, EventType

Span = tuple[int, int]

MIN_PHASE_MS = 90_000  # the shortest phase: its one-minute and twenty-second warnings, its countdown, a little room
MIN_POINTS = 2  # the fewest confirmed threat points a short mission carries


def official_length_ms(official: Profile) -> int:
    """The shortest official track of the kind: its shortest phases added up."""
    return sum(low for low, _ in official.phase_ms)


def factor(official: Profile, length_ms: int) -> float:
    """The share of the shortest official length that `length_ms` keeps (1.0 for official or longer lengths)."""
    return min(1.0, length_ms / official_length_ms(official))


def fitted_phases(official: tuple[Span, ...], length_ms: int) -> tuple[Span, ...]:
    """The phases' (shortest, longest) lengths for a mission of `length_ms`: the official ones scaled
    to it, on the grid; a phase that would last under MIN_PHASE_MS lasts exactly that, and the
    others share the rest in their official proportions."""
    floored: set[int] = set()
    while True:
        middles = [(low + high) / 2 for low, high in official]
        rest_ms = length_ms - MIN_PHASE_MS * len(floored)
        share = rest_ms / sum(m for i, m in enumerate(middles) if i not in floored)
        newly = {i for i, m in enumerate(middles) if i not in floored and (official[i][0] * share < MIN_PHASE_MS)}
        if not newly:
            break
        floored |= newly
    spans = [(MIN_PHASE_MS, MIN_PHASE_MS) if i in floored else (_grid(low * share), _grid(high * share))
             for i, (low, high) in enumerate(official)]
    for index in (i for i in range(len(spans)) if i not in floored):  # the grid's rounding must still add up
        low, high = spans[index]
        spans[index] = (low - max(0, sum(s[0] for s in spans) - length_ms), high + max(0, length_ms - sum(s[1] for s in spans)))
    return tuple(spans)


def _grid(ms: float) -> int:
    return int(round(ms / GRID_MS)) * GRID_MS


def shortened(profile: Profile, official: Profile, exact_phases: bool = False) -> Profile:
    """`profile` (its phases already fitted to its length) with its threats and events scaled to the
    share of the official length it keeps, and, with `exact_phases` (--phase-lengths, which may make
    one phase short in a long mission), each phase's to its own share; unchanged when no phase is
    shorter than official."""
    if profile.mission_ms is None:
        return profile
    share = factor(official, profile.mission_ms)
    if exact_phases:
        shares = tuple(min(1.0, low / official_low) for (low, _), (official_low, _) in zip(profile.phase_ms, official.phase_ms))
        # the whole mission carries what its phases hold of the official ones (a long phase makes up for no short one)
        share = min(share, sum(min(low, official_low) for (low, _), (official_low, _) in zip(profile.phase_ms, official.phase_ms))
                    / official_length_ms(official))
    else:
        shares = (share,) * len(profile.phase_ms)
        if share < 1.0:
            profile = replace(profile, phase_ms=_narrowed(profile.phase_ms, profile.mission_ms))
    held = phase_capacity(profile)
    if share >= 1.0 and min(shares) >= 1.0 and min(held) >= TURNS_PER_PHASE + official.double_turns[1]:
        return profile
    first_event = tuple((low, high if part >= 1.0 else max(high, length - TWENTY_SECONDS_MS - GRID_MS))  # a short phase
                        for (low, high), (length, _), part in zip(profile.first_event_ms, profile.phase_ms, shares))  # may open late
    p = replace(profile, first_event_ms=first_event, outages=_total(official.outages, share, 0),
                outages_per_phase=_per_phase(official.outages_per_phase, shares),
                outage_ms=(official.outage_ms[0], max(official.outage_ms[0], _grid(official.outage_ms[1] * min(shares)))),
                data_transfers=_total(official.data_transfers, share, 1),
                data_transfers_per_phase=_per_phase(official.data_transfers_per_phase, shares),
                incoming_data=_total(official.incoming_data, share, 1),
                incoming_data_per_phase=_per_phase(official.incoming_data_per_phase, shares))
    (fewest, most), (shortest_ms, longest_ms) = p.outages, p.outage_ms
    comms_low = min(fewest * longest_ms, GRID_MS * math.floor(official.comms_down_ms[0] * share / GRID_MS))
    comms_high = min(most * longest_ms, GRID_MS * math.ceil(official.comms_down_ms[1] * share / GRID_MS))
    p = replace(p, comms_down_ms=(comms_low, max(comms_low, comms_high, most * shortest_ms)))  # any count drawn fits
    held = _leaving_room(p, held)
    doubles = max(0, min(math.floor(official.double_turns[1] * share), min(held) - TURNS_PER_PHASE))
    p = replace(p, double_turns=(0, doubles))
    capacity = tuple(min(TURNS_PER_PHASE, count - doubles) for count in held)  # turns a phase holds, with its doubles
    spare = max(0, sum(capacity) + doubles - 1)  # unconfirmed reports leave room for one confirmed threat at least
    unconfirmed = _at_most(_total(official.unconfirmed, share, 1 if official.unconfirmed[0] else 0), spare)
    unconfirmed_points = _at_most(_total(official.unconfirmed_points, share, unconfirmed[0]), spare)
    serious = _total(official.serious, share, 1 if official.serious[0] else 0)
    slots = sum(capacity) + doubles
    # as many points as the slots carry with the scaled number of serious threats (threats.py makes
    # more of them serious where the points need it: room for the threats comes first)
    most = min(slots - unconfirmed[1] + serious[1], 2 * (slots - unconfirmed[1]))
    low, high = (max(1, min(most, max(MIN_POINTS, _half_up(value * share)))) for value in official.confirmed_points)
    points = (low, high)
    serious = (min(serious[0], low // 2), min(serious[1], high // 2))  # a serious threat is two points
    threats = (points[0] - serious[1] + unconfirmed[0], points[1] - serious[0] + unconfirmed_points[1])
    internal = _total(official.internal, share, 0)  # (a few threats may all fall on turns without internal ones)
    return replace(p, scaled=True, turns=sum(capacity), confirmed_points=points, serious=serious, unconfirmed=unconfirmed, unconfirmed_points=unconfirmed_points,
                   serious_internal=(0, internal[1]), internal=internal,  # (few external threats to make serious)
                   threats=threats, external=(max(0, threats[0] - internal[1]), threats[1] - internal[0]),
                   threats_per_phase=tuple((min(math.floor(low * part), cap), cap)
                                           for (low, _), cap, part in zip(official.threats_per_phase, capacity, shares)))


def _leaving_room(profile: Profile, held: tuple[int, ...]) -> tuple[int, ...]:
    """`held` threats per threat phase, fewer where need be so the events a mission must carry
    still fit between them (reckoned as room.py reckons it: the longest threat's footprint each,
    and the time windows leave unused)."""
    lengths = cue_lengths()
    longest = _longest_threat_ms(profile)
    counts = {placed: profile.required(placed) for placed in PLACED}
    needed, largest = events_need_ms(counts, lengths, profile.min_gap_ms, profile.outage_ms[1], profile.comms_down_ms[1])
    free, mains, lates, start_ms = 0, 0, [], 0
    for index, (low_ms, _) in enumerate(profile.phase_ms):
        (main_start, main_end), (late_start, late_end) = window_spans(index + 1, start_ms, start_ms + low_ms, lengths,
                                                                      profile.first_event_ms[index])
        free += max(0, main_end - main_start) + max(0, late_end - late_start)
        mains, start_ms = mains + 1, start_ms + low_ms
        lates.append(max(0, late_end - late_start))
    spare_ms = free - unusable_ms(lates, mains, largest) - needed
    fitted = list(held)
    while sum(fitted) * longest > spare_ms and sum(fitted) > len(fitted):
        fitted[fitted.index(max(fitted))] -= 1
    return tuple(fitted)


def _longest_threat_ms(profile: Profile) -> int:
    return max(footprint_ms(ms, profile.min_gap_ms[EventType.INTERNAL if key[1] else EventType.THREAT])
               for key, ms in cue_lengths().threat_ms.items())


def _narrowed(spans: tuple[Span, ...], length_ms: int) -> tuple[Span, ...]:
    """Each phase within a grid step of its share of the length (a short mission's phases are known
    to within a few seconds: the room for its windows is reckoned from the shortest)."""
    middles = [_grid((low + high) / 2) for low, high in spans]
    narrow = [(max(low, middle - GRID_MS), min(high, middle + GRID_MS)) for (low, high), middle in zip(spans, middles)]
    if sum(low for low, _ in narrow) <= length_ms <= sum(high for _, high in narrow):
        return tuple(narrow)
    return spans


def phase_capacity(profile: Profile) -> tuple[int, ...]:
    """How many threats each threat phase (1 and 2) holds at its shortest: as many as its main
    window takes of the longest threat, and one ambush in its last minute."""
    lengths = cue_lengths()
    longest = _longest_threat_ms(profile)
    found, start_ms = [], 0
    for index, (low_ms, _) in enumerate(profile.phase_ms[:2]):
        (main_start, main_end), (late_start, late_end) = window_spans(index + 1, start_ms, start_ms + low_ms, lengths,
                                                                      profile.first_event_ms[index])
        found.append(max(0, main_end - main_start) // longest + (1 if late_end - late_start >= longest else 0))
        start_ms += low_ms
    return tuple(found)


def _half_up(value: float) -> int:
    return math.floor(value + 0.5)


def _total(span: Span, share: float, least: int) -> Span:
    """An official count scaled: the fewest rounded down (at least `least`), the most half up."""
    low = max(least, math.floor(span[0] * share))
    return low, max(low, _half_up(span[1] * share))


def _at_most(span: Span, most: int) -> Span:
    return min(span[0], most), min(span[1], most)


def _per_phase(spans: tuple[Span, ...], shares: tuple[float, ...]) -> tuple[Span, ...]:
    """Official per-phase counts scaled by each phase's share: the fewest rounded down, the most up."""
    return tuple((math.floor(low * share), max(math.floor(low * share), math.ceil(high * share)))
                 for (low, high), share in zip(spans, shares))
