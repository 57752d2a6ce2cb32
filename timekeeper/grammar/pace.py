"""Training pace: a whole mission stretched in time for a crew learning the game.

`stretched(scenario, 1.5)` multiplies every event time, every outage's end and every phase end by
1.5 (rounded to whole seconds, so cards and FlashPlayerCodes still read them); the announcements
themselves are not slowed: the script lays them out at their natural length on the stretched
times, and the phase-end warnings stay one minute and twenty seconds before each (longer) phase
ends, as their words say. Applied right after loading, before anything reads the scenario, so
captions, cards, codes and the mix all show the stretched times. Pure: model in, model out.
"""

from __future__ import annotations

from dataclasses import replace

from timekeeper.model import CommsDown, Event, Scenario

NORMAL_PACE = 1.0
MIN_PACE = 1.0  # a faster mission would crowd the announcements
MAX_PACE = 2.0


def pace_problem(pace: object) -> str | None:
    """Why `pace` is not a training pace (None when it is one)."""
    if isinstance(pace, bool) or not isinstance(pace, (int, float)) or pace != pace:
        return f"pace {pace!r}: expected a number from {MIN_PACE:g} to {MAX_PACE:g} (1.25 stretches the mission by a quarter)"
    if not MIN_PACE <= pace <= MAX_PACE:
        return f"pace {pace:g} is out of range (expected {MIN_PACE:g} to {MAX_PACE:g}; 1 is the normal pace)"
    return None


def _stretch_ms(at_ms: int, pace: float) -> int:
    """`at_ms` times `pace`, to the nearest whole second (halves up)."""
    return int(at_ms * pace / 1000 + 0.5) * 1000 if at_ms % 1000 == 0 else int(at_ms * pace + 0.5)


def _stretched_event(event: Event, pace: float) -> Event:
    if isinstance(event, CommsDown):
        return replace(event, at_ms=_stretch_ms(event.at_ms, pace), until_ms=_stretch_ms(event.until_ms, pace))
    return replace(event, at_ms=_stretch_ms(event.at_ms, pace))


def stretched(scenario: Scenario, pace: float) -> Scenario:
    """`scenario` at training pace `pace` (1.0: itself). ValueError for a pace out of range."""
    problem = pace_problem(pace)
    if problem:
        raise ValueError(problem)
    if pace == NORMAL_PACE:
        return scenario
    return replace(scenario, events=tuple(_stretched_event(event, pace) for event in scenario.events),
                   phase_ends_ms=tuple(_stretch_ms(end_ms, pace) for end_ms in scenario.phase_ends_ms),
                   pace=round(scenario.pace * pace, 4))
