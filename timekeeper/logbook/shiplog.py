"""The ship's log API: record missions, run campaigns, read entries back. Used by `timekeeper log`
and `timekeeper serve` alike; no click, no printing.

    with ShipLog.open() as log:            # or ShipLog.open(path)
        entry = log.record_mission({"crew": "Ann:captain, Bob, Cid, Dee", "track": "mission-3",
                                    "survived": "4", "destroyed": "10", "damage": "red=2"})
        log.entries(); log.campaigns(); log.start_campaign({...})

Every change is one transaction that reads what it checks, so two writers cannot both take the
same campaign step. Bad values raise LogEntryError (one message listing every bad field, and
`problems` by field name); nothing is stored then.
"""

from __future__ import annotations

import datetime
import random
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from timekeeper.errors import AlreadyRecorded, LogEntryError
from timekeeper.i18n import said
from timekeeper.logbook import campaign as rules
from timekeeper.logbook.campaign import Campaign, Leg, Repairs, Status
from timekeeper.logbook.database import (
    MISSION_COLUMNS,
    SELECT_ENTRIES,
    connect,
    crew_from_json,
    crew_json,
    default_log_path,
    entry_from_row,
    mission_row,
    transaction,
)
from timekeeper.logbook.form import (
    FIELDS,
    ROLE_FIELDS,
    FormDefaults,
    FormValue,
    FormValues,
    Problems,
    TrackResolver,
    crew_text,
    integer,
    pairs,
    parse_crew,
    parse_date,
    parse_difficulty,
    parse_mission,
    raise_problems,
    record_values,
    resolve_track,
    text,
    with_role_fields,
)
from timekeeper.logbook.record import (
    ZONES,
    Crew,
    CrewMember,
    Difficulty,
    Entry,
    MissionRecord,
    Role,
    Track,
)
from timekeeper.logbook.rows import LogLine, log_lines

if TYPE_CHECKING:
    from timekeeper.logbook.pdf import PrintedLog
    from timekeeper.logbook.stats import LogStats


