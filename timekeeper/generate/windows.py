"""The generator's time grid and where, in a phase, announcements may go, as plain numbers.

A phase has two windows for events: the main window from just after its first cue to its
one-minute warning, and the last-minute window between the one-minute and twenty-second
warnings. An item's footprint is the longest length of its cue in any language, plus a short
silence, rounded up to the grid, and never less than the tightest spacing of that kind of event
on the official tracks. layout.py fills the windows; shortened.py asks how much they hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from timekeeper.generate.cues import CueLengths
from timekeeper.model import EventType

GRID_MS = 5000  # every generated time is on this grid (milliseconds)
SILENCE_MS = 500  # at least this much quiet after every cue
ONE_MINUTE_MS = 60_000
TWENTY_SECONDS_MS = 20_000
SLACK_PER_WINDOW_MS = 2 * GRID_MS  # measured: no required event was ever left out with this slack (tests, benchmark)

Span = tuple[int, int]


def on_grid(ms: int) -> int:
    """`ms` rounded up to the 5-second grid the official tracks use."""
    return -(-ms // GRID_MS) * GRID_MS


def footprint_ms(cue_ms: int, min_gap_ms: int) -> int:
    """The room a cue of `cue_ms` takes: its length and a silence on the grid, at least `min_gap_ms`."""
    return max(on_grid(cue_ms + SILENCE_MS), min_gap_ms)


def window_spans(phase: int, start_ms: int, end_ms: int, lengths: CueLengths, first_event_ms: Span) -> tuple[Span, Span]:
    """(start, end) of the main and of the last-minute window of `phase` (1-based), running from
    start_ms to end_ms."""
    opening_ms = lengths.begin_ms if phase == 1 else lengths.closing_ms[phase - 2]
    main_start_ms = start_ms + max(on_grid(opening_ms + SILENCE_MS), first_event_ms[0])
    late_start_ms = end_ms - ONE_MINUTE_MS + on_grid(lengths.warning_1_minute_ms[phase - 1] + SILENCE_MS)
    return (main_start_ms, end_ms - ONE_MINUTE_MS), (late_start_ms, end_ms - TWENTY_SECONDS_MS)


def event_footprint_ms(kind: EventType, lengths: CueLengths, min_gap_ms: Mapping[EventType, int], outage_ms: int = 0) -> int:
    """The room an incoming data, data transfer or outage takes; an outage's runs until after "restored"."""
    if kind is EventType.COMMS_DOWN:
        return outage_ms + footprint_ms(lengths.comms_restored_ms, min_gap_ms[kind])
    cue_ms = lengths.incoming_data_ms if kind is EventType.INCOMING_DATA else lengths.data_transfer_ms
    return footprint_ms(cue_ms, min_gap_ms[kind])


def events_need_ms(counts: Mapping[EventType, int], lengths: CueLengths, min_gap_ms: Mapping[EventType, int],
                   longest_outage_ms: int, comms_down_most_ms: int) -> tuple[int, int]:
    """(the room `counts` of incoming data, transfers and outages need at most, the largest one's
    footprint): the outages together last at most `comms_down_most_ms`."""
    needed = largest = 0
    for kind, count in counts.items():
        outage_ms = longest_outage_ms if kind is EventType.COMMS_DOWN else 0
        footprint = event_footprint_ms(kind, lengths, min_gap_ms, outage_ms)
        if kind is EventType.COMMS_DOWN:
            needed += min(comms_down_most_ms, count * outage_ms) + count * (footprint - outage_ms)
        else:
            needed += count * footprint
        largest = max(largest, footprint if count else 0)
    return needed, largest


def unusable_ms(late_windows_ms: Iterable[int], main_windows: int, largest_ms: int) -> int:
    """The time windows may leave unused, as they fill unevenly: a last-minute window may be too
    short for the largest item, and each main window may end with time too short for the next one."""
    return sum(min(late_ms, largest_ms - GRID_MS) for late_ms in late_windows_ms) + SLACK_PER_WINDOW_MS * main_windows
