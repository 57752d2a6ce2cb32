"""Exploration campaigns (rulebook chapter 6): up to three missions with the same ship; no I/O.

Before each mission the crew chooses the difficulty and draws a random track. Damage and disabled
battlebot squads carry over; between missions every crew member who was not knocked out repairs
one damage tile or one squad (at most two tiles per zone). Penalties count once, at the end: the
ship's final damage, its most damaged zone, the knocked-out crew and the disabled squads of the
last mission. Visual confirmation is summed and divided by the missions completed (rounded
down). A destroyed ship loses the whole campaign.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from timekeeper.i18n import Said, said
from timekeeper.logbook.record import (
    MAX_REPAIRS_PER_ZONE,
    ZONES,
    Crew,
    Damage,
    Difficulty,
    Entry,
    MissionRecord,
    Penalties,
    Track,
    penalties,
)
from timekeeper.model import CAMPAIGN_MISSIONS, Zone

POOLS = {
    "missions": tuple(f"mission-{n}" for n in range(1, 9)),
    "double-action": tuple(f"double-action-{n}" for n in range(1, 13)),
}


class Status(str, Enum):
    OPEN = "open"  # a mission is drawn or the crew may go on
    ENDED = "ended"  # the crew stopped after one or two missions
    COMPLETE = "complete"  # three missions flown
    LOST = "lost"  # the ship was destroyed


@dataclass(frozen=True)
class Repairs:
    """Repairs made before a mission: damage tiles per zone and battlebot squads."""

    red: int = 0
    white: int = 0
    blue: int = 0
    squads: int = 0

    @property
    def total(self) -> int:
        return self.red + self.white + self.blue + self.squads

    def label(self) -> str:
        parts = [f"{zone.value} {getattr(self, zone.value)}" for zone in ZONES if getattr(self, zone.value)]
        parts += [f"squads {self.squads}"] if self.squads else []
        return ", ".join(parts) or "none"


@dataclass(frozen=True)
class Leg:
    """Mission `number` of a campaign: chosen before it is flown; `entry` once it is recorded."""

    number: int
    track: Track
    common: Difficulty
    serious: Difficulty
    repairs: Repairs = Repairs()
    entry: Entry | None = None


@dataclass(frozen=True)
class CampaignScore:
    threat_points: int
    final: Penalties
    visual_total: int
    missions: int

    @property
    def visual_confirmation(self) -> int:
        return self.visual_total // self.missions

    @property
    def total(self) -> int:
        return self.threat_points - self.final.total + self.visual_confirmation


@dataclass(frozen=True)
class Campaign:
    id: int
    crew: Crew
    pool: str
    status: Status
    started_on: str
    ended_on: str | None
    legs: tuple[Leg, ...]

    @property
    def flown(self) -> tuple[Entry, ...]:
        """The recorded missions, in order."""
        return tuple(leg.entry for leg in self.legs if leg.entry is not None)

    @property
    def pending(self) -> Leg | None:
        """The drawn mission whose result is not recorded yet."""
        last = self.legs[-1] if self.legs else None
        return last if last is not None and last.entry is None and self.status is Status.OPEN else None

    @property
    def can_continue(self) -> bool:
        return self.status is Status.OPEN and self.pending is None and len(self.legs) < CAMPAIGN_MISSIONS

    @property
    def destroyed_by(self) -> str | None:
        return next((entry.record.destroyed_by for entry in self.flown if entry.record.ship_destroyed), None)

    def carried_into(self, number: int) -> tuple[Damage, int]:
        """Damage and disabled squads the ship starts mission `number` with (after that leg's repairs)."""
        if number <= 1:
            return Damage(), 0
        before = self.legs[number - 2].entry
        repairs = self.legs[number - 1].repairs if len(self.legs) >= number else Repairs()
        if before is None:
            return Damage(), 0
        damage = before.record.damage
        return (Damage(damage.red - repairs.red, damage.white - repairs.white, damage.blue - repairs.blue),
                before.record.disabled_squads - repairs.squads)

    def score(self) -> CampaignScore | None:
        """The campaign's score so far; None if lost or nothing was flown."""
        flown = [entry.record for entry in self.flown]
        if not flown or self.status is Status.LOST:
            return None
        last = flown[-1]
        return CampaignScore(
            threat_points=sum(record.threat_points for record in flown),
            final=penalties(last.damage, last.knocked_out, last.disabled_squads),
            visual_total=sum(record.visual_confirmation for record in flown),
            missions=len(flown),
        )


def repair_problems(campaign: Campaign, repairs: Repairs) -> dict[str, Said]:
    """What is wrong with `repairs` before the next mission of `campaign` (empty when allowed)."""
    flown = campaign.flown
    if not flown:
        return {"repairs": said("log.problem.repairs_first")} if repairs.total else {}
    return repairs_after(flown[-1].record, repairs)


def repairs_after(last: MissionRecord, repairs: Repairs) -> dict[str, Said]:
    """What is wrong with `repairs` made after the mission `last` (empty when allowed)."""
    problems: dict[str, Said] = {}
    for zone in ZONES:
        wanted, present = getattr(repairs, zone.value), last.damage.of(zone)
        if wanted > MAX_REPAIRS_PER_ZONE:
            problems[f"repair_{zone.value}"] = said("log.problem.repair_most", most=MAX_REPAIRS_PER_ZONE, got=wanted)
        elif wanted > present:
            problems[f"repair_{zone.value}"] = said("log.problem.repair_zone", zone=zone_said(zone), damage=present,
                                                    got=wanted)
    if repairs.squads > last.disabled_squads:
        problems["repair_squads"] = said("log.problem.repair_squads", disabled=last.disabled_squads, got=repairs.squads)
    able = last.crew.figures - last.knocked_out
    if repairs.total > able:
        problems["repairs"] = said("log.problem.repairs", able=able, got=repairs.total)
    return problems


def zone_said(zone: Zone) -> Said:
    """A zone's name in words ("red", "Rot")."""
    return said(f"log.zone.{zone.value}")


def waiting_problems(campaign: Campaign) -> dict[str, Said]:
    """Why `campaign` cannot take a mission's result now (empty when a drawn mission waits for it)."""
    if campaign.pending is not None:
        return {}
    if campaign.can_continue:
        return {"campaign": said("log.problem.campaign_draw", id=campaign.id)}
    return {"campaign": said("log.problem.campaign_closed", id=campaign.id, status=said(f"log.status.{campaign.status.value}"))}


def mission_problems(campaign: Campaign, record: MissionRecord) -> dict[str, Said]:
    """What the result of the waiting mission contradicts (check waiting_problems first)."""
    leg = campaign.pending
    assert leg is not None, "check waiting_problems first"
    return leg_problems(campaign, leg.number, record)


def leg_problems(campaign: Campaign, number: int, record: MissionRecord) -> dict[str, Said]:
    """What mission `number`'s record contradicts: damage and squads cannot drop during a mission,
    and the crew stays the same."""
    damage, squads = campaign.carried_into(number)
    problems: dict[str, Said] = {}
    for zone in ZONES:
        if record.damage.of(zone) < damage.of(zone):
            problems[f"damage_{zone.value}"] = said("log.problem.started_damage", number=number,
                                                    damage=damage.of(zone), zone=zone_said(zone))
    if record.disabled_squads < squads:
        problems["disabled_squads"] = said("log.problem.started_squads", number=number, squads=squads)
    if record.crew.names != campaign.crew.names:
        problems["crew"] = said("log.problem.campaign_crew", crew=campaign.crew.names)
    return problems


def campaign_problems(campaign: Campaign) -> dict[str, Said]:
    """Every rule a stored campaign breaks (after a mission of it was changed); empty when sound."""
    problems: dict[str, Said] = {}
    previous: MissionRecord | None = None
    for leg in campaign.legs:
        if previous is not None:
            problems.update(repairs_after(previous, leg.repairs))
            if previous.ship_destroyed:
                problems["destroyed_by"] = said("log.problem.destroyed_before", number=leg.number - 1)
        if leg.entry is not None:
            problems.update(leg_problems(campaign, leg.number, leg.entry.record))
            previous = leg.entry.record
    return problems


def status_of(campaign: Campaign) -> Status:
    """The status the campaign's missions give it (an ended campaign stays ended unless lost)."""
    if campaign.destroyed_by is not None:
        return Status.LOST
    if len(campaign.flown) >= CAMPAIGN_MISSIONS:
        return Status.COMPLETE
    return Status.ENDED if campaign.status is Status.ENDED else Status.OPEN


def draw_track(pool: str, used: set[str], rng: random.Random) -> Track:
    """A random track of `pool` not flown yet in this campaign, drawn from `rng.random()` alone: Python
    keeps its floats for a seed on every version (not `choice`'s), so a --draw-seed keeps its track."""
    choices = [name for name in POOLS[pool] if name not in used] or list(POOLS[pool])
    return Track(choices[int(rng.random() * len(choices))])  # generate.draw.below, without loading the generator
