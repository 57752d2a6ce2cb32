"""The log database: WAL, schema versions and migration, refusing damaged or newer files without
touching them, a writer killed mid-transaction, and writers at the same time."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from logbook_helpers import CREW, ROOT, timekeeper

from timekeeper.errors import ExitStatus, LogDatabaseError
from timekeeper.logbook import database
from timekeeper.logbook.shiplog import ShipLog

MISSION = {"crew": CREW, "track": "mission-2", "survived": "3", "destroyed": "7", "damage": "red=1"}


def _python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_new_log_is_created_in_wal_mode_with_the_current_schema(tmp_path):
    path = tmp_path / "deep" / "folder" / "log.sqlite3"
    with ShipLog.open(path) as log:
        log.record_mission(MISSION)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == database.SCHEMA_VERSION
    assert raw.execute("PRAGMA application_id").fetchone()[0] == database.APPLICATION_ID


def test_default_place_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("TIMEKEEPER_LOG", raising=False)
    monkeypatch.setenv("TIMEKEEPER_DATA", str(tmp_path / "data"))
    assert database.default_log_path() == tmp_path / "data" / "shiplog.sqlite3"
    monkeypatch.delenv("TIMEKEEPER_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert database.default_log_path() == tmp_path / "xdg" / "timekeeper" / "shiplog.sqlite3"
    monkeypatch.setenv("TIMEKEEPER_LOG", str(tmp_path / "mine.db"))
    assert database.default_log_path() == tmp_path / "mine.db"


def test_an_older_log_is_migrated_on_open_and_keeps_its_missions(tmp_path, monkeypatch):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        first = log.record_mission(MISSION)
    upgrade = ("ALTER TABLE missions ADD COLUMN rating INTEGER",)
    monkeypatch.setattr(database, "MIGRATIONS", database.MIGRATIONS + (upgrade,))
    monkeypatch.setattr(database, "SCHEMA_VERSION", database.SCHEMA_VERSION + 1)
    with ShipLog.open(path) as log:
        assert log.entries() == [first]
        assert log.connection.execute("PRAGMA user_version").fetchone()[0] == database.SCHEMA_VERSION
        assert "rating" in [row[1] for row in log.connection.execute("PRAGMA table_info(missions)")]


def _refused(path, *words: str) -> None:
    before = path.read_bytes()
    with pytest.raises(LogDatabaseError) as caught:
        ShipLog.open(path)
    for word in words:
        assert word in str(caught.value)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == before  # never overwritten
    result = timekeeper(path, "add", "--crew", CREW, "--track", "mission-1")
    assert result.returncode == ExitStatus.LOG_DATABASE
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert path.read_bytes() == before


def test_a_newer_log_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        log.record_mission(MISSION)
        log.connection.execute(f"PRAGMA user_version = {database.SCHEMA_VERSION + 1}")
    _refused(path, "newer timekeeper", "upgrade")


def test_a_file_that_is_no_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "log.sqlite3"
    path.write_text("my shopping list\n" * 200)
    _refused(path, "not a ship's log")


def test_another_programs_database_is_refused(tmp_path):
    path = tmp_path / "other.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE songs (title TEXT)")
    other.commit()
    other.close()
    _refused(path, "not a timekeeper ship's log")


def test_a_damaged_log_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        for _ in range(60):
            log.record_mission({**MISSION, "notes": "x" * 300})
        log.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page:3 * page + 200] = b"\xff" * 200  # scribble over a table page
    path.write_bytes(bytes(data))
    _refused(path, "damaged")


SLOW_WRITER = """
import sys, time
from timekeeper.logbook.shiplog import ShipLog
log = ShipLog.open(sys.argv[1])
with log.batch():
    for number in range(5):
        log.record_mission({"crew": "Eve, Fay, Gus, Hal", "track": "mission-7", "destroyed": str(number)})
    log.start_campaign({"crew": "Eve, Fay, Gus, Hal"})
    print("inside", flush=True)
    time.sleep(120)
