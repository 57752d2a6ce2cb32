"""A mission recorded from a game of `timekeeper serve` keeps the game's id: a game is recorded
once, however many screens (or programs) try, and removing its mission frees the game again."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from logbook_helpers import CREW

from timekeeper.errors import AlreadyRecorded, LogEntryError
from timekeeper.logbook import database
from timekeeper.logbook.shiplog import ShipLog

MISSION = {"crew": CREW, "track": "mission-2", "survived": "3", "destroyed": "7", "damage": "red=1"}


def test_a_game_is_recorded_once(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        assert log.game_entry("0123456789ab") is None
        first = log.record_mission(MISSION, game="0123456789ab")
        assert log.game_entry("0123456789ab") == first and log.entry_game(first.id) == "0123456789ab"
        with pytest.raises(AlreadyRecorded) as caught:
            log.record_mission({**MISSION, "survived": "9"}, game="0123456789ab")
        assert caught.value.entry_id == first.id
        assert f"mission #{first.id}" in caught.value.message and "0123456789ab" in caught.value.message
        assert log.entries() == [first]  # nothing stored
        other = log.record_mission(MISSION, game="ba9876543210")
        plain = log.record_mission(MISSION)  # the command line names no game
        assert log.entry_game(plain.id) is None and len(log.entries()) == 3
        log.remove(first.id)  # recorded by mistake: the game may be recorded again
        assert log.game_entry("0123456789ab") is None and log.game_entry("ba9876543210") == other
        again = log.record_mission({**MISSION, "survived": "4"}, game="0123456789ab")
        assert log.game_entry("0123456789ab") == again


def test_a_bad_mission_of_a_game_stores_no_link(tmp_path):
    with ShipLog.open(tmp_path / "log.sqlite3") as log:
        with pytest.raises(LogEntryError):
            log.record_mission({**MISSION, "survived": "-1"}, game="0123456789ab")
        assert log.game_entry("0123456789ab") is None
        assert log.connection.execute("SELECT count(*) FROM mission_games").fetchone()[0] == 0


def test_screens_recording_one_game_at_once_store_one_mission(tmp_path):
    path = tmp_path / "log.sqlite3"
    ShipLog.open(path).close()
    outcomes: list[str] = []
    start = threading.Barrier(6)

    def screen(points: int) -> None:
        with ShipLog.open(path) as log:  # a connection of its own, as each request has
            start.wait()
            try:
                log.record_mission({**MISSION, "survived": str(points)}, game="0123456789ab")
                outcomes.append("stored")
            except AlreadyRecorded:
                outcomes.append("refused")

    threads = [threading.Thread(target=screen, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["refused"] * 5 + ["stored"]
    with ShipLog.open(path) as log:
        assert len(log.entries()) == 1


def test_a_log_of_version_1_gains_the_game_table_and_keeps_its_missions(tmp_path, monkeypatch):
    path = tmp_path / "log.sqlite3"
    with monkeypatch.context() as old:
        old.setattr(database, "MIGRATIONS", database.MIGRATIONS[:1])
        old.setattr(database, "SCHEMA_VERSION", 1)
        with ShipLog.open(path) as log:
            first = log.record_mission(MISSION)
    assert "mission_games" not in _tables(path)
    with ShipLog.open(path) as log:
        assert log.entries() == [first]
        second = log.record_mission(MISSION, game="0123456789ab")
        assert log.game_entry("0123456789ab") == second
    assert "mission_games" in _tables(path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == database.SCHEMA_VERSION == 2


def _tables(path) -> set[str]:
    raw = sqlite3.connect(path)
    try:
        return {row[0] for row in raw.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    finally:
        raw.close()
