"""How often each whole number occurred: the exact distribution of many values in the room of their
distinct values.

The fidelity report (stats.py) measures a million missions without keeping them: every feature it
shows is a small count (threats, outages) or a time in milliseconds on the generator's 5-second
grid (a phase, an outage, the pause between two events), so a feature has a few dozen distinct
values at most (a 25-minute mission has 300 grid points) however many missions are counted. Every
figure drawn from a tally (a share, a quartile, the mean, a histogram) is the one the whole list of
values would give.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator


class Tally:
    """A histogram of whole numbers: each distinct value and how often it occurred."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        self._counts: Counter[int] = Counter()
        self._total = 0  # how many values
        self._sum = 0  # their sum, exact
        self.update(values)

    def update(self, values: Iterable[int]) -> None:
        """Count every one of `values`."""
        counts = self._counts
        for value in values:
            counts[value] += 1
            self._total += 1
            self._sum += value

    def __len__(self) -> int:
        """How many values were counted (not how many distinct ones)."""
        return self._total

    def __iter__(self) -> Iterator[int]:
        """The distinct values, smallest first."""
        return iter(sorted(self._counts))

    def count(self, value: int) -> int:
        """How often `value` occurred."""
        return self._counts.get(value, 0)

    def counts(self) -> list[tuple[int, int]]:
        """(value, how often) for each distinct value, smallest first."""
        return sorted(self._counts.items())

    @property
    def distinct(self) -> int:
        """How many distinct values (what a tally's memory grows with)."""
        return len(self._counts)

    def lowest(self) -> int:
        return min(self._counts)

    def highest(self) -> int:
        return max(self._counts)

    def ranked(self, rank: int) -> int:
        """The value at position `rank` (0 is the smallest) of all values in order, as `sorted(values)[rank]`."""
        if not 0 <= rank < self._total:
            raise IndexError(f"rank {rank} of {self._total} values")
        for value, times in self.counts():
            if rank < times:
                return value
            rank -= times
        raise AssertionError("unreachable")

    def mean(self, unit: int = 1) -> float:
        """The mean of the values divided by `unit` (1000: milliseconds as seconds), from their exact sum."""
        return self._sum / (unit * self._total)

    def between(self, low: int, high: int) -> int:
        """How many values lie in low..high, both included."""
        return sum(times for value, times in self._counts.items() if low <= value <= high)