"""


def test_a_writer_killed_mid_transaction_loses_nothing_else(tmp_path):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        kept = [log.record_mission(MISSION) for _ in range(3)]
    writer = _python(SLOW_WRITER, str(path))
    assert writer.stdout.readline().strip() == "inside"
    writer.send_signal(signal.SIGKILL)
    writer.wait(10)
    with ShipLog.open(path) as log:
        assert log.entries() == kept  # the half-written missions are gone, the others intact
        assert log.campaigns() == []
        assert log.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        after = log.record_mission(MISSION)
    assert after.id == kept[-1].id + 1


def test_real_log_add_processes_killed_at_random_moments_leave_a_sound_log(tmp_path):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        log.start_campaign({"crew": CREW})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for delay_s in (0.05, 0.15, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7):
        process = subprocess.Popen(
            [sys.executable, "-m", "timekeeper", "log", "--db", str(path), "add", "--campaign", "current",
             "--survived", "2", "--destroyed", "5", "--damage", "red=1"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        time.sleep(delay_s)
        process.kill()
        process.wait(10)
        with ShipLog.open(path) as log:
            assert log.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            (campaign,) = log.campaigns()
            entries = log.entries()
            # a mission is either fully recorded (in its campaign) or not at all
            assert len(entries) == len(campaign.flown) <= 1
            if entries:
                log.connection.execute("DELETE FROM campaign_missions WHERE number > 1")
                log.connection.execute("UPDATE campaign_missions SET mission_id = NULL")
                log.connection.execute("DELETE FROM missions")


MANY_WRITES = """
import sys
from timekeeper.logbook.shiplog import ShipLog
with ShipLog.open(sys.argv[1]) as log:
    for number in range(int(sys.argv[3])):
        log.record_mission({"crew": sys.argv[2], "track": "mission-4", "destroyed": str(number)})
print("done", flush=True)
"""


def test_two_writers_at_once_both_land_every_mission(tmp_path):
    path = tmp_path / "log.sqlite3"
    ShipLog.open(path).close()
    writers = [_python(MANY_WRITES, str(path), crew, "40") for crew in ("Ann, Bob, Cid, Dee", "Eve, Fay, Gus, Hal")]
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with ShipLog.open(path) as log:
        entries = log.entries()
    assert len(entries) == 80 and len({e.id for e in entries}) == 80
    for crew in ("Ann, Bob, Cid, Dee", "Eve, Fay, Gus, Hal"):
        assert sorted(e.record.destroyed_points for e in entries if e.record.crew.key() == crew) == list(range(40))


def test_reading_goes_on_while_another_program_writes(tmp_path):
    """WAL: `log list` does not wait for a writer (the web server recording a mission)."""
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        log.record_mission(MISSION)
    with ShipLog.open(path) as writer:
        with writer.batch():
            writer.record_mission({**MISSION, "track": "mission-6"})
            started = time.monotonic()
            listing = timekeeper(path, "list")
            waited_s = time.monotonic() - started
    assert listing.returncode == 0, listing.stderr
    assert "mission-2" in listing.stdout and "mission-6" not in listing.stdout  # only what is committed
    assert waited_s < database.BUSY_TIMEOUT_S / 3


def test_a_log_held_by_another_writer_too_long_is_a_clear_error(tmp_path, monkeypatch):
    path = tmp_path / "log.sqlite3"
    ShipLog.open(path).close()
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with ShipLog.open(path) as log:
        with pytest.raises(LogDatabaseError, match="busy"):
            log.record_mission(MISSION)
        holder.execute("ROLLBACK")
        assert log.record_mission(MISSION).id == 1


def test_two_crews_taking_the_same_campaign_step_at_once_take_it_once(tmp_path):
    path = tmp_path / "log.sqlite3"
    with ShipLog.open(path) as log:
        log.start_campaign({"crew": CREW})
        log.record_mission({"campaign": "current", "destroyed": "5"})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    racers = [subprocess.Popen([sys.executable, "-m", "timekeeper", "log", "--db", str(path), "campaign", "next"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(racer.wait(60) for racer in racers)
    assert codes == [0, ExitStatus.INVALID_LOG_ENTRY]
    with ShipLog.open(path) as log:
        (campaign,) = log.campaigns()
    assert len(campaign.legs) == 2


def test_a_log_created_by_another_program_while_this_one_checks_it_is_accepted(tmp_path, monkeypatch):
    """Opening reads the file's id, version and tables as one snapshot: another program creating the
    log between those reads (the CLI and `serve` on a new log) is seen wholly before or after."""
    import threading

    path = tmp_path / "log.sqlite3"
    other: list[threading.Thread] = []
    real_connect = sqlite3.connect

    class SlowChecker(sqlite3.Connection):
        def execute(self, sql, *args):  # type: ignore[no-untyped-def, override]
            result = super().execute(sql, *args)
            if sql == "PRAGMA application_id" and not other:  # the other program creates the log now
                other.append(threading.Thread(target=lambda: database.connect(path).close()))
                other[0].start()
                other[0].join(0.5)  # it is done within this unless this check holds it off
            return result

    def connect_slowly(*args, **kwargs):  # type: ignore[no-untyped-def]
        monkeypatch.setattr(database.sqlite3, "connect", real_connect)  # the other program connects plainly
        return real_connect(*args, factory=SlowChecker, **kwargs)

    monkeypatch.setattr(database.sqlite3, "connect", connect_slowly)
    connection = database.connect(path)
    other[0].join()
    assert connection.execute("PRAGMA user_version").fetchone()[0] == database.SCHEMA_VERSION
    connection.close()
