"""Choose the threats of a mission: how many, which turns, which kinds, which are unconfirmed.

Every choice is drawn from a range that is known to be possible, so there is nothing to retry.
Every draw goes through `draw` (built on `random()` alone, whose numbers Python keeps the same on
every version for the same seed).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from timekeeper.generate.draw import from_histogram, pick, shuffled
from timekeeper.generate.features import ZONE_ORDER
from timekeeper.model import TURNS_PER_PHASE, Pile, Zone

if TYPE_CHECKING:
    from timekeeper.generate.settings import GenerateOptions

__all__ = ["PlannedThreat", "fewest_external", "pick", "plan_threats", "shuffled"]


@dataclass(frozen=True)
class PlannedThreat:
    turn: int
    internal: bool = False
    serious: bool = False
    unconfirmed: bool = False
    zone: Zone | None = None
    pile: Pile | None = None

    @property
    def phase(self) -> int:
        return (self.turn - 1) // TURNS_PER_PHASE + 1


def scaled(span: tuple[int, int], level: int, default_level: int) -> tuple[int, int]:
    """An official range scaled from the official threat points to `level` (rounded half up)."""
    return tuple((2 * value * level + default_level) // (2 * default_level) for value in span)  # type: ignore[return-value]


def fewest_external(options: GenerateOptions) -> int:
    """A floor under the external threats (unconfirmed reports included) plan_threats gives under `options`.

    For every report count and serious-report count the sampler may draw: the fewest threats
    (the most serious confirmed ones) less the most internal ones; with the official threat
    settings, no fewer than the official tracks have (as `_kinds` keeps them). Below three it is
    the fewest the sampler really gives (tests compare it with generated threats).
    """
    profile = options.profile
    points_low, points_high = profile.unconfirmed_points if options.players == 5 else (0, 0)
    totals = []
    for points in range(points_low, points_high + 1):
        for unconfirmed_serious in range(_most_unconfirmed_serious(points, options) + 1):
            unconfirmed = points - unconfirmed_serious
            serious = _serious_span(options, unconfirmed, unconfirmed_serious)[1]
            totals.append(options.level - serious + unconfirmed)
    fewest = max(0, min(totals) - profile.internal[1])
    if options.is_default:
        fewest = max(fewest, profile.external[0] - (0 if options.players == 5 else profile.unconfirmed[1]))
    return fewest


def _serious_span(options: GenerateOptions, unconfirmed: int, unconfirmed_serious: int) -> tuple[int, int]:
    """How many confirmed threats may be serious, with `unconfirmed` reports (`unconfirmed_serious` of them serious)."""
    profile, level = options.profile, options.level
    confirmed_slots = options.threat_slots - unconfirmed
    serious_low, serious_high = scaled(profile.serious, level, options.default_level)
    serious_low = max(serious_low - unconfirmed_serious, level - confirmed_slots, 0)
    serious_high = min(max(serious_high - unconfirmed_serious, serious_low), level // 2)
    if profile.max_serious is not None:
        serious_high = max(min(serious_high, profile.max_serious - unconfirmed_serious), serious_low)
    return serious_low, serious_high


def plan_threats(rng: random.Random, options: GenerateOptions) -> list[PlannedThreat]:
    """The threats of one mission in turn order (not yet timed)."""
    profile = options.profile
    unconfirmed_points = pick(rng, *profile.unconfirmed_points) if options.players == 5 else 0
    unconfirmed_serious = _unconfirmed_serious(rng, unconfirmed_points, options)
    unconfirmed = unconfirmed_points - unconfirmed_serious  # each serious one counts 2 points
    serious = pick(rng, *_serious_span(options, unconfirmed, unconfirmed_serious))
    total = options.level - serious + unconfirmed
    doubles = _doubles(rng, total, options)
    turns = _turns(rng, total - doubles, options)
    threats = _kinds(rng, turns, doubles, options)
    threats = _mark(rng, threats, unconfirmed, unconfirmed_serious, serious, options)
    threats = _zones(rng, threats, profile.zone_excess)
    return _piles(rng, threats, profile.threat_colors)


def _zones(rng: random.Random, threats: list[PlannedThreat], excess_histogram: dict[int, int]) -> list[PlannedThreat]:
    """Zones for the external threats, spread as on the official tracks.

    Every official track uses all three zones, and its fullest zone carries at most `excess` more
    threats than an even spread would (missions and simulations 0, double action 0 or 1): the
    excess is drawn from that histogram, then the counts are dealt to the threats at random.
    """
    external = [index for index, t in enumerate(threats) if not t.internal]
    counts = [len(external) // 3] * 3
    for fuller in shuffled(rng, [0, 1, 2])[: len(external) % 3]:
        counts[fuller] += 1
    fullest = [z for z in range(3) if counts[z] == max(counts)]
    taker = fullest[pick(rng, 0, len(fullest) - 1)]
    for _ in range(from_histogram(rng, excess_histogram)):
        donors = [z for z in range(3) if z != taker and counts[z] >= 2]  # every zone keeps a threat
        if not donors:
            break
        counts[donors[pick(rng, 0, len(donors) - 1)]] -= 1
        counts[taker] += 1
    zones = shuffled(rng, [ZONE_ORDER[z] for z in range(3) for _ in range(counts[z])])
    placed = list(threats)
    for index, zone in zip(external, zones):
        placed[index] = replace(placed[index], zone=zone)
    return placed


def _piles(rng: random.Random, threats: list[PlannedThreat], colors: tuple[str, ...]) -> list[PlannedThreat]:
    """Deal the piles out evenly: serious threats first, then the others, the colours in turn.

    So each pile gets the same share of the threats (and of the serious ones) to within one.
    """
    if not colors:
        return threats
    order = [i for i in shuffled(rng, range(len(threats))) if threats[i].serious]
    order += [i for i in shuffled(rng, range(len(threats))) if not threats[i].serious]
    deck = shuffled(rng, [Pile(color) for color in colors])
    dealt = list(threats)
    for rank, index in enumerate(order):
        dealt[index] = replace(dealt[index], pile=deck[rank % len(deck)])
    return dealt


def _unconfirmed_serious(rng: random.Random, points: int, options: GenerateOptions) -> int:
    """How many unconfirmed reports are serious: only where the official tracks make one serious."""
    return pick(rng, 0, _most_unconfirmed_serious(points, options))


def _most_unconfirmed_serious(points: int, options: GenerateOptions) -> int:
    if points < 2 or options.profile.unconfirmed[0] >= points or not options.profile.unconfirmed_serious:
        return 0
    return min(1, points - options.profile.unconfirmed[0])


def _doubles(rng: random.Random, total: int, options: GenerateOptions) -> int:
    """How many turns carry two threats; enough turns stay free of them to keep every double internal-capable."""
    if not options.max_doubles:
        return 0
    ineligible = 2 * TURNS_PER_PHASE - len(options.profile.internal_turns)
    high = min(options.max_doubles, max(total - ineligible, 0) // 2)
    low = min(max(options.profile.double_turns[0], total - 2 * TURNS_PER_PHASE), high)
    return pick(rng, low, high)


def _turns(rng: random.Random, distinct: int, options: GenerateOptions) -> list[int]:
    """`distinct` different turns split over phases 1 and 2 as the official tracks split them."""
    (low_1, high_1), (low_2, high_2) = options.profile.threats_per_phase
    low = max(distinct - TURNS_PER_PHASE, 0)
    high = min(TURNS_PER_PHASE, distinct)
    preferred_low, preferred_high = max(low, low_1, distinct - high_2), min(high, high_1, distinct - low_2)
    if preferred_low <= preferred_high:
        low, high = preferred_low, preferred_high
    first = pick(rng, low, high)
    phase_1 = shuffled(rng, list(range(1, 5)))[:first]
    phase_2 = shuffled(rng, list(range(5, 9)))[: distinct - first]
    return sorted(phase_1 + phase_2)


def _kinds(rng: random.Random, turns: list[int], doubles: int, options: GenerateOptions) -> list[PlannedThreat]:
    """Internal or external: a double turn pairs one of each, as in every official double turn."""
    profile = options.profile
    eligible = [turn for turn in turns if turn in profile.internal_turns]
    doubles = min(doubles, len(eligible))
    double_turns = set(shuffled(rng, eligible)[:doubles])
    singles = [turn for turn in eligible if turn not in double_turns]
    internal_low, internal_high = profile.internal
    high = min(internal_high - doubles, len(singles))
    low = max(internal_low - doubles, 0)
    if options.is_default:  # as many external threats as the official tracks have (their counts include reports)
        unconfirmed = 0 if options.players == 5 else profile.unconfirmed[1]
        external_low, external_high = (count - unconfirmed for count in profile.external)
        high = min(high, len(turns) - external_low)
        low = min(max(low, len(turns) - external_high), internal_high - doubles, len(singles))
    count = pick(rng, low, max(high, low))
    internal_singles = set(shuffled(rng, singles)[:count])
    threats = []
    for turn in turns:
        if turn in double_turns:
            pair = [PlannedThreat(turn), PlannedThreat(turn, internal=True)]
            threats += shuffled(rng, pair)
        else:
            threats.append(PlannedThreat(turn, internal=turn in internal_singles))
    return threats


def _mark(
    rng: random.Random,
    threats: list[PlannedThreat],
    unconfirmed: int,
    unconfirmed_serious: int,
    serious: int,
    options: GenerateOptions,
) -> list[PlannedThreat]:
    """Make `unconfirmed` threats unconfirmed reports (at most one per turn) and `serious` confirmed ones serious."""
    order = shuffled(rng, list(range(len(threats))))
    chosen: list[int] = []
    for index in order:
        if len(chosen) < unconfirmed and all(threats[other].turn != threats[index].turn for other in chosen):
            chosen.append(index)
    chosen += [index for index in order if index not in chosen][: unconfirmed - len(chosen)]
    marked = list(threats)
    for rank, index in enumerate(chosen):
        marked[index] = replace(marked[index], unconfirmed=True, serious=rank < unconfirmed_serious)
    confirmed = [index for index in order if index not in chosen]
    internal_cap = options.profile.serious_internal[1] - sum(1 for t in marked if t.internal and t.serious)
    picked: list[int] = []
    for index in confirmed:
        if len(picked) == serious:
            break
        if marked[index].internal and sum(marked[i].internal for i in picked) >= internal_cap:
            continue
        picked.append(index)
    picked += [index for index in confirmed if index not in picked][: serious - len(picked)]
    for index in picked:
        marked[index] = replace(marked[index], serious=True)
    return marked
