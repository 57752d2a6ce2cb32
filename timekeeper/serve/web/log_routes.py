"""The ship's log in the page: "record this mission" after a game (once per game), the log's
pages, its statistics, and correcting or removing a mission.

The track of a recorded mission is always the game's own (never a value the page sends), so a
request cannot make the server read a file by naming it. A game is recorded once: the log keeps
the game's id with its mission, a second screen's record is refused (409), and every screen of
the game is told ("logged") when its mission is recorded, changed or removed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import asdict

from aiohttp import web

from timekeeper.errors import AlreadyRecorded, LogEntryError
from timekeeper.i18n import said_json, translate
from timekeeper.logbook.fields import MISSION_FORM
from timekeeper.logbook.form import record_values
from timekeeper.logbook.record import Entry
from timekeeper.logbook.rows import COLUMNS, CampaignLine, MissionLine
from timekeeper.logbook.shiplog import ShipLog
from timekeeper.logbook.stats import GroupStats, LogStats
from timekeeper.logbook.words import track_said
from timekeeper.serve.games.game import Game
from timekeeper.serve.guards.crews import crew_of
from timekeeper.serve.refusal import Refused
from timekeeper.serve.web.downloads import named_disposition, safe_name
from timekeeper.serve.web.routes import (
    STATE,
    attachment,
    checked,
    json_error,
    log_entry_error,
    owners_of,
    page,
    page_language,
    state_of,
    to_screens,
)
from timekeeper.serve.web.schemas import (
    NO_INPUT,
    GamePath,
    LangQuery,
    LogBody,
    LogEditBody,
    LogEntryPath,
    RouteInput,
    declares,
)
from timekeeper.titles import title_json

TRACK_FIELDS = ("track", "seed")  # set by the server from the game (the page's are ignored)
EDITABLE = tuple(f.name for f in MISSION_FORM if f.name not in TRACK_FIELDS)
ENTRY = RouteInput(path=LogEntryPath)
MISSION_BODY_BYTES = 48 * 1024  # a mission's values: 15 fields, notes up to 2,000 characters


def _track(request: web.Request) -> tuple[Game, str]:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    return game, state.library_for(game.crew).track_reference(game.track_id)


def _fields() -> list[dict]:
    return [{**asdict(f), "label": f.label, "hint": f.hint, "choices": list(f.choices)}
            for f in MISSION_FORM if f.name in EDITABLE]


def entry_json(entry: Entry) -> dict:
    """What a screen shows of a recorded mission: its number, score, and whether the ship survived."""
    return {"id": entry.id, "score": entry.score, "won": entry.won, "campaign": entry.campaign_id}


def _log(request: web.Request, crew: str | None = None, *, writing: bool = False) -> ShipLog:
    """The ship's log of `crew` (default: the asking browser's; without --public the machine's).
    In hosted mode a crew that has no log yet reads an empty one, made on disk only to write."""
    state = request.app[STATE]
    crew = crew_of(request) if crew is None else crew
    path = state.log_for(crew)
    if state.config.public and path is not None and not path.exists():
        if not writing:
            return ShipLog.open(":memory:")
        state.claim_crew(crew)
    return ShipLog.open(path)


@declares(RouteInput(path=GamePath))
async def form(request: web.Request) -> web.Response:
    """The fields of the mission form (label, hint, default, choices), their values for this game,
    and the game's mission if it is already recorded."""
    game, track = _track(request)

    def read() -> tuple[dict, Entry | None]:
        with _log(request, game.crew) as log:  # the room's crew's log
            return log.form_defaults(track), log.game_entry(game.id)

    values, recorded = await asyncio.to_thread(read)
    return web.json_response({"fields": _fields(), "values": values, "track": game.title,
                              "track_said": title_json(game.title),
                              "recorded": entry_json(recorded) if recorded else None})


@declares(RouteInput(path=GamePath, body=LogBody, max_body=MISSION_BODY_BYTES))
async def record(request: web.Request) -> web.Response:
    game, track = _track(request)
    sent = checked(request).body.model_dump(exclude_unset=True)
    values = {**{key: value for key, value in sent.items() if key not in TRACK_FIELDS}, "track": track}

    def store() -> tuple[Entry, str]:
        with _log(request, game.crew, writing=True) as log:  # the room's crew's log, whoever records it
            try:
                return log.record_mission(values, game=game.id), ""
            except AlreadyRecorded as error:  # another screen was first
                return log.entry(error.entry_id), error.message

    try:
        entry, refused = await asyncio.to_thread(store)
    except LogEntryError as error:
        return log_entry_error(422, error)
    if refused:
        return json_error(409, refused, recorded=entry_json(entry))
    await to_screens(state_of(request), game.id, {"type": "logged", "recorded": entry_json(entry)})
    return web.json_response(entry_json(entry), status=201)


@declares(ENTRY)
async def mission(request: web.Request) -> web.Response:
    """One mission's values for the edit form, and whether it can be removed (not a campaign's)."""
    entry_id = checked(request).path.id

    def read() -> Entry:
        with _log(request) as log:
            return log.entry(entry_id)

    entry = await asyncio.to_thread(read)
    values = {name: value for name, value in record_values(entry.record).items() if name in EDITABLE}
    return web.json_response({**entry_json(entry), "track": entry.record.track.label(),
                              "track_said": said_json(track_said(entry.record.track)), "fields": _fields(),
                              "values": values, "removable": entry.campaign_id is None})


