"""The scenario model: frozen dataclasses, times in integer milliseconds, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Zone(str, Enum):
    RED = "red"
    WHITE = "white"
    BLUE = "blue"


class EventType(str, Enum):
    """The `type` word of an event in the scenario format (a threat's word says external or internal)."""

    THREAT = "threat"
    INTERNAL = "internal"
    INCOMING_DATA = "incoming_data"
    DATA_TRANSFER = "data_transfer"
    COMMS_DOWN = "comms_down"
    ANNOUNCE = "announce"


class Pile(str, Enum):
    """The threat pile a threat card is drawn from (white: normal, yellow: harder, red: hardest)."""

    WHITE = "white"
    YELLOW = "yellow"
    RED = "red"


class TrackKind(str, Enum):
    TEST_RUN = "test-run"
    SIMULATION = "simulation"
    ADVANCED_SIMULATION = "advanced-simulation"
    MISSION = "mission"
    DOUBLE_ACTION = "double-action"
    CUSTOM = "custom"


MIN_PHASES = 2
MAX_PHASES = 3
TURNS_PER_PHASE = 4
MAX_TURN = 8
MAX_PLAYERS = 5  # a crew is 1 to 5 players; only a full crew hears unconfirmed reports
CAMPAIGN_MISSIONS = 3  # an exploration campaign is three missions in a row
MAX_SEED = 2**63 - 1  # a generated mission's seed (and a SQLite integer) fits in 63 bits


@dataclass(frozen=True)
class Threat:
    """A threat announced at `at_ms` for turn T+`turn`. `zone` is None for an internal threat.

    `pile` names the threat pile to draw the card from (printed and shown, never spoken); None: any.
    """

    at_ms: int
    turn: int
    zone: Zone | None
    serious: bool = False
    unconfirmed: bool = False
    pile: Pile | None = None

    @property
    def internal(self) -> bool:
        return self.zone is None

    @property
    def points(self) -> int:
        return 2 if self.serious else 1


@dataclass(frozen=True)
class IncomingData:
    at_ms: int


@dataclass(frozen=True)
class DataTransfer:
    at_ms: int


@dataclass(frozen=True)
class CommsDown:
    """Communications are down from `at_ms` until `until_ms` (when they are restored)."""

    at_ms: int
    until_ms: int

    @property
    def duration_ms(self) -> int:
        return self.until_ms - self.at_ms


@dataclass(frozen=True)
class Announcement:
    """A free-text announcement (house rules, other timed games)."""

    at_ms: int
    text: str


Event = Threat | IncomingData | DataTransfer | CommsDown | Announcement


@dataclass(frozen=True)
class Scenario:
    """One track: its phase ends (the last ends the mission) and its timed events, in time order."""

    title: str
    phase_ends_ms: tuple[int, ...]
    events: tuple[Event, ...] = ()
    kind: TrackKind = TrackKind.CUSTOM
    notes: str = ""
    language: str | None = None
    players: int | None = None
    seed: int | None = None
    double_threats: bool = False
    generator: tuple[tuple[str, str], ...] = field(default=())
    pace: float = 1.0  # a training pace stretched every time by this factor (timekeeper/grammar/pace.py)

    @property
    def duration_ms(self) -> int:
        return self.phase_ends_ms[-1]

    @property
    def allows_double_threats(self) -> bool:
        return self.double_threats or self.kind is TrackKind.DOUBLE_ACTION

    @property
    def threats(self) -> tuple[Threat, ...]:
        return tuple(e for e in self.events if isinstance(e, Threat))

    def phase_of(self, at_ms: int) -> int:
        """The phase (1-based) running at `at_ms`; a moment exactly at a phase end is in the next."""
        for index, end_ms in enumerate(self.phase_ends_ms):
            if at_ms < end_ms:
                return index + 1
        return len(self.phase_ends_ms)


def turn_phase(turn: int) -> int:
    """The phase in which T+`turn` must be announced: T+1..T+4 in phase 1, T+5..T+8 in phase 2."""
    return (turn - 1) // TURNS_PER_PHASE + 1


def event_type(event: Event) -> EventType:
    """The type of this event, as the scenario format names it."""
    if isinstance(event, Threat):
        return EventType.INTERNAL if event.internal else EventType.THREAT
    return _TYPES[type(event)]


def event_type_name(event: Event) -> str:
    """The `type` word the scenario format uses for this event."""
    return event_type(event).value


_TYPES = {
    IncomingData: EventType.INCOMING_DATA,
    DataTransfer: EventType.DATA_TRANSFER,
    CommsDown: EventType.COMMS_DOWN,
    Announcement: EventType.ANNOUNCE,
}
