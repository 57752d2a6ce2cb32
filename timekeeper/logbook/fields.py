"""The mission form as a crew fills it in: each field's name, label, what it expects and default.

The terminal prompts of `timekeeper log add` and the web form are built from this one table; each
answer can be checked on its own (FormField.check, the same functions logbook.form uses), and the
whole mission is then checked by logbook.form.parse_mission.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from timekeeper.i18n import FALLBACK, messages, translate
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
    """A field of the mission form. Its label and hint (what is expected, for a placeholder or
    help line) are the catalogues' log.field.<name> and log.hint.<name>: `label` and `hint` are
    their English (the terminal's prompts), a page says them in its language."""

    name: str  # the form value's key (see logbook.form)
    kind: str  # crew, date, track, difficulty, count, text
    default: str = ""
    high: int | None = None  # the largest count allowed (counts start at 0)
    campaign_fixed: bool = False  # a campaign mission takes it from the campaign
    scoring: bool = False  # a point column: not asked when the ship was destroyed

    @property
    def label(self) -> str:
        return translate(FALLBACK, f"log.field.{self.name}")

    @property
    def hint(self) -> str:
        """What is expected ("" for a field that needs no hint)."""
        key = f"log.hint.{self.name}"
        return translate(FALLBACK, key) if key in messages(FALLBACK) else ""

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
    FormField("crew", "crew", campaign_fixed=True),
    FormField("date", "date"),
    FormField("track", "track", campaign_fixed=True),
    FormField("common", "difficulty", "1", campaign_fixed=True),
    FormField("serious", "difficulty", "1", campaign_fixed=True),
    FormField("survived", "count", "0", scoring=True),
    FormField("destroyed", "count", "0", scoring=True),
    FormField("damage_red", "count", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("damage_white", "count", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("damage_blue", "count", "0", MAX_ZONE_DAMAGE + 1, scoring=True),
    FormField("knocked_out", "count", "0", MAX_PLAYERS, scoring=True),
    FormField("disabled_squads", "count", "0", BATTLEBOT_SQUADS, scoring=True),
    FormField("visual_confirmation", "count", "0", scoring=True),
    FormField("destroyed_by", "text"),
    FormField("notes", "text"),
)