class ShipLog:
    """An open ship's log database. Use as a context manager, or call close()."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.connection = connection

    @classmethod
    def open(cls, path: str | Path | None = None) -> ShipLog:
        """Open the log at `path` (default: default_log_path()), creating or migrating it."""
        target = Path(path) if path is not None else default_log_path()
        return cls(target, connect(target))

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> ShipLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def batch(self):
        """A context manager: the changes made inside it are stored together, or none of them."""
        return transaction(self.connection)

    # --- missions ----------------------------------------------------------------------------
    def record_mission(self, values: FormValues, *, today: datetime.date | None = None, where: str = "",
                       tracks: TrackResolver = resolve_track, game: str | None = None) -> Entry:
        """Check a mission form and store it; the stored Entry. A `campaign` field (a campaign
        number, or "current" for the one open campaign) records the campaign's waiting mission:
        its crew, track and difficulty are filled in and the campaign moves on. `game` (a game id
        of `timekeeper serve`) is stored with it: a game already recorded raises AlreadyRecorded."""
        with transaction(self.connection):
            if game is not None:
                found = self.game_entry(game)
                if found is not None:
                    raise AlreadyRecorded(game, found.id)
            campaign = None
            if text(values, "campaign"):
                campaign = self._chosen_campaign(text(values, "campaign"), where)
                leg = campaign.pending
                if leg is None:
                    raise_problems(rules.waiting_problems(campaign), where)
                defaults = FormDefaults(campaign.crew, leg.track, leg.common, leg.serious)
            else:
                defaults = FormDefaults()
            record = parse_mission(values, today=today, where=where, defaults=defaults, tracks=tracks)
            if campaign is not None:
                problems = rules.mission_problems(campaign, record)
                if problems:
                    raise_problems(problems, where)
            entry = self._insert(record, campaign)
            if game is not None:
                self.connection.execute("INSERT INTO mission_games (game, mission_id) VALUES (?, ?)", (game, entry.id))
            return entry

    def game_entry(self, game: str) -> Entry | None:
        """The mission recorded from game `game` of `timekeeper serve`; None while it has none."""
        row = self.connection.execute("SELECT mission_id FROM mission_games WHERE game = ?", (game,)).fetchone()
        return self.entry(row[0]) if row else None

    def entry_game(self, entry_id: int) -> str | None:
        """The game of `timekeeper serve` mission `entry_id` was recorded from; None for another one."""
        row = self.connection.execute("SELECT game FROM mission_games WHERE mission_id = ?", (entry_id,)).fetchone()
        return row[0] if row else None

    def add(self, record: MissionRecord) -> Entry:
        """Store an already checked single mission."""
        with transaction(self.connection):
            return self._insert(record, None)

    def edit_mission(self, entry_id: int, values: FormValues, *, today: datetime.date | None = None,
                     tracks: TrackResolver = resolve_track) -> Entry:
        """Change the fields given in `values` of mission `entry_id`; the others keep their values
        ("" clears a field, as in a new mission: no threat name, 0 points). Every check runs again (for a campaign's mission, over the whole campaign, whose status
        follows: a ship now destroyed loses it). The changed Entry; LogEntryError changes nothing."""
        with transaction(self.connection):
            entry = self.entry(entry_id)
            merged: dict[str, FormValue] = dict(record_values(entry.record))
            given = {name: value for name, value in values.items() if name in FIELDS and value is not None}
            for item in text(given, "damage").split(","):  # the zones named change, the others stay
                merged.pop(f"damage_{item.partition('=')[0].strip().casefold()}", None)
            if "track" in given:
                merged.pop("track_file")
                merged.pop("seed")
            if any(field in given for field in ROLE_FIELDS) and "crew" not in given:
                merged["crew"] = _without_roles(text(merged, "crew"), [ROLE_FIELDS[f] for f in ROLE_FIELDS if f in given])
            merged.update(given)
            campaign = self.campaign(entry.campaign_id) if entry.campaign_id is not None else None
            defaults = FormDefaults()
            if campaign is not None:
                leg = campaign.legs[(entry.campaign_mission or 1) - 1]
                defaults = FormDefaults(campaign.crew, leg.track, leg.common, leg.serious)
            where = f"mission #{entry_id}"
            record = parse_mission(merged, today=today, where=where, defaults=defaults, tracks=tracks)
            self.connection.execute(
                f"UPDATE missions SET ({MISSION_COLUMNS}) = ({', '.join('?' * 17)}) WHERE id = ?",
                (*mission_row(record), entry_id))
            if campaign is not None:
                changed = self.campaign(campaign.id)
                problems = rules.campaign_problems(changed)
                if problems:
                    raise_problems(problems, where)
                self._settle_status(changed)
            return self.entry(entry_id)

    def entries(self) -> list[Entry]:
        """Every mission, oldest first (by date, then by recording order)."""
        rows = self.connection.execute(
            SELECT_ENTRIES + "LEFT JOIN campaign_missions c ON c.mission_id = m.id ORDER BY m.played_on, m.id").fetchall()
        return [entry_from_row(row) for row in rows]

    def entry(self, entry_id: int) -> Entry:
        row = self.connection.execute(
            SELECT_ENTRIES + "LEFT JOIN campaign_missions c ON c.mission_id = m.id WHERE m.id = ?", (entry_id,)).fetchone()
        if row is None:
            raise LogEntryError(said("log.problem.no_mission", id=entry_id),
                                {"id": "no such mission"}, path=str(self.path), missing=True)
        return entry_from_row(row)

    def remove(self, entry_id: int) -> Entry:
        """Delete a single mission (a campaign's missions go with `log campaign`, never alone)."""
        with transaction(self.connection):
            entry = self.entry(entry_id)
            if entry.campaign_id is not None:
                raise LogEntryError(said("log.problem.in_campaign", id=entry_id, campaign=entry.campaign_id),
                                    {"id": "in a campaign"})
            self.connection.execute("DELETE FROM missions WHERE id = ?", (entry_id,))
            return entry

    def last_crew(self) -> Crew | None:
        row = self.connection.execute("SELECT crew FROM missions ORDER BY id DESC LIMIT 1").fetchone()
        return crew_from_json(row[0]) if row else None

    # --- campaigns ---------------------------------------------------------------------------
    def start_campaign(self, values: FormValues, *, rng: random.Random | None = None,
                       today: datetime.date | None = None, where: str = "",
                       tracks: TrackResolver = resolve_track) -> Campaign:
        """Start a campaign: fields crew (+ role fields), common, serious, pool (missions or
        double-action), optional track (instead of a random one) and date. Draws mission 1.
        `where` leads every problem's message (a file and line)."""
        problems = Problems(where)
        crew = None
        try:
            crew = parse_crew(text(values, "crew"))
        except ValueError as error:
            problems.add_error("crew", error)
        if crew is not None:
            crew = with_role_fields(crew, values, problems)
        pool = text(values, "pool") or "missions"
        if pool not in rules.POOLS:
            problems.add("pool", f"expected one of {', '.join(rules.POOLS)}, got {pool!r}")
        common, serious = _difficulties(values, problems)
        track = _chosen_track(values, tracks, problems)
        started = (today or datetime.date.today()).isoformat()
        if text(values, "date"):
            try:
                started = parse_date(text(values, "date"), today or datetime.date.today()).isoformat()
            except ValueError as error:
                problems.add_error("date", error)
        problems.raise_if_any()
        assert crew is not None and common is not None and serious is not None
        with transaction(self.connection):
            cursor = self.connection.execute(
                "INSERT INTO campaigns (crew, pool, status, started_on) VALUES (?, ?, 'open', ?)",
                (crew_json(crew), pool, started))
            campaign_id = int(cursor.lastrowid or 0)
            chosen = track or rules.draw_track(pool, set(), rng or random.Random())
            self._insert_leg(campaign_id, 1, chosen, common, serious, Repairs())
            return self.campaign(campaign_id)

    def next_mission(self, values: FormValues, *, rng: random.Random | None = None, where: str = "",
                     tracks: TrackResolver = resolve_track) -> Campaign:
        """Go on with a campaign: fields campaign, repairs after the last mission (`repairs` as
        red=2,squads=1, or repair_red/white/blue/squads), common, serious, optional track. Draws the
        next mission. `where` leads every problem's message (a file and line)."""
        problems = Problems(where)
        parts = ("red", "white", "blue", "squads")
        listed = pairs(values, "repairs", parts, None, problems)
        repairs = Repairs(**{part: _count(values, f"repair_{part}", problems) or listed.get(part, 0) for part in parts})
        common, serious = _difficulties(values, problems)
        track = _chosen_track(values, tracks, problems)
        problems.raise_if_any()
        assert common is not None and serious is not None
        with transaction(self.connection):
            campaign = self._chosen_campaign(text(values, "campaign") or "current", where)
            if not campaign.can_continue:
                reason = (f"mission {campaign.pending.number} ({campaign.pending.track.label()}) is waiting for its "
                          "result (`timekeeper log add --campaign`)" if campaign.pending else
                          f"it is {campaign.status.value}" if campaign.status is not Status.OPEN else
                          f"it has flown all {len(campaign.legs)} missions")
                raise LogEntryError(f"campaign {campaign.id} cannot go on: {reason}", {"campaign": reason}, path=where or None)
            repair_errors = rules.repair_problems(campaign, repairs)
            if repair_errors:
                raise_problems(repair_errors, where)
            used = {leg.track.name for leg in campaign.legs}
            chosen = track or rules.draw_track(campaign.pool, used, rng or random.Random())
            self._insert_leg(campaign.id, len(campaign.legs) + 1, chosen, common, serious, repairs)
            return self.campaign(campaign.id)

    def end_campaign(self, campaign: str | int = "current", *, today: datetime.date | None = None) -> Campaign:
        """The crew stops: a drawn mission not flown yet is dropped, the campaign is scored as it stands."""
        with transaction(self.connection):
            chosen = self._chosen_campaign(str(campaign))
            if chosen.status is not Status.OPEN:
                raise LogEntryError(f"campaign {chosen.id} is already {chosen.status.value}", {"campaign": "not open"})
            self.connection.execute("DELETE FROM campaign_missions WHERE campaign_id = ? AND mission_id IS NULL",
                                    (chosen.id,))
            self._set_status(chosen.id, Status.ENDED, (today or datetime.date.today()).isoformat())
            return self.campaign(chosen.id)

    def campaign(self, campaign_id: int) -> Campaign:
        row = self.connection.execute(
            "SELECT id, crew, pool, status, started_on, ended_on FROM campaigns WHERE id = ?", (campaign_id,)
        ).fetchone()
        if row is None:
            raise LogEntryError(f"no campaign {campaign_id} in the log (see `timekeeper log campaign show`)",
                                {"campaign": "no such campaign"}, path=str(self.path))
        entries = {e.id: e for e in self._campaign_entries(campaign_id)}
        legs = tuple(
            Leg(number, Track(track, track_file, seed), Difficulty(common), Difficulty(serious),
                Repairs(red, white, blue, squads), entries.get(mission_id))
            for number, track, track_file, seed, common, serious, red, white, blue, squads, mission_id
            in self.connection.execute(
                "SELECT number, track, track_file, track_seed, common, serious, repaired_red, repaired_white, "
                "repaired_blue, repaired_squads, mission_id FROM campaign_missions WHERE campaign_id = ? "
                "ORDER BY number", (campaign_id,)))
        return Campaign(row[0], crew_from_json(row[1]), row[2], Status(row[3]), row[4], row[5], legs)

    def campaigns(self) -> list[Campaign]:
        return [self.campaign(row[0]) for row in self.connection.execute("SELECT id FROM campaigns ORDER BY id")]

    def current_campaign(self) -> Campaign | None:
        """The one open campaign; None if there is none; LogEntryError if several are open."""
        open_ids = [row[0] for row in self.connection.execute("SELECT id FROM campaigns WHERE status = 'open'")]
        if len(open_ids) > 1:
            raise LogEntryError(f"campaigns {', '.join(map(str, open_ids))} are open; name one (--campaign N)",
                                {"campaign": "several campaigns are open"})
        return self.campaign(open_ids[0]) if open_ids else None

    def waiting_campaign(self, track: str | None = None) -> Campaign | None:
        """The one open campaign whose drawn mission waits for a result (on `track`, if given, a
        built-in name or file); None if there is none, or several campaigns are open."""
        try:
            campaign = self.current_campaign()
        except LogEntryError:  # several are open: the crew names one
            return None
        if campaign is None or campaign.pending is None:
            return None
        if track and track not in (campaign.pending.track.name, campaign.pending.track.file):
            return None
        return campaign

    def form_defaults(self, track: str | None = None) -> dict[str, str]:
        """Values to fill a "record this mission" form with after playing `track`: today, the last
        crew, the track, and the campaign if its waiting mission is on that track, with the damage
        and disabled squads the ship carries into that mission (the least the crew can enter)."""
        values = {"date": datetime.date.today().isoformat(), "track": track or "", "common": "1", "serious": "1"}
        last = self.last_crew()
        if last is not None:
            values["crew"] = crew_text(last)
        campaign = self.waiting_campaign(track)
        if campaign is not None and campaign.pending is not None:
            leg = campaign.pending
            damage, squads = campaign.carried_into(leg.number)
            values.update(campaign=str(campaign.id), crew=crew_text(campaign.crew), track=leg.track.file or leg.track.name,
                          common=leg.common.value, serious=leg.serious.value, disabled_squads=str(squads),
                          **{f"damage_{zone.value}": str(damage.of(zone)) for zone in ZONES})
        return values

    # --- reading it ---------------------------------------------------------------------------
    def lines(self) -> list[LogLine]:
        """The log as printed and listed: missions in date order, campaigns bracketed with their total."""
        return log_lines(self.entries(), self.campaigns())

    def stats(self) -> LogStats:
        """Per crew, per player and per track: missions, wins, best and mean score; campaigns per crew."""
        from timekeeper.logbook.stats import log_stats

        return log_stats(self.entries(), self.campaigns())

    def write_pdf(self, path: str | Path, title: str | None = None) -> PrintedLog:
        """Print the log to a PDF file at `path` (written atomically), in English."""
        from timekeeper.logbook.pdf import write_log_pdf

        return write_log_pdf(path, self.lines(), title)

    # --- storage -----------------------------------------------------------------------------
    def _chosen_campaign(self, raw: str, where: str = "") -> Campaign:
        if raw == "current":
            found = self.current_campaign()
            if found is None:
                raise LogEntryError("no campaign is open (start one with `timekeeper log campaign start`)",
                                    {"campaign": "none open"}, path=where or None)
            return found
        try:
            return self.campaign(integer(raw, 1))
        except ValueError as error:
            raise LogEntryError(f"campaign: {error}", {"campaign": str(error)}, path=where or None) from None

    def _insert(self, record: MissionRecord, campaign: Campaign | None) -> Entry:
        cursor = self.connection.execute(
            f"INSERT INTO missions ({MISSION_COLUMNS}) VALUES ({', '.join('?' * 17)})", mission_row(record))
        entry_id = int(cursor.lastrowid or 0)
        if campaign is None:
            return Entry(entry_id, record)
        leg = campaign.pending
        assert leg is not None
        self.connection.execute("UPDATE campaign_missions SET mission_id = ? WHERE campaign_id = ? AND number = ?",
                                (entry_id, campaign.id, leg.number))
        if record.ship_destroyed:
            self._set_status(campaign.id, Status.LOST, record.played_on.isoformat())
        elif leg.number >= rules.CAMPAIGN_MISSIONS:
            self._set_status(campaign.id, Status.COMPLETE, record.played_on.isoformat())
        return Entry(entry_id, record, campaign.id, leg.number)

    def _insert_leg(self, campaign_id: int, number: int, track: Track, common: Difficulty, serious: Difficulty,
                    repairs: Repairs) -> None:
        self.connection.execute(
            "INSERT INTO campaign_missions (campaign_id, number, track, track_file, track_seed, common, serious, "
            "repaired_red, repaired_white, repaired_blue, repaired_squads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (campaign_id, number, track.name, track.file, track.seed, common.value, serious.value,
             repairs.red, repairs.white, repairs.blue, repairs.squads))

    def _settle_status(self, campaign: Campaign) -> None:
        """Give a changed campaign the status its missions make (lost, complete, open or ended)."""
        status = rules.status_of(campaign)
        if status is campaign.status:
            return
        flown = campaign.flown
        ended_on = {Status.OPEN: None, Status.ENDED: campaign.ended_on}.get(
            status, flown[-1].record.played_on.isoformat() if flown else None)
        self.connection.execute("UPDATE campaigns SET status = ?, ended_on = ? WHERE id = ?",
                                (status.value, ended_on, campaign.id))

    def _set_status(self, campaign_id: int, status: Status, on: str) -> None:
        self.connection.execute("UPDATE campaigns SET status = ?, ended_on = ? WHERE id = ?",
                                (status.value, on, campaign_id))

    def _campaign_entries(self, campaign_id: int) -> Iterable[Entry]:
        rows = self.connection.execute(
            SELECT_ENTRIES + "JOIN campaign_missions c ON c.mission_id = m.id WHERE c.campaign_id = ?", (campaign_id,)).fetchall()
        return [entry_from_row(row) for row in rows]


