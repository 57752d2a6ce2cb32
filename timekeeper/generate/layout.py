"""Announcements placed in a phase's windows (windows.py) on the 5-second grid.

Items placed one after another within a window never overlap each other or a warning: each
takes its footprint (windows.footprint_ms).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from timekeeper.generate.cues import CueLengths
from timekeeper.generate.draw import below, pick
from timekeeper.generate.threats import PlannedThreat
from timekeeper.generate.windows import GRID_MS, event_footprint_ms, footprint_ms, window_spans
from timekeeper.model import EventType


@dataclass
class Item:
    """Something to announce: a planned threat (THREAT or INTERNAL), or one of the placed events."""

    kind: EventType
    footprint_ms: int
    threat: PlannedThreat | None = None
    outage_ms: int = 0


@dataclass
class Window:
    start_ms: int
    end_ms: int
    items: list[Item]
    used_ms: int = 0  # the footprints of `items`, kept up to date by `add`

    def add(self, *items: Item) -> None:
        """Put `items` into the window (reordering `items` later is fine; adding must go through here)."""
        self.items.extend(items)
        self.used_ms += sum(item.footprint_ms for item in items)

    @property
    def free_ms(self) -> int:
        return self.end_ms - self.start_ms - self.used_ms


def threat_item(threat: PlannedThreat, lengths: CueLengths, min_gap_ms: dict[EventType, int]) -> Item:
    kind = EventType.INTERNAL if threat.internal else EventType.THREAT
    cue_ms = lengths.threat(threat.turn, threat.internal, threat.serious, threat.unconfirmed)
    return Item(kind, footprint_ms(cue_ms, min_gap_ms[kind]), threat=threat)


def event_item(kind: EventType, lengths: CueLengths, min_gap_ms: dict[EventType, int], outage_ms: int = 0) -> Item:
    """An incoming data, data transfer or outage item; an outage's footprint runs until after "restored"."""
    return Item(kind, event_footprint_ms(kind, lengths, min_gap_ms, outage_ms), outage_ms=outage_ms)


def phase_windows(
    phase: int, start_ms: int, end_ms: int, lengths: CueLengths, first_event_ms: tuple[int, int]
) -> tuple[Window, Window]:
    """The main and the last-minute window of `phase` (1-based), running from start_ms to end_ms."""
    main, late = window_spans(phase, start_ms, end_ms, lengths, first_event_ms)
    return Window(*main, []), Window(*late, [])


def spread(rng: random.Random, window: Window, first_gap_max_ms: int | None = None,
           short_tail: bool = False) -> list[tuple[int, Item]]:
    """Start times for the window's items in order, the spare time shared out at random on the grid.

    `first_gap_max_ms` limits the pause before the first item (an ambush keeps to its official lead);
    `short_tail` keeps the pause after the last item short, as before a quiet last minute.
    """
    items = window.items
    spare = window.free_ms // GRID_MS
    if spare < 0:
        raise AssertionError(f"generator bug: {len(items)} items overflow a window by {-window.free_ms} ms")
    if not items:
        return []
    if first_gap_max_ms is not None:
        first = below(rng, min(spare, first_gap_max_ms // GRID_MS) + 1)
        weights = [0] + [pick(rng, 2, 5) for _ in items]
    else:
        first = 0
        weights = [pick(rng, 0, 2)] + [pick(rng, 2, 5) for _ in items]
    if short_tail:
        weights[-1] = 0
    spare -= first
    total = max(1, sum(weights))
    gaps = [spare * weight // total for weight in weights]
    open_gaps = len(items) - 1 if short_tail and len(items) > 1 else len(items)
    for _ in range(spare - sum(gaps)):
        gaps[1 + below(rng, open_gaps)] += 1
    gaps[0] += first
    placed = []
    at_ms = window.start_ms + gaps[0] * GRID_MS
    for index, item in enumerate(items):
        placed.append((at_ms, item))
        at_ms += item.footprint_ms + gaps[index + 1] * GRID_MS
    return placed
