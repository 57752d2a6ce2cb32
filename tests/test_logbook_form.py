"""The form API `timekeeper serve` calls: raw string values in, a typed record or one error with the
problems by field out."""

from __future__ import annotations

import datetime

import pytest

from timekeeper.errors import ExitStatus, LogEntryError
from timekeeper.logbook.form import FIELDS, parse_mission, record_values
from timekeeper.logbook.record import Difficulty, Role
from timekeeper.logbook.shiplog import ShipLog

TODAY = datetime.date(2026, 11, 22)


def test_a_web_form_with_separate_role_and_damage_fields():
    form = {"crew": "Ann, Bob, Cid, Dee, Eve", "captain": "ann", "communications_officer": "Bob",
            "security_chief": "Eve", "date": "", "track": "mission-6", "common": "1+2", "serious": "2",
            "survived": "5", "destroyed": "14", "damage_red": "1", "damage_white": "", "damage_blue": "2",
            "knocked_out": "0", "disabled_squads": "1", "visual_confirmation": "7", "destroyed_by": "",
            "csrf_token": "ignored", "submit": "Record"}
    record = parse_mission(form, today=TODAY)
    assert record.played_on == TODAY and record.common is Difficulty.MIXED
    assert record.crew.holder(Role.CAPTAIN) == "Ann" and record.crew.holder(Role.SECURITY) == "Eve"
    assert record.damage.label() == "1/0/2"
    assert parse_mission(record_values(record), today=TODAY) == record  # values round-trip


def test_repeated_values_arrive_as_lists():
    record = parse_mission({"crew": ["Ann:c", "Bob:co+sc", "Cid"], "track": "mission-1",
                            "damage": ["red=1", "white=2"]}, today=TODAY)
    assert record.crew.label() == "Ann (C), Bob (CO) (SC), Cid"
    assert record.damage.label() == "1/2/0"


def test_problems_are_given_by_field_for_the_form_to_mark():
    with pytest.raises(LogEntryError) as caught:
        parse_mission({"crew": "", "track": "mission-9", "survived": "x", "damage_blue": "9",
                       "knocked_out": "-1"}, today=TODAY)
    error = caught.value
    assert error.exit_code == ExitStatus.INVALID_LOG_ENTRY
    assert set(error.problems) == {"crew", "track", "survived", "damage_blue", "knocked_out"}
    assert all(field in FIELDS for field in error.problems)
    assert error.message.splitlines()[0].startswith("crew: expected the names")


def test_a_rejected_form_stores_nothing(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        with pytest.raises(LogEntryError):
            log.record_mission({"crew": "Ann, Bob", "track": "mission-1", "visual_confirmation": "-5"})
        assert log.entries() == []
        assert log.connection.execute("SELECT count(*) FROM missions").fetchone()[0] == 0


def test_the_form_table_names_accepted_fields_and_checks_each_alone():
    from timekeeper.logbook.fields import MISSION_FORM

    assert {field.name for field in MISSION_FORM} <= set(FIELDS)
    by_name = {field.name: field for field in MISSION_FORM}
    assert by_name["common"].choices == ("1", "2", "1+2")
    with pytest.raises(ValueError, match="from 0 to 2"):
        by_name["disabled_squads"].check("3")
    with pytest.raises(ValueError, match="did you mean 'mission-2'"):
        by_name["track"].check("mision-2")
    by_name["crew"].check("Ann:captain, Bob")


def test_form_defaults_after_a_mission_offer_the_waiting_campaign(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        assert log.form_defaults("mission-3") == {"date": datetime.date.today().isoformat(), "track": "mission-3",
                                                  "common": "1", "serious": "1"}
        log.record_mission({"crew": "Ann:captain, Bob", "track": "mission-1"})
        assert log.form_defaults("mission-3")["crew"] == "Ann:captain, Bob"
        log.start_campaign({"crew": "Eve, Fay, Gus, Hal", "track": "mission-6", "serious": "2"})
        played = log.form_defaults("mission-6")
        assert (played["campaign"], played["crew"], played["serious"]) == ("1", "Eve, Fay, Gus, Hal", "2")
        assert "campaign" not in log.form_defaults("mission-2")  # another track: a single mission
        entry = log.record_mission({**played, "destroyed": "7"})
        assert entry.campaign_id == 1 and entry.record.track.name == "mission-6"


def test_form_defaults_for_a_later_campaign_mission_carry_the_ships_damage(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        log.start_campaign({"crew": "Eve, Fay, Gus, Hal", "track": "mission-6"})
        first = log.form_defaults("mission-6")
        assert [first[f"damage_{zone}"] for zone in ("red", "white", "blue")] + [first["disabled_squads"]] == ["0"] * 4
        log.record_mission({**first, "destroyed": "7", "damage_red": "3", "damage_white": "1", "disabled_squads": "1"})
        log.next_mission({"repairs": "red=2,squads=1", "track": "mission-7"})
        second = log.form_defaults("mission-7")
        carried = {key: second[key] for key in ("damage_red", "damage_white", "damage_blue", "disabled_squads")}
        assert carried == {"damage_red": "1", "damage_white": "1", "damage_blue": "0", "disabled_squads": "0"}
        entry = log.record_mission({**second, "destroyed": "6"})  # the defaults as they are: accepted
        assert entry.campaign_id == 1 and entry.record.damage.label() == "1/1/0"
