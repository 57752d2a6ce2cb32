"""The ship's log model: frozen dataclasses for a crew, a mission record and its rulebook score; no I/O.

A mission is scored (rulebook, "Scoring"): points for threats survived (their lower value) plus
threats destroyed (their higher value), minus the total damage, minus the damage of the most
damaged zone, minus 2 per knocked-out crew member, minus 1 per disabled battlebot squad, plus the
visual confirmation points. A destroyed ship scores nothing; the log names the threat instead.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from enum import Enum

from timekeeper.model import Zone

ZONES = tuple(Zone)
MAX_ZONE_DAMAGE = 6  # six damage tiles per zone; the seventh destroys the ship
BATTLEBOT_SQUADS = 2  # the squads in the lower red and lower blue stations
MIN_FIGURES = 4  # a crew of fewer than four players fills up with androids
MAX_REPAIRS_PER_ZONE = 2  # between campaign missions


class Role(str, Enum):
    CAPTAIN = "captain"
    COMMUNICATIONS = "communications officer"
    SECURITY = "security chief"

    @property
    def mark(self) -> str:
        """The short mark the printed log puts after a name."""
        return _ROLE_MARKS[self.value]


_ROLE_MARKS = {"captain": "C", "communications officer": "CO", "security chief": "SC"}


class Difficulty(str, Enum):
    """Which threat cards were shuffled in: 1 (standard), 2 (difficult) or both."""

    STANDARD = "1"
    DIFFICULT = "2"
    MIXED = "1+2"


@dataclass(frozen=True)
class CrewMember:
    name: str
    roles: tuple[Role, ...] = ()

    def label(self) -> str:
        return self.name + "".join(f" ({role.mark})" for role in self.roles)


@dataclass(frozen=True)
class Crew:
    members: tuple[CrewMember, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(member.name for member in self.members)

    @property
    def figures(self) -> int:
        """Crew figures on the board: the players, filled up to four with androids."""
        return max(len(self.members), MIN_FIGURES)

    def holder(self, role: Role) -> str | None:
        return next((m.name for m in self.members if role in m.roles), None)

    def key(self) -> str:
        """The crew as stats group it: the names, sorted, whatever the roles."""
        return ", ".join(sorted(self.names, key=str.casefold))

    def label(self) -> str:
        return ", ".join(member.label() for member in self.members)


@dataclass(frozen=True)
class Track:
    """The soundtrack played: a built-in name, or a scenario file (its title and generator seed)."""

    name: str
    file: str | None = None
    seed: int | None = None

    def label(self) -> str:
        return self.name + (f" (seed {self.seed})" if self.seed is not None else "")


@dataclass(frozen=True)
class Damage:
    red: int = 0
    white: int = 0
    blue: int = 0

    def of(self, zone: Zone) -> int:
        return getattr(self, zone.value)

    @property
    def total(self) -> int:
        return self.red + self.white + self.blue

    @property
    def worst_zone(self) -> int:
        """The damage of the most damaged zone."""
        return max(self.red, self.white, self.blue)

    def label(self) -> str:
        return f"{self.red}/{self.white}/{self.blue}"


@dataclass(frozen=True)
class MissionRecord:
    """What the crew writes in the log after one mission (checked: see logbook.form)."""

    crew: Crew
    played_on: datetime.date
    track: Track
    common: Difficulty = Difficulty.STANDARD
    serious: Difficulty = Difficulty.STANDARD
    survived_points: int = 0
    destroyed_points: int = 0
    damage: Damage = Damage()
    knocked_out: int = 0
    disabled_squads: int = 0
    visual_confirmation: int = 0
    destroyed_by: str | None = None
    notes: str = ""

    @property
    def ship_destroyed(self) -> bool:
        return self.destroyed_by is not None

    @property
    def threat_points(self) -> int:
        return self.survived_points + self.destroyed_points


@dataclass(frozen=True)
class Penalties:
    """The penalty columns of the log, in points (each >= 0, subtracted)."""

    damage: int
    worst_zone: int
    knocked_out: int
    squads: int

    @property
    def total(self) -> int:
        return self.damage + self.worst_zone + self.knocked_out + self.squads


def penalties(damage: Damage, knocked_out: int, disabled_squads: int) -> Penalties:
    return Penalties(damage.total, damage.worst_zone, 2 * knocked_out, disabled_squads)


def mission_score(record: MissionRecord) -> int | None:
    """The rulebook score of a single mission; None when the ship was destroyed."""
    if record.ship_destroyed:
        return None
    lost = penalties(record.damage, record.knocked_out, record.disabled_squads)
    return record.threat_points - lost.total + record.visual_confirmation


@dataclass(frozen=True)
class Entry:
    """A mission as stored in the log: its record, its number, and its campaign if any."""

    id: int
    record: MissionRecord
    campaign_id: int | None = None
    campaign_mission: int | None = None

    @property
    def score(self) -> int | None:
        """The mission's own score; None for a destroyed ship or a campaign mission (scored as a whole)."""
        return None if self.campaign_id is not None else mission_score(self.record)

    @property
    def won(self) -> bool:
        return not self.record.ship_destroyed
