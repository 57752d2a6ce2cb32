"""Is there room for what the settings ask? Checked once per set of options, before anything is drawn.

The worst case counts: the shortest phases the settings allow, the most threats a phase can
carry, the longest outages and the most events that must be placed, plus a slack per window for
time too short to use. Official settings are known to fit from the measured figures; other
settings that pass have given every required event on every seed tried (tests and benchmark run
them). Settings that fail get a ScenarioError saying what to change.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from timekeeper.generate.cues import cue_lengths
from timekeeper.generate.layout import phase_windows, threat_item
from timekeeper.generate.problems import LENGTHS, SettingProblem, Word
from timekeeper.generate.profile import PLACED
from timekeeper.generate.shortened import MIN_PHASE_MS
from timekeeper.generate.threats import PlannedThreat
from timekeeper.generate.windows import event_footprint_ms, events_need_ms, unusable_ms
from timekeeper.grammar.times import format_time
from timekeeper.model import TURNS_PER_PHASE, EventType

if TYPE_CHECKING:
    from timekeeper.generate.settings import GenerateOptions



def required_count(options: GenerateOptions, placed: EventType) -> int:
    """How many events of `placed` must be placed: all the user asked for, else the official minimum."""
    profile = options.profile
    if options.asked_count(placed) is not None or (placed is EventType.COMMS_DOWN and options.outage_length_ms is not None):
        return profile.count(placed)[1]
    return profile.required(placed)


def check_room(options: GenerateOptions) -> None:
    _check_room(options)


@lru_cache(maxsize=256)
def _check_room(o: GenerateOptions) -> None:
    profile, lengths = o.profile, cue_lengths()
    gaps = profile.min_gap_ms
    shortest = [low for low, _ in profile.phase_ms]
    if profile.mission_ms is not None:
        _check_length(o)
    windows, start_ms = [], 0
    for index, length_ms in enumerate(shortest):
        if length_ms < MIN_PHASE_MS:
            raise SettingProblem("short_phase", phase=index + 1, length=format_time(length_ms))
        windows.append(phase_windows(index + 1, start_ms, start_ms + length_ms, lengths, profile.first_event_ms[index]))
        start_ms += length_ms
    external_ms, internal_ms = (
        max(threat_item(PlannedThreat(turn, internal, serious, unconfirmed), lengths, gaps).footprint_ms
            for turn in range(1, 9) for serious in (False, True) for unconfirmed in (False, True))
        for internal in (False, True))
    internal_most = profile.internal[1]

    def threats_ms(count: int) -> int:
        inside = min(count, internal_most)
        return inside * internal_ms + (count - inside) * external_ms

    # the most threats a phase gets: its share of the turns (threats.py's _turns keeps to the profile's
    # per-phase figures whenever the threats fit them), each double turn adding one; the last of them
    # goes to the last minute as an ambush when the main window cannot hold it (sampler._place_threats)
    fits = most_threats(o) <= sum(high for _, high in profile.threats_per_phase) + o.max_doubles
    free = []
    for index, (main, late) in enumerate(windows):
        main_ms, late_ms = main.end_ms - main.start_ms, late.end_ms - late.start_ms
        if index < 2:
            count = min(TURNS_PER_PHASE, profile.threats_per_phase[index][1] if fits else TURNS_PER_PHASE) + o.max_doubles
            in_main = count - (1 if late_ms >= max(external_ms, internal_ms) and count else 0)
            if main_ms < threats_ms(in_main):
                raise SettingProblem("threats_room", LENGTHS, phase=index + 1, length=format_time(shortest[index]),
                                     room=main_ms // 1000, threats=count, need=threats_ms(in_main) // 1000)
        free += [main_ms, late_ms]
    all_threats_ms = threats_ms(most_threats(o))
    counts = {placed: required_count(o, placed) for placed in PLACED}
    needed, largest = events_need_ms(counts, lengths, gaps, profile.outage_ms[1], profile.comms_down_ms[1])
    for placed in PLACED:
        footprint = event_footprint_ms(placed, lengths, gaps, profile.outage_ms[1] if placed is EventType.COMMS_DOWN else 0)
        minimum = profile.count_per_phase(placed)[2][0]
        if minimum * footprint > free[4]:
            raise SettingProblem("short_third_phase", length=format_time(shortest[2]), minimum=minimum,
                                 what=Word(f"event.{placed.value}"))
    wasted_ms = unusable_ms(free[1::2], len(free[::2]), largest)
    if not o_is_official(o) and sum(free) - all_threats_ms - wasted_ms < needed:
        room_s = max(0, sum(free) - all_threats_ms - wasted_ms) // 1000
        raise SettingProblem("events_room", LENGTHS, need=needed // 1000, lengths=", ".join(format_time(ms) for ms in shortest),
                             room=room_s)


def most_threats(o: GenerateOptions) -> int:
    """The most threats plan_threats can give: the fewest serious ones, the most unconfirmed reports."""
    profile = o.profile
    unconfirmed_points = profile.unconfirmed_points[1] if o.players == 5 else 0
    serious_low = (2 * profile.serious[0] * o.level + o.default_level) // (2 * o.default_level)
    serious_low = max(0, serious_low - (1 if unconfirmed_points >= 2 else 0))
    return min(o.threat_slots, o.level - serious_low + unconfirmed_points)


def _check_length(o: GenerateOptions) -> None:
    spans = o.profile.phase_ms
    total = o.profile.mission_ms
    if total is None:  # no length asked for: the phases are drawn from their official ranges
        return
    if not sum(low for low, _ in spans) <= total <= sum(high for _, high in spans):
        raise SettingProblem("split", (("setting", "length", format_time(total)),))


def o_is_official(o: GenerateOptions) -> bool:
    """Official settings are known to fit from the measured figures (tests run thousands of seeds)."""
    return all(value is None for value in (o.length_ms, o.phase_lengths_ms, o.outages, o.outage_length_ms,
                                            o.incoming_data, o.data_transfers))
