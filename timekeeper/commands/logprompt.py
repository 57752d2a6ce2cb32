"""Asking for a mission's values in the terminal (`timekeeper log add` without flags).

Each answer is checked at once with the same function the form uses, and asked again if bad;
the whole mission is then checked by logbook.form like any other.
"""

from __future__ import annotations

import datetime
from typing import Callable

import click

from timekeeper.logbook.form import (
    crew_text, integer, parse_crew, parse_date, parse_difficulty, resolve_track,
)
from timekeeper.logbook.record import BATTLEBOT_SQUADS, MAX_ZONE_DAMAGE, MAX_PLAYERS


def _number(high: int | None = None) -> Callable[[str], object]:
    return lambda raw: integer(raw, 0, high)


# field, question, check (raises ValueError), default
QUESTIONS: tuple[tuple[str, str, Callable[[str], object], str], ...] = (
    ("date", "Date played (YYYY-MM-DD)", lambda raw: parse_date(raw, datetime.date.today()), ""),
    ("track", "Track (built-in name or scenario file)", lambda raw: resolve_track(raw, None), ""),
    ("common", "Difficulty of common threats (1, 2 or 1+2)", parse_difficulty, "1"),
    ("serious", "Difficulty of serious threats (1, 2 or 1+2)", parse_difficulty, "1"),
    ("destroyed_by", "Threat that destroyed the ship (leave empty if it survived)", str, ""),
    ("survived", "Points for threats survived", _number(), "0"),
    ("destroyed", "Points for threats destroyed", _number(), "0"),
    ("damage_red", "Damage in the red zone", _number(MAX_ZONE_DAMAGE + 1), "0"),
    ("damage_white", "Damage in the white zone", _number(MAX_ZONE_DAMAGE + 1), "0"),
    ("damage_blue", "Damage in the blue zone", _number(MAX_ZONE_DAMAGE + 1), "0"),
    ("knocked_out", "Crew members knocked out", _number(MAX_PLAYERS), "0"),
    ("disabled_squads", "Disabled battlebot squads", _number(BATTLEBOT_SQUADS), "0"),
    ("visual_confirmation", "Visual confirmation points", _number(), "0"),
)
CAMPAIGN_FIXED = {"track", "common", "serious"}


def _checked(check: Callable[[str], object]) -> Callable[[str], str]:
    def convert(raw: str) -> str:
        raw = raw.strip()
        try:
            check(raw)
        except ValueError as error:
            raise click.BadParameter(str(error)) from None
        return raw
    return convert


def prompt_missing(log, values: dict[str, object]) -> dict[str, object]:
    """`values` with every field not given asked for (fields a campaign fixes are not asked)."""
    answers = dict(values)
    campaign = "campaign" in values
    if "crew" not in values and not campaign:
        last = log.last_crew()
        default = crew_text(last) if last is not None else None
        answers["crew"] = click.prompt("Crew (names, comma-separated; roles as Ann:captain, Bob:co, Cid:sc)",
                                       default=default, value_proc=_checked(parse_crew))
    damage_given = "damage" in values
    for field, question, check, default in QUESTIONS:
        if field in answers or (campaign and field in CAMPAIGN_FIXED):
            continue
        if field.startswith("damage_") and damage_given:
            continue
        if field == "date":
            default = datetime.date.today().isoformat()
        if field != "destroyed_by" and answers.get("destroyed_by") and field not in ("track", "common", "serious"):
            continue  # a destroyed ship scores nothing: its points are not asked
        answer = click.prompt(question, default=default, show_default=bool(default), value_proc=_checked(check))
        if answer:
            answers[field] = answer
    return answers
