"""Asking for a mission's values in the terminal (`timekeeper log add` without flags).

The questions are the fields of logbook.fields.MISSION_FORM (the web form's too). Each answer is
checked at once and asked again if bad; the whole mission is then checked like any other.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

import click

from timekeeper.logbook.fields import MISSION_FORM, FormField
from timekeeper.logbook.form import FormValue, crew_text
from timekeeper.logbook.shiplog import ShipLog


def _checked(field: FormField) -> Callable[[str], str]:
    def convert(raw: str) -> str:
        try:
            field.check(raw)
        except ValueError as error:
            raise click.BadParameter(str(error)) from None
        return raw.strip()
    return convert


SURVIVED = "Did the ship survive?"


def prompt_missing(log: ShipLog, values: dict[str, FormValue]) -> dict[str, FormValue]:
    """`values` with every field not given asked for (fields a campaign fixes are not asked). Before
    the points it asks whether the ship survived; only a destroyed ship is asked for the threat
    that destroyed it, and then for no points."""
    answers = dict(values)
    campaign = "campaign" in values
    carried = log.form_defaults() if campaign else {}  # damage and squads the ship brings along
    threat = next(field for field in MISSION_FORM if field.name == "destroyed_by")
    for field in MISSION_FORM:
        if field.name in answers or (campaign and field.campaign_fixed) or field.name in ("notes", threat.name):
            continue
        if field.name.startswith("damage_") and "damage" in values:
            continue
        if field.scoring and "destroyed_by" not in answers:
            if click.confirm(SURVIVED, default=True):
                answers["destroyed_by"] = ""  # asked and answered: no threat to name
            else:
                answers["destroyed_by"] = click.prompt(threat.label, value_proc=_checked(threat))
        if field.scoring and answers.get("destroyed_by"):
            continue
        default = carried.get(field.name, field.default) if field.name.startswith(("damage_", "disabled_")) else field.default
        if field.name == "date":
            default = datetime.date.today().isoformat()
        elif field.name == "crew":
            last = log.last_crew()
            default = crew_text(last) if last is not None else ""
        question = f"{field.label} ({field.hint})" if field.hint and field.kind != "count" else field.label
        answer = click.prompt(question, default=default or ("" if field.kind == "text" else None),
                              show_default=bool(default), value_proc=_checked(field))
        if answer:
            answers[field.name] = answer
    return answers
