"""The mission form as a crew fills it in: each field's name, label, what it expects and default.

The terminal prompts of `timekeeper log add` and the web form are built from this one table; each
answer can be checked on its own (FormField.check, the same functions logbook.form uses), and the
whole mission is then checked by logbook.form.parse_mission.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from timekeeper.logbook.form import (
    check_threat_name,
    integer,
    parse_crew,
    parse_date,
    parse_difficulty,
    resolve_track,
)
from timekeeper.logbook.record import (
    BATTLEBOT_SQUADS,
    MAX_ZONE_DAMAGE,
    Difficulty,
)
from timekeeper.model import MAX_PLAYERS

DIFFICULTIES = tuple(d.value for d in Difficulty)


@dataclass(frozen=True)
class FormField:
    name: str  # the form value's key (see logbook.form)
    label: str
    kind: str  # crew, date, track, difficulty, count, text
    hint: str = ""  # what is expected, for a placeholder or help line
    default: str = ""
    high: int | None = None  # the largest count allowed (counts start at 0)
    campaign_fixed: bool = False  # a campaign mission takes it from the campaign
    scoring: bool = False  # a point column: not asked when the ship was destroyed

    @property
    def choices(self) -> tuple[str, ...]:
        return DIFFICULTIES if self.kind == "difficulty" else ()

    def check(self, raw: str, today: datetime.date | None = None) -> None:
        """ValueError saying what is expected, if `raw` is not a good value for this field alone."""
        raw = raw.strip()
        if not raw:
            if self.kind in ("crew", "track"):
                raise ValueError(f"expected {self.hint}")
            return
        if self.kind == "crew":
            parse_crew(raw)
        elif self.kind == "date":
            parse_date(raw, today or datetime.date.today())
        elif self.kind == "track":
            resolve_track(raw, None)
        elif self.kind == "difficulty":
            parse_difficulty(raw)
        elif self.kind == "count":
            integer(raw, 0, self.high)
        elif self.name == "destroyed_by":
            check_threat_name(raw)


MISSION_FORM: tuple[FormField, ...] = (
    FormField("crew", "Crew", "crew", "names, comma-separated; roles as Ann:captain, Bob:co, Cid:sc",
              campaign_fixed=True),
    FormField("date", "Date played", "date", "YYYY-MM-DD"),
    FormField("track", "Track", "track", "a built-in track name or a scenario file", campaign_fixed=True),
    FormField("common", "Difficulty of common threats", "difficulty", "1, 2 or 1+2", "1", campaign_fixed=True),
    FormField("serious", "Difficulty of serious threats", "difficulty", "1, 2 or 1+2", "1", campaign_fixed=True),
    FormField("survived", "Points for threats survived", "count", "their lower value", "0", scoring=True),
    FormField("destroyed", "Points for threats destroyed", "count", "their higher value", "0", scoring=True),
    FormField("damage_red", "Damage in the red zone", "count", "0-6", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("damage_white", "Damage in the white zone", "count", "0-6", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("damage_blue", "Damage in the blue zone", "count", "0-6", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("knocked_out", "Crew members knocked out", "count", "at the end", "0", MAX_PLAYERS, scoring=True),
    FormField("disabled_squads", "Disabled battlebot squads", "count", "0-2", "0", BATTLEBOT_SQUADS, scoring=True),
    FormField("visual_confirmation", "Visual confirmation points", "count", "", "0", scoring=True),
    FormField("destroyed_by", "Threat that destroyed the ship", "text", "leave empty if the ship survived"),
    FormField("notes", "Notes", "text"),
)
