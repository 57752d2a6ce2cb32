"""Random draws built on `random.Random.random()` alone.

Python guarantees that `random()` gives the same floats for the same seed on every version
(the Mersenne Twister and its seeding from an int are fixed), but it does not guarantee the
results of `randrange`, `choice`, `shuffle` or `sample`, whose algorithms have changed before.
Every draw the generator makes goes through these helpers, so a seed keeps its mission.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def below(rng: random.Random, count: int) -> int:
    """A whole number in 0..count-1 (count >= 1), each equally likely."""
    return int(rng.random() * count)  # random() < 1 - 2**-53, so this stays below count (count < 2**52)


def pick(rng: random.Random, low: int, high: int) -> int:
    """A whole number in low..high (both included); `low` when the range is empty."""
    return low if high <= low else low + below(rng, high - low + 1)


def one_of(rng: random.Random, items: Sequence[T]) -> T:
    return items[below(rng, len(items))]


def shuffled(rng: random.Random, items: Sequence[T]) -> list[T]:
    """A new list of `items` in random order (Fisher-Yates on `below`)."""
    result = list(items)
    for index in range(len(result) - 1, 0, -1):
        other = below(rng, index + 1)
        result[index], result[other] = result[other], result[index]
    return result


def chance(rng: random.Random, probability: float) -> bool:
    """True with `probability` (0.0 never, 1.0 always)."""
    return rng.random() < probability


def from_histogram(rng: random.Random, histogram: dict[int, int]) -> int:
    """A key of `histogram`, as often as its count says."""
    draw = below(rng, sum(histogram.values()))
    for value, times in sorted(histogram.items()):
        if draw < times:
            return value
        draw -= times
    raise AssertionError("unreachable")