def open_log(path: str | Path | None = None) -> ShipLog:
    """The ship's log at `path` (default: the user's, see database.default_log_path)."""
    return ShipLog.open(path)


def _without_roles(crew: str, roles: list[Role]) -> str:
    """The crew field with `roles` taken from whoever held them (before the role fields give them anew)."""
    parsed = parse_crew(crew)
    return crew_text(Crew(tuple(CrewMember(m.name, tuple(r for r in m.roles if r not in roles))
                                for m in parsed.members)))


def _count(values: FormValues, field: str, problems: Problems) -> int:
    raw = text(values, field)
    if not raw:
        return 0
    try:
        return integer(raw, 0)
    except ValueError as error:
        problems.add_error(field, error)
        return 0


def _difficulties(values: FormValues, problems: Problems) -> tuple[Difficulty | None, Difficulty | None]:
    chosen: list[Difficulty | None] = []
    for field in ("common", "serious"):
        try:
            chosen.append(parse_difficulty(text(values, field) or "1"))
        except ValueError as error:
            problems.add_error(field, error)
            chosen.append(None)
    return chosen[0], chosen[1]


def _chosen_track(values: FormValues, tracks: TrackResolver, problems: Problems) -> Track | None:
    """The track named instead of a random draw (the crew drew it themselves), or None."""
    if not text(values, "track"):
        return None
    try:
        seed = integer(text(values, "seed"), 0) if text(values, "seed") else None
        return tracks(text(values, "track"), seed)
    except ValueError as error:
        problems.add_error("track", error)
        return None
