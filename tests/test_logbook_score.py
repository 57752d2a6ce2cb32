"""Scores of worked examples of the rulebook's scoring rules (single missions and campaigns), stored
in a real log file and read back."""

from __future__ import annotations

import datetime
import random

import pytest

from timekeeper.logbook.record import mission_score
from timekeeper.logbook.shiplog import ShipLog

CREW = "Ann:captain, Bob:co, Cid, Dee:sc"
DAY = datetime.date(2026, 11, 21)

# (form values, score): each worked out by hand from the rulebook's rule
# survived + destroyed - total damage - most damaged zone - 2 per knocked out - 1 per disabled squad + visual
WORKED = [
    # a clean mission: nothing lost
    ({"survived": "0", "destroyed": "16", "visual_confirmation": "3"}, 0 + 16 + 3),
    # damage counts twice in the most damaged zone: 2+3+0 = 5 total, white 3 is the worst
    ({"survived": "4", "destroyed": "12", "damage": "red=2,white=3"}, 16 - 5 - 3),
    # two zones tie for the worst: counted once
    ({"survived": "2", "destroyed": "8", "damage_red": "3", "damage_blue": "3"}, 10 - 6 - 3),
    # knocked-out crew cost 2 each, disabled battlebot squads 1 each
    ({"survived": "6", "destroyed": "6", "knocked_out": "2", "disabled_squads": "1"}, 12 - 4 - 1),
    # everything at once: 3 + 10 - (1+1+4) - 4 - 2*1 - 2 + 5
    ({"survived": "3", "destroyed": "10", "damage": "red=1,white=1,blue=4", "knocked_out": "1",
      "disabled_squads": "2", "visual_confirmation": "5"}, 13 - 6 - 4 - 2 - 2 + 5),
    # scores can go below zero
    ({"survived": "2", "destroyed": "0", "damage": "red=6,white=6,blue=6", "knocked_out": "4"}, 2 - 18 - 6 - 8),
    # the "perfect game" of the fan analysis: 8 threat points, all yellow and destroyed (6 each), 21 visual
    ({"common": "2", "serious": "2", "destroyed": "48", "visual_confirmation": "21"}, 69),
]


@pytest.mark.parametrize("values, expected", WORKED)
def test_worked_examples_are_stored_and_read_back_with_their_score(tmp_path, values, expected):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        entry = log.record_mission({"crew": CREW, "track": "mission-5", **values}, today=DAY)
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        (stored,) = log.entries()
    assert stored == entry
    assert stored.score == expected == mission_score(stored.record)


def test_a_destroyed_ship_scores_nothing_and_names_the_threat(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        entry = log.record_mission({"crew": CREW, "track": "mission-8", "survived": "3", "destroyed": "9",
                                    "damage": "blue=7", "destroyed_by": "Leviathan Tanker"}, today=DAY)
    assert entry.score is None and not entry.won
    assert entry.record.destroyed_by == "Leviathan Tanker"


def test_a_campaign_scores_penalties_once_and_averages_visual_confirmation(tmp_path):
    """Three missions: threats 13 + 11 + 9; the final ship (damage 2/4/2, 2 knocked out, no squads
    disabled) costs 8 + 4 + 4; visual 4 + 5 + 2 = 11 over 3 missions is 3 (rounded down)."""
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        log.start_campaign({"crew": CREW, "common": "1+2"}, rng=random.Random(1), today=DAY)
        log.record_mission({"campaign": "current", "survived": "5", "destroyed": "8", "damage": "red=3",
                            "visual_confirmation": "4", "disabled_squads": "1"}, today=DAY)
        log.next_mission({"repairs": "red=2,squads=1", "serious": "2"}, rng=random.Random(2))
        log.record_mission({"campaign": "current", "survived": "2", "destroyed": "9", "damage": "red=1,white=4",
                            "visual_confirmation": "5"}, today=DAY)
        log.next_mission({"common": "2"}, rng=random.Random(3))
        log.record_mission({"campaign": "current", "survived": "3", "destroyed": "6",
                            "damage": "red=2,white=4,blue=2", "visual_confirmation": "2", "knocked_out": "2"},
                           today=DAY)
        (campaign,) = log.campaigns()
    score = campaign.score()
    assert campaign.status.value == "complete"
    assert (score.threat_points, score.final.total, score.visual_confirmation) == (33, 8 + 4 + 4, 3)
    assert score.total == 33 - 16 + 3 == 20
    assert [leg.entry.score for leg in campaign.legs] == [None, None, None]  # scored as a whole
    assert len({leg.track.name for leg in campaign.legs}) == 3  # a random track, not flown twice
