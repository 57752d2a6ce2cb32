"""The generator's settings as one frozen value, and the official profile they make.

`GenerateOptions` holds what a user asked for (every None: as on the official tracks); its
`profile` is the official profile of the kind (a typed `Profile`, profile.py, of the figures in
figures.py) with those settings applied, which the sampler draws from and the rules check against.
Reading the settings from text and checking them up front is options.py's job; whether there is
room for them is room.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from timekeeper.generate.profile import PLACED, Profile
from timekeeper.generate.shortened import fitted_phases, shortened
from timekeeper.model import MAX_TURN, EventType

COUNT_KEYS = {EventType.COMMS_DOWN: "outages", EventType.DATA_TRANSFER: "data_transfers",
              EventType.INCOMING_DATA: "incoming_data"}  # the option (and its GenerateOptions field) counting each

Span = tuple[int, int]


@dataclass(frozen=True)
class GenerateOptions:
    """The generator's settings; None: as on the official tracks of `kind`.

    Counts are (low, high) spans drawn uniformly; times are milliseconds on the 5-second grid.
    """

    kind: str = "mission"
    players: int = 5
    threat_level: int | None = None  # confirmed threat points (normal 1, serious 2)
    length_ms: int | None = None  # the whole mission; phases keep their official proportions
    phase_lengths_ms: tuple[int, ...] | None = None  # every phase exactly
    outages: Span | None = None
    outage_length_ms: Span | None = None
    incoming_data: Span | None = None
    data_transfers: Span | None = None
    ambush_percent: int | None = None  # chance that a phase with threats ends with an ambush
    max_serious: int | None = None  # serious threats, unconfirmed reports included
    max_internal: int | None = None
    threat_colors: tuple[str, ...] = ()  # threat piles dealt out evenly; () : no pile named

    def asked_count(self, placed: EventType) -> Span | None:
        """The count of `placed` (one of PLACED) the user asked for; None: as official."""
        span: Span | None = getattr(self, COUNT_KEYS[placed])
        return span

    @property
    def official(self) -> Profile:
        return Profile.official(self.kind)

    @cached_property
    def profile(self) -> Profile:
        """The official figures of the kind with these settings applied (what sampler and rules use)."""
        return _apply(self, self.official)

    @property
    def default_level(self) -> int:
        """The confirmed threat points as official (scaled down for a short mission: shortened.py)."""
        return self.profile.confirmed_points[1]

    @property
    def level(self) -> int:
        return self.default_level if self.threat_level is None else self.threat_level

    @property
    def max_doubles(self) -> int:
        return self.profile.double_turns[1]

    @property
    def max_unconfirmed(self) -> int:
        return self.profile.unconfirmed[1] if self.players == 5 else 0

    @property
    def threat_slots(self) -> int:
        """How many threats a track of this kind can carry: one per turn, plus the double turns."""
        return self.profile.turns + self.max_doubles

    @property
    def max_level(self) -> int:
        """The most confirmed points that fit: every confirmed slot a serious threat."""
        return 2 * (self.threat_slots - self.max_unconfirmed)

    @property
    def is_default(self) -> bool:
        """True when the threats are drawn as on the official tracks (level and caps untouched)."""
        return self.level == self.default_level and self.max_serious is None and self.max_internal is None


def _apply(o: GenerateOptions, p: Profile) -> Profile:
    if o.phase_lengths_ms is not None:
        p = replace(p, phase_ms=tuple((ms, ms) for ms in o.phase_lengths_ms), mission_ms=sum(o.phase_lengths_ms))
    elif o.length_ms is not None:
        p = replace(p, phase_ms=fitted_phases(p.phase_ms, o.length_ms), mission_ms=o.length_ms)
    p = shortened(p, o.official, exact_phases=o.phase_lengths_ms is not None)  # shorter carries less (shortened.py)
    counts_changed = o.outages is not None or o.outage_length_ms is not None
    for placed in PLACED:
        span = o.asked_count(placed)
        if span is not None:
            p = p.with_count(placed, span)
    if o.outage_length_ms is not None:
        p = replace(p, outage_ms=o.outage_length_ms)
    if counts_changed:
        (low, high), (short_ms, long_ms) = p.outages, p.outage_ms
        official_low, official_high = p.comms_down_ms
        total = (max(official_low, low * short_ms), min(official_high, high * long_ms))
        # keep the official total where the asked counts and lengths allow it
        p = replace(p, comms_down_ms=total if total[0] <= total[1] and low * long_ms >= total[0] and high * short_ms <= total[1]
                    else (low * short_ms, high * long_ms))
    p = replace(p, ambush_chance=p.ambushes / p.threat_phases if o.ambush_percent is None else o.ambush_percent / 100)
    if o.max_serious is not None:
        p = replace(p, serious=(min(p.serious[0], o.max_serious), o.max_serious),
                    serious_internal=(0, min(p.serious_internal[1], o.max_serious)),
                    unconfirmed_serious=o.max_serious != 0)
    if o.max_internal is not None:
        p = replace(p, internal=(min(p.internal[0], o.max_internal), o.max_internal),
                    serious_internal=(0, min(p.serious_internal[1], o.max_internal)),
                    double_turns=(min(p.double_turns[0], o.max_internal), min(p.double_turns[1], o.max_internal)))
        if o.max_internal > o.official.internal[1]:
            p = replace(p, internal_turns=tuple(range(1, MAX_TURN + 1)))
    return replace(p, max_serious=o.max_serious, threat_colors=o.threat_colors)
