"""Export the log as CSV or JSON, and import the CSV back (the same checks as `log add`, all or nothing).

CSV: one row per mission, the form fields of logbook.form as columns, plus id, score and, for a
campaign's missions, the campaign number, the mission's number in it, the campaign's status and
the repairs made before that mission. Importing replays each campaign step by step, so its rules
are checked again; rows identical to missions already in the log are skipped.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import LogEntryError, place
from timekeeper.logbook.campaign import Campaign, Status
from timekeeper.logbook.form import parse_mission, record_values, resolve_track, text
from timekeeper.logbook.record import Entry, MissionRecord, Track
from timekeeper.logbook.shiplog import ShipLog

MAX_CSV_BYTES = 20_000_000  # a log export of about 100,000 missions

CSV_COLUMNS = (
    "id", "date", "crew", "track", "track_file", "seed", "common", "serious", "survived", "destroyed",
    "damage_red", "damage_white", "damage_blue", "knocked_out", "disabled_squads", "visual_confirmation",
    "destroyed_by", "notes", "score", "campaign", "campaign_mission", "campaign_status", "repair_red",
    "repair_white", "repair_blue", "repair_squads",
)
REQUIRED_COLUMNS = ("date", "crew", "track")
JSON_FORMAT = "timekeeper-shiplog"


def export_rows(entries: list[Entry], campaigns: list[Campaign]) -> list[dict[str, str]]:
    by_id = {campaign.id: campaign for campaign in campaigns}
    rows = []
    for entry in entries:
        row = {"id": str(entry.id), **record_values(entry.record),
               "score": "" if entry.score is None else str(entry.score)}
        if entry.campaign_id is not None:
            campaign = by_id[entry.campaign_id]
            leg = next(leg for leg in campaign.legs if leg.entry is not None and leg.entry.id == entry.id)
            row.update(campaign=str(campaign.id), campaign_mission=str(leg.number),
                       campaign_status=campaign.status.value, repair_red=str(leg.repairs.red),
                       repair_white=str(leg.repairs.white), repair_blue=str(leg.repairs.blue),
                       repair_squads=str(leg.repairs.squads))
        rows.append({column: row.get(column, "") for column in CSV_COLUMNS})
    return rows


def export_csv(entries: list[Entry], campaigns: list[Campaign]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(export_rows(entries, campaigns))
    return buffer.getvalue()


def export_json(entries: list[Entry], campaigns: list[Campaign]) -> str:
    """Missions (typed values) and campaigns with their legs, repairs and scores."""
    missions = []
    for row in export_rows(entries, campaigns):
        typed: dict[str, object] = {}
        for column, value in row.items():
            if column.startswith("campaign_status") or column in ("date", "crew", "track", "track_file", "common",
                                                                  "serious", "destroyed_by", "notes"):
                typed[column] = value or None
            else:
                typed[column] = int(value) if value else None
        missions.append(typed)
    return json.dumps({"format": JSON_FORMAT, "version": 1, "missions": missions,
                       "campaigns": [_campaign_json(c) for c in campaigns]}, indent=2, ensure_ascii=False) + "\n"


def _campaign_json(campaign: Campaign) -> dict[str, object]:
    score = campaign.score()
    return {
        "id": campaign.id, "crew": [{"name": m.name, "roles": [r.value for r in m.roles]} for m in campaign.crew.members],
        "pool": campaign.pool, "status": campaign.status.value, "started_on": campaign.started_on,
        "ended_on": campaign.ended_on, "score": None if score is None else score.total,
        "destroyed_by": campaign.destroyed_by,
        "missions": [{"number": leg.number, "track": leg.track.name, "track_file": leg.track.file,
                      "seed": leg.track.seed, "common": leg.common.value, "serious": leg.serious.value,
                      "repairs": {"red": leg.repairs.red, "white": leg.repairs.white, "blue": leg.repairs.blue,
                                  "squads": leg.repairs.squads},
                      "mission_id": None if leg.entry is None else leg.entry.id} for leg in campaign.legs],
    }


@dataclass(frozen=True)
class ImportResult:
    missions: int
    campaigns: int
    skipped: int


def import_csv(log: ShipLog, path: Path) -> ImportResult:
    """Add the missions and campaigns of an exported CSV; all or nothing (LogEntryError names file:line)."""
    from timekeeper.files.userfiles import read_user_file

    raw = read_user_file(path, MAX_CSV_BYTES, what="a ship's log CSV", error=LogEntryError)  # no FIFO, no /dev/zero
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LogEntryError(f"cannot read: {error}", path=str(path)) from error
    reader = csv.DictReader(io.StringIO(content))
    columns = reader.fieldnames or []
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise LogEntryError(f"not a ship's log CSV: missing column(s) {', '.join(missing)} "
                            f"(expected the columns `timekeeper log export` writes)", path=str(path), line=1)
    singles: list[tuple[int, dict[str, str]]] = []
    campaigns: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for row in reader:
        if None in row:
            raise LogEntryError("more values than columns", path=str(path), line=reader.line_num)
        values = {key: value or "" for key, value in row.items()}
        if text(values, "campaign"):
            campaigns.setdefault(text(values, "campaign"), []).append((reader.line_num, values))
        else:
            singles.append((reader.line_num, values))
    known = _fingerprints(log)
    added = skipped = added_campaigns = 0
    with log.batch():
        for line, values in singles:
            record = parse_mission(values, where=place(str(path), line), tracks=_tracks(values))
            if known["single"][_fingerprint(record)] > 0:
                known["single"][_fingerprint(record)] -= 1
                skipped += 1
            else:
                log.add(record)
                added += 1
        for label, rows in campaigns.items():
            campaign = _replay(log, path, label, rows)
            fingerprint = tuple(_fingerprint(entry.record) for entry in campaign.flown)
            if known["campaign"][fingerprint] > 0:
                known["campaign"][fingerprint] -= 1
                log.connection.execute("DELETE FROM campaign_missions WHERE campaign_id = ?", (campaign.id,))
                log.connection.execute("DELETE FROM campaigns WHERE id = ?", (campaign.id,))
                flown = ",".join(str(entry.id) for entry in campaign.flown)  # ids from the database: integers
                log.connection.execute(f"DELETE FROM missions WHERE id IN ({flown})")
                skipped += len(rows)
            else:
                added += len(rows)
                added_campaigns += 1
    return ImportResult(added, added_campaigns, skipped)


def _replay(log: ShipLog, path: Path, label: str, rows: list[tuple[int, dict[str, str]]]) -> Campaign:
    """Start, go on with and record a campaign from its exported rows, checking every step."""
    rows = sorted(rows, key=lambda item: int(n) if (n := text(item[1], "campaign_mission")).isdigit() else 0)
    campaign_id = None
    for number, (line, values) in enumerate(rows, start=1):
        where = place(str(path), line)
        if text(values, "campaign_mission") != str(number):
            raise LogEntryError(f"campaign_mission: campaign {label} has no mission {number} before this one",
                                path=str(path), line=line)
        if campaign_id is None:
            campaign_id = log.start_campaign(values, where=where, tracks=_tracks(values)).id
        else:
            log.next_mission({**values, "campaign": str(campaign_id)}, where=where, tracks=_tracks(values))
        log.record_mission({**values, "campaign": str(campaign_id)}, where=where, tracks=_tracks(values))
    assert campaign_id is not None
    campaign = log.campaign(campaign_id)
    status = text(rows[-1][1], "campaign_status")
    if status == Status.ENDED.value and campaign.status is Status.OPEN:
        campaign = log.end_campaign(campaign_id)
    elif status and status != campaign.status.value:
        raise LogEntryError(f"campaign_status: campaign {label} is {status!r} in the file, "
                            f"but its missions make it {campaign.status.value!r}", path=str(path), line=rows[-1][0])
    return campaign


def _tracks(values: dict[str, str]):
    """Tracks of an exported row: with a track_file the file need not exist here."""
    def resolve(name: str, seed: int | None) -> Track:
        if text(values, "track_file"):
            return Track(name, text(values, "track_file"), seed)
        return resolve_track(name, seed)
    return resolve


def _fingerprint(record: MissionRecord) -> tuple:
    return tuple(sorted(record_values(record).items()))


def _fingerprints(log: ShipLog) -> dict[str, Counter]:
    """How often each single mission and each campaign (its missions in order) is in the log already."""
    singles = Counter(_fingerprint(e.record) for e in log.entries() if e.campaign_id is None)
    campaigns = Counter(tuple(_fingerprint(entry.record) for entry in c.flown) for c in log.campaigns())
    return {"single": singles, "campaign": campaigns}
