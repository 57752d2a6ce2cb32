"""Choose the threats of a mission: how many, which turns, which kinds, which are unconfirmed.

Every choice is drawn from a range that is known to be possible, so there is nothing to retry.
Only `random.Random.randrange` and `shuffle` are used: both give the same numbers on every
Python version for the same seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from timekeeper.generate.options import GenerateOptions
from timekeeper.model import TURNS_PER_PHASE, Zone

ZONES = (Zone.RED, Zone.WHITE, Zone.BLUE)


@dataclass(frozen=True)
class PlannedThreat:
    turn: int
    internal: bool = False
    serious: bool = False
    unconfirmed: bool = False
    zone: Zone | None = None

    @property
    def phase(self) -> int:
        return (self.turn - 1) // TURNS_PER_PHASE + 1


def pick(rng: random.Random, low: int, high: int) -> int:
    """A whole number in low..high (both included); `low` when the range is empty."""
    return low if high <= low else rng.randrange(low, high + 1)


def shuffled(rng: random.Random, items: list) -> list:
    items = list(items)
    rng.shuffle(items)
    return items


def scaled(span: tuple[int, int], level: int, default_level: int) -> tuple[int, int]:
    """An official range scaled from the official threat points to `level` (rounded half up)."""
    return tuple((2 * value * level + default_level) // (2 * default_level) for value in span)  # type: ignore[return-value]


def plan_threats(rng: random.Random, options: GenerateOptions) -> list[PlannedThreat]:
    """The threats of one mission in turn order (not yet timed)."""
    profile = options.profile
    unconfirmed_points = pick(rng, *profile["unconfirmed_points"]) if options.players == 5 else 0
    unconfirmed_serious = _unconfirmed_serious(rng, unconfirmed_points, options)
    unconfirmed = unconfirmed_points - unconfirmed_serious  # each serious one counts 2 points
    confirmed_slots = options.threat_slots - unconfirmed
    level = options.level
    serious_low, serious_high = scaled(profile["serious"], level, options.default_level)
    serious_low = max(serious_low - unconfirmed_serious, level - confirmed_slots, 0)
    serious_high = min(max(serious_high - unconfirmed_serious, serious_low), level // 2)
    serious = pick(rng, serious_low, serious_high)
    total = level - serious + unconfirmed
    doubles = _doubles(rng, total, options)
    turns = _turns(rng, total - doubles, options)
    threats = _kinds(rng, turns, doubles, options)
    threats = _mark(rng, threats, unconfirmed, unconfirmed_serious, serious, options)
    return [t if t.internal else replace(t, zone=rng.choice(ZONES)) for t in threats]


def _unconfirmed_serious(rng: random.Random, points: int, options: GenerateOptions) -> int:
    """How many unconfirmed reports are serious: only where the official tracks make one serious."""
    if points < 2 or options.profile["unconfirmed"][0] >= points:
        return 0
    return pick(rng, 0, min(1, points - options.profile["unconfirmed"][0]))


def _doubles(rng: random.Random, total: int, options: GenerateOptions) -> int:
    """How many turns carry two threats; enough turns stay free of them to keep every double internal-capable."""
    if not options.max_doubles:
        return 0
    ineligible = 2 * TURNS_PER_PHASE - len(options.profile["internal_turns"])
    high = min(options.max_doubles, max(total - ineligible, 0) // 2)
    low = min(max(options.profile["double_turns"][0], total - 2 * TURNS_PER_PHASE), high)
    return pick(rng, low, high)


def _turns(rng: random.Random, distinct: int, options: GenerateOptions) -> list[int]:
    """`distinct` different turns split over phases 1 and 2 as the official tracks split them."""
    (low_1, high_1), (low_2, high_2) = options.profile["threats_per_phase"]
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
    eligible = [turn for turn in turns if turn in profile["internal_turns"]]
    doubles = min(doubles, len(eligible))
    double_turns = set(shuffled(rng, eligible)[:doubles])
    singles = [turn for turn in eligible if turn not in double_turns]
    internal_low, internal_high = profile["internal"]
    count = pick(rng, max(internal_low - doubles, 0), min(internal_high - doubles, len(singles)))
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
    internal_cap = options.profile["serious_internal"][1] - sum(1 for t in marked if t.internal and t.serious)
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
