"""The ship's log file: an SQLite database (WAL mode), its schema versions and their migrations,
and how a mission row maps to a record.

Opening checks the file before anything is written: a file that is not a timekeeper log, a damaged
one, or one written by a newer timekeeper raises LogDatabaseError and is left exactly as it was.
Every change runs in one `BEGIN IMMEDIATE` transaction, so a process killed mid-write loses only
the change it was making, and two processes (the CLI and `timekeeper serve`) can write at once:
the second waits for the first (up to BUSY_TIMEOUT_S).
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from timekeeper.environment import current
from timekeeper.errors import LogDatabaseError
from timekeeper.logbook.record import (
    Crew,
    CrewMember,
    Damage,
    Difficulty,
    Entry,
    MissionRecord,
    Role,
    Track,
)

APPLICATION_ID = 0x544B4C47  # "TKLG": marks the file as a timekeeper ship's log
BUSY_TIMEOUT_S = 15.0
LOG_FILE_NAME = "shiplog.sqlite3"

# Schema version N is reached by running MIGRATIONS[N - 1] on version N - 1. Append, never edit.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE missions (
            id INTEGER PRIMARY KEY,
            played_on TEXT NOT NULL,
            crew TEXT NOT NULL CHECK (json_valid(crew)),
            track TEXT NOT NULL,
            track_file TEXT,
            track_seed INTEGER,
            common TEXT NOT NULL CHECK (common IN ('1', '2', '1+2')),
            serious TEXT NOT NULL CHECK (serious IN ('1', '2', '1+2')),
            survived INTEGER NOT NULL CHECK (survived >= 0),
            destroyed INTEGER NOT NULL CHECK (destroyed >= 0),
            damage_red INTEGER NOT NULL CHECK (damage_red BETWEEN 0 AND 7),
            damage_white INTEGER NOT NULL CHECK (damage_white BETWEEN 0 AND 7),
            damage_blue INTEGER NOT NULL CHECK (damage_blue BETWEEN 0 AND 7),
            knocked_out INTEGER NOT NULL CHECK (knocked_out >= 0),
            disabled_squads INTEGER NOT NULL CHECK (disabled_squads BETWEEN 0 AND 2),
            visual_confirmation INTEGER NOT NULL CHECK (visual_confirmation >= 0),
            destroyed_by TEXT,
            notes TEXT NOT NULL DEFAULT '',
            recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        )""",
        """CREATE TABLE campaigns (
            id INTEGER PRIMARY KEY,
            crew TEXT NOT NULL CHECK (json_valid(crew)),
            pool TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'ended', 'complete', 'lost')),
            started_on TEXT NOT NULL,
            ended_on TEXT
        )""",
        """CREATE TABLE campaign_missions (
            campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
            number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 3),
            track TEXT NOT NULL,
            track_file TEXT,
            track_seed INTEGER,
            common TEXT NOT NULL CHECK (common IN ('1', '2', '1+2')),
            serious TEXT NOT NULL CHECK (serious IN ('1', '2', '1+2')),
            repaired_red INTEGER NOT NULL DEFAULT 0,
            repaired_white INTEGER NOT NULL DEFAULT 0,
            repaired_blue INTEGER NOT NULL DEFAULT 0,
            repaired_squads INTEGER NOT NULL DEFAULT 0,
            mission_id INTEGER UNIQUE REFERENCES missions (id),
            PRIMARY KEY (campaign_id, number)
        )""",
        "CREATE INDEX missions_played_on ON missions (played_on, id)",
    ),
    (  # 2: the game of `timekeeper serve` a mission was recorded from, so a game is recorded once
        """CREATE TABLE mission_games (
            game TEXT PRIMARY KEY CHECK (length(game) BETWEEN 1 AND 64),
            mission_id INTEGER NOT NULL UNIQUE REFERENCES missions (id) ON DELETE CASCADE
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def default_log_path() -> Path:
    """$TIMEKEEPER_LOG, else shiplog.sqlite3 in $TIMEKEEPER_DATA, $XDG_DATA_HOME/timekeeper or
    ~/.local/share/timekeeper."""
    environment = current()
    return environment.log or environment.data / LOG_FILE_NAME


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (or create) the log at `path`, checked and migrated to SCHEMA_VERSION; LogDatabaseError if unusable."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise LogDatabaseError("not a file (expected a ship's log database)", path=str(path))
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LogDatabaseError(f"cannot create the log's folder: {error.strerror}", path=str(path.parent)) from error
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise LogDatabaseError(f"cannot open the ship's log: {error}", path=str(path)) from error
    try:
        _check(connection, path)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")  # a committed mission survives a power cut too
        _migrate(connection, path)
    except sqlite3.OperationalError as error:
        connection.close()
        raise LogDatabaseError(f"cannot use the ship's log: {error}", path=str(path)) from error
    except sqlite3.DatabaseError as error:
        connection.close()
        raise LogDatabaseError(f"damaged or not a ship's log ({error}); left as it is", path=str(path)) from error
    except LogDatabaseError:
        connection.close()
        raise
    return connection


def _check(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is another database, a newer log, or damaged (nothing is written before this).

    The header and the tables are read in one read transaction: another process creating the log
    at the same moment is seen wholly before or wholly after (never its tables without its id)."""
    connection.execute("BEGIN")
    try:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").fetchone()[0]
        problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
    finally:
        connection.execute("COMMIT")
    if application_id != APPLICATION_ID and (tables or version):
        raise LogDatabaseError("an SQLite database, but not a timekeeper ship's log; left as it is", path=str(path))
    if version > SCHEMA_VERSION:
        raise LogDatabaseError(
            f"written by a newer timekeeper (log version {version}, this one reads up to "
            f"{SCHEMA_VERSION}); upgrade timekeeper. The log is left as it is", path=str(path))
    if problems != ["ok"]:
        raise LogDatabaseError(f"the ship's log is damaged ({'; '.join(problems[:3])}); left as it is "
                               "(restore a backup, or `timekeeper log export` what can still be read)", path=str(path))


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Bring the schema to SCHEMA_VERSION, one transaction per version (safe when two processes open it)."""
    if connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return  # the usual case: no write lock needed to open the log
    while True:
        with transaction(connection):
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version >= SCHEMA_VERSION:
                return
            if version == 0:
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for statement in MIGRATIONS[version]:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version + 1}")


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: BEGIN IMMEDIATE (waits for another writer), COMMIT, or ROLLBACK on error.

    Inside an open transaction it joins it, so several changes (an import) commit or fail together.
    """
    if connection.in_transaction:
        yield connection
        return
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        raise LogDatabaseError(f"the ship's log is busy (another program holds it for over "
                               f"{BUSY_TIMEOUT_S:.0f} s): {error}") from error
    try:
        yield connection
        connection.execute("COMMIT")
    except sqlite3.OperationalError as error:  # a read-only file or folder, a full disk
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise LogDatabaseError(f"cannot write the ship's log: {error}") from error
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise


MISSION_COLUMNS = ("played_on, crew, track, track_file, track_seed, common, serious, survived, destroyed, "
                    "damage_red, damage_white, damage_blue, knocked_out, disabled_squads, visual_confirmation, "
                    "destroyed_by, notes")
SELECT_ENTRIES = ("SELECT m.id, " + ", ".join("m." + c.strip() for c in MISSION_COLUMNS.split(",")) +
                   ", c.campaign_id, c.number FROM missions m ")


def crew_json(crew: Crew) -> str:
    return json.dumps([{"name": m.name, "roles": [r.value for r in m.roles]} for m in crew.members],
                      ensure_ascii=False)


@functools.lru_cache(maxsize=4096)
def crew_from_json(raw: str) -> Crew:
    """A stored crew (JSON); cached, as a club's log holds the same few crews again and again."""
    return Crew(tuple(CrewMember(m["name"], tuple(Role(r) for r in m["roles"])) for m in json.loads(raw)))


def mission_row(record: MissionRecord) -> tuple:
    return (record.played_on.isoformat(), crew_json(record.crew), record.track.name, record.track.file,
            record.track.seed, record.common.value, record.serious.value, record.survived_points,
            record.destroyed_points, record.damage.red, record.damage.white, record.damage.blue,
            record.knocked_out, record.disabled_squads, record.visual_confirmation, record.destroyed_by,
            record.notes)


def entry_from_row(row: tuple) -> Entry:
    (entry_id, played_on, crew, track, track_file, seed, common, serious, survived, destroyed, red, white, blue,
     knocked_out, squads, visual, destroyed_by, notes, campaign_id, number) = row
    record = MissionRecord(
        crew=crew_from_json(crew), played_on=datetime.date.fromisoformat(played_on), track=Track(track, track_file, seed),
        common=Difficulty(common), serious=Difficulty(serious), survived_points=survived,
        destroyed_points=destroyed, damage=Damage(red, white, blue), knocked_out=knocked_out,
        disabled_squads=squads, visual_confirmation=visual, destroyed_by=destroyed_by, notes=notes)
    return Entry(entry_id, record, campaign_id, number)