@declares(RouteInput(path=LogEntryPath, body=LogEditBody, max_body=MISSION_BODY_BYTES))
async def edit(request: web.Request) -> web.Response:
    """Change the values sent (as `timekeeper log edit` does: every check runs again)."""
    values = checked(request).body.model_dump(exclude_unset=True)
    if not values:
        raise Refused(f"send the values to change (fields: {', '.join(EDITABLE)})", code="missing_field")
    return await _change(request, lambda log, entry_id: log.edit_mission(entry_id, values), refused=422)


@declares(ENTRY)
async def remove(request: web.Request) -> web.Response:
    """Remove a single mission (as `timekeeper log remove`); a campaign's missions stay (409)."""
    return await _change(request, lambda log, entry_id: log.remove(entry_id), refused=409, removed=True)


async def _change(request: web.Request, work: Callable[[ShipLog, int], Entry], *, refused: int,
                  removed: bool = False) -> web.Response:
    """Do `work` on the mission the request names, in one transaction; `refused` is the status of
    a change the log does not take. The screens of the mission's game are told."""
    entry_id = checked(request).path.id

    def run() -> tuple[Entry, str | None]:
        with _log(request) as log, log.batch():  # a crew without a log: none of its missions exists
            game = log.entry_game(entry_id)
            return work(log, entry_id), game

    try:
        entry, game = await asyncio.to_thread(run)
    except LogEntryError as error:
        if error.missing:
            raise
        return log_entry_error(refused, error)
    if game is not None:
        await to_screens(state_of(request), game, {"type": "logged", "recorded": None if removed else entry_json(entry)})
    return web.json_response({"removed": entry.id} if removed else entry_json(entry))


def _group(group: GroupStats, words: Mapping[str, object] | None = None) -> dict:
    """A group of the statistics; `words` names a track's group in any language (its `said`)."""
    return {"key": group.key, "said": (words or {}).get(group.key), "missions": group.missions, "wins": group.wins,
            "best": group.best, "mean": None if group.mean is None else round(group.mean, 1), "open": group.open}


def stats_json(stats: LogStats, track_words: Mapping[str, object] | None = None) -> dict:
    """The figures of `timekeeper log stats` as data: the page draws its tables and chart.
    `track_words` maps a track's label to its words as the page says them (said_json)."""
    return {"overall": _group(stats.overall),
            "tables": [{"by": by, "groups": [_group(g, track_words if by == "track" else None) for g in groups]}
                       for by, groups in (
                ("crew", stats.by_crew), ("player", stats.by_player), ("track", stats.by_track),
                ("campaigns", stats.campaigns_by_crew)) if groups],
            "scores": [{"date": day, "crew": crew, "score": score} for day, crew, score in stats.scores]}


def campaign_json(line: CampaignLine) -> dict:
    """A campaign's closing line: `campaign` as `log list` words it, and its parts for the page's words."""
    campaign = line.campaign
    score = campaign.score()
    return {"campaign": line.summary(), "id": campaign.id, "status": campaign.status.value,
            "flown": len(campaign.flown), "destroyed_by": campaign.destroyed_by,
            "score": None if score is None else {
                "threats": score.threat_points, "damage": score.final.damage, "worst_zone": score.final.worst_zone,
                "knocked_out": score.final.knocked_out, "squads": score.final.squads, "visual": score.visual_total,
                "missions": score.missions, "total": score.total}}


def mission_json(line: MissionLine) -> dict:
    """A mission's line of the log: the cells `log list` shows, and for the page its crew (the
    players' names) and notes, each a column of their own."""
    record = line.entry.record
    return {"id": line.entry.id, "cells": list(line.cells()), "bracket": line.bracket,
            "removable": line.entry.campaign_id is None, "destroyed_by": record.destroyed_by,
            "crew": list(record.crew.names), "notes": record.notes}


@declares(NO_INPUT)
async def listing(request: web.Request) -> web.Response:
    """The log as `timekeeper log list` shows it (each mission with its number), and its stats."""

    def read() -> dict:
        with _log(request) as log:
            shown = log.lines()
            tracks = {line.entry.record.track.label(): said_json(track_said(line.entry.record.track))
                      for line in shown if isinstance(line, MissionLine)}
            lines = [campaign_json(line) if isinstance(line, CampaignLine)
                     else {**mission_json(line), "track_said": tracks[line.entry.record.track.label()]} for line in shown]
            return {"columns": list(COLUMNS), "lines": lines, "stats": stats_json(log.stats(), tracks)}

    return web.json_response(await asyncio.to_thread(read))


@declares(RouteInput(query=LangQuery))
async def printed(request: web.Request) -> web.Response:
    """The log as a printed page, in the page's language (`?lang=`, else the browser's)."""
    from timekeeper.logbook.pdf import log_pdf

    language = page_language(request)

    def render() -> bytes:
        with _log(request) as log:
            return log_pdf(log.lines(), language=language).data

    data = await request.app[STATE].slow.run(f"log-pdf-{id(request)}", render, owners_of(request))
    return attachment(data, "application/pdf", named_disposition(safe_name(translate(language, "log.title"), ".pdf")))


def add_log_routes(app: web.Application) -> None:
    app.router.add_get("/log", page)
    app.router.add_get("/api/games/{game}/log", form)
    app.router.add_post("/api/games/{game}/log", record)
    app.router.add_get("/api/log", listing)
    app.router.add_get("/api/log.pdf", printed)
    app.router.add_get(r"/api/log/{id:[1-9][0-9]{0,8}}", mission)
    app.router.add_patch(r"/api/log/{id:[1-9][0-9]{0,8}}", edit)
    app.router.add_delete(r"/api/log/{id:[1-9][0-9]{0,8}}", remove)


