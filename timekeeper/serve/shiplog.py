"""The ship's log in the page: "record this mission" after a game, and the log's pages.

The track of a recorded mission is always the game's own (never a value the page sends), so a
request cannot make the server read a file by naming it.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict

from aiohttp import web

from timekeeper.errors import LogEntryError
from timekeeper.logbook.fields import MISSION_FORM
from timekeeper.logbook.rows import COLUMNS, CampaignLine
from timekeeper.logbook.shiplog import ShipLog
from timekeeper.serve.games import Game
from timekeeper.serve.routes import STATE, attachment, checked, json_error, page, state_of
from timekeeper.serve.schemas import NO_INPUT, GamePath, LogBody, RouteInput, declares

TRACK_FIELDS = ("track", "seed")  # set by the server from the game


def _track(request: web.Request) -> tuple[Game, str]:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    return game, state.library.track_reference(game.track_id)


@declares(RouteInput(path=GamePath))
async def form(request: web.Request) -> web.Response:
    """The fields of the mission form (label, hint, default, choices) and their values for this game."""
    game, track = _track(request)
    path = request.app[STATE].config.log

    def read() -> dict:
        with ShipLog.open(path) as log:
            return log.form_defaults(track)

    values = await asyncio.to_thread(read)
    fields = [{**asdict(f), "choices": list(f.choices)} for f in MISSION_FORM if f.name not in TRACK_FIELDS]
    return web.json_response({"fields": fields, "values": values, "track": game.title})


@declares(RouteInput(path=GamePath, body=LogBody, max_body=48 * 1024))
async def record(request: web.Request) -> web.Response:
    game, track = _track(request)
    sent = checked(request).body.model_dump(exclude_unset=True)
    values = {key: value for key, value in sent.items() if key not in TRACK_FIELDS}
    values["track"] = track
    path = request.app[STATE].config.log

    def store():
        with ShipLog.open(path) as log:
            return log.record_mission(values)

    try:
        entry = await asyncio.to_thread(store)
    except LogEntryError as error:
        return json_error(422, error.message, fields=error.problems)
    return web.json_response({"id": entry.id, "score": entry.score, "won": entry.won,
                              "campaign": entry.campaign_id}, status=201)


@declares(NO_INPUT)
async def listing(request: web.Request) -> web.Response:
    """The log as `timekeeper log list` shows it, and its stats as `log stats` prints them."""
    from timekeeper.logbook.stats import format_stats

    path = request.app[STATE].config.log

    def read() -> dict:
        with ShipLog.open(path) as log:
            lines = [{"campaign": line.summary()} if isinstance(line, CampaignLine)
                     else {"cells": list(line.cells()), "bracket": line.bracket} for line in log.lines()]
            return {"columns": list(COLUMNS), "lines": lines, "stats": format_stats(log.stats())}

    return web.json_response(await asyncio.to_thread(read))


@declares(NO_INPUT)
async def printed(request: web.Request) -> web.Response:
    from timekeeper.logbook.pdf import log_pdf

    path = request.app[STATE].config.log

    def render() -> bytes:
        with ShipLog.open(path) as log:
            return log_pdf(log.lines()).data

    data = await request.app[STATE].slow.run(f"log-pdf-{id(request)}", render)
    return attachment(data, "application/pdf", "ships-log.pdf")


def add_log_routes(app: web.Application) -> None:
    app.router.add_get("/log", page)
    app.router.add_get("/api/games/{game}/log", form)
    app.router.add_post("/api/games/{game}/log", record)
    app.router.add_get("/api/log", listing)
    app.router.add_get("/api/log.pdf", printed)
