"""The lobby's HTTP side: a game made while the crew sets up (its mix prepared in the background,
so Play starts the sound at once), set-up changes passed to every joined screen, and short codes."""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial
from urllib.parse import quote

from aiohttp import web

from timekeeper.errors import TimekeeperError
from timekeeper.i18n import said
from timekeeper.serve.games.game import READY, Game, GameError
from timekeeper.serve.games.lobby import is_code, normal_code
from timekeeper.serve.guards.clients import client_address
from timekeeper.serve.guards.crews import crew_of
from timekeeper.serve.refusal import Refused
from timekeeper.serve.server import ServerState
from timekeeper.serve.tracks.library import LoadedTrack
from timekeeper.serve.web.routes import base_url, checked, state_of, to_screens
from timekeeper.serve.web.schemas import CodePath, GamePath, LobbyBody, RouteInput, declares
from timekeeper.titles import title_json

_PREPARING: set[asyncio.Task] = set()  # background preparations (kept so they are not collected)


async def _prepare(state: ServerState, game: Game, client: str) -> None:
    """Prepare the game's mix now (phrases synthesized, clips loaded) so Play need not wait."""
    key = game.mix_key
    with contextlib.suppress(TimekeeperError, OSError, ValueError):
        mix = await state.mix(game, client, ahead=True)
        if game.mix_key == key and game.playback.status == READY and game.duration_ms != mix.duration_ms:
            await state.update(game, partial(_learn_length, key=key, duration_ms=mix.duration_ms))


def _learn_length(game: Game, key: str, duration_ms: int) -> bool | None:
    """A change: a ready game learns its length once its mix is prepared (unless its setup changed)."""
    if game.mix_key != key or game.playback.status != READY or game.duration_ms == duration_ms:
        return None
    game.duration_ms = duration_ms
    return True


def prepare_soon(state: ServerState, game: Game, client: str) -> None:
    """Prepare the game's mix in the background (in hosted mode on `client`'s and its crew's share)."""
    task = asyncio.get_running_loop().create_task(_prepare(state, game, client))
    _PREPARING.add(task)
    task.add_done_callback(_PREPARING.discard)


async def lobby_json(request: web.Request, game: Game) -> dict:
    state = state_of(request)
    return {"id": game.id, "code": await state.store.code(game.id), "title": game.title,
            "title_said": title_json(game.title), "track_id": game.track_id,
            "mode": game.mode, "status": game.playback.status, "join_url": state.join_url(game, base_url(request))}


async def _chosen(request: web.Request, crew: str) -> tuple[LoadedTrack, LobbyBody]:
    """The track and settings sent, the track from `crew`'s tracks (hosted mode; the server's otherwise)."""
    data: LobbyBody = checked(request).body
    loaded = await asyncio.to_thread(state_of(request).library_for(crew).load, data.track)
    return loaded, data


@declares(RouteInput(body=LobbyBody, max_body=8 * 1024))
async def open_lobby(request: web.Request) -> web.Response:
    """A new game in the ready state for the track and settings the set-up screen shows."""
    state = state_of(request)
    loaded, data = await _chosen(request, crew_of(request))
    game = await state.new_game(loaded, data.settings.model_dump(), mode=data.mode, mixed=False, crew=crew_of(request))
    prepare_soon(state, game, client_address(request))
    if data.after is not None:  # Replay or a new mission: the last game's screens come along
        await to_screens(state, data.after, {"type": "next", "id": game.id})
    return web.json_response(await lobby_json(request, game), status=201)


@declares(RouteInput(path=GamePath, body=LobbyBody, max_body=8 * 1024))
async def change_setup(request: web.Request) -> web.Response:
    """The crew changed the track or a setting before Play: the game follows, every screen is told."""
    from timekeeper.serve.web.routes import broadcast

    state = state_of(request)
    game = state.game(request.match_info["game"])
    loaded, data = await _chosen(request, game.crew)  # the room's crew's tracks, whoever sends the change
    settings, mode = state.mix_settings(data.settings.model_dump(), loaded.scenario.language), data.mode
    if game.settled().status != READY:
        raise GameError(said("error.started"))
    game.track_id, game.title, game.yaml_text, game.settings, game.mode = (
        loaded.track.id, loaded.track.title, loaded.yaml_text, settings, mode)
    game.duration_ms = 0
    game.__post_init__()  # the scenario and length of the new track
    game.changes += 1
    await state.save(game)
    prepare_soon(state, game, client_address(request))
    await broadcast(state, game)
    await to_screens(state, game.id, {"type": "setup"})
    return web.json_response(await lobby_json(request, game))


async def _game_id(request: web.Request) -> str | None:
    """The game the typed code names (None: none; a code the lobby cannot have given is not looked up)."""
    code = normal_code(request.match_info["code"])
    return await state_of(request).store.game_of(code) if is_code(code) else None


async def _game_of_code(request: web.Request) -> str:
    game_id = await _game_id(request)
    if game_id is None:
        raise Refused(said("error.unknown_code_named", code=repr(normal_code(request.match_info["code"]))),
                      status=404, code="unknown_code", field="code")
    return game_id


CODE = RouteInput(path=CodePath)


@declares(CODE)
async def join_code(request: web.Request) -> web.Response:
    return web.json_response({"id": await _game_of_code(request)})


@declares(CODE)
async def join_page(request: web.Request) -> web.Response:
    """/j/CODE, the short link to type: the game's page (an unknown code: the start page says why)."""
    game_id = await _game_id(request)
    if game_id is None:
        raise web.HTTPFound(f"/?join={quote(normal_code(request.match_info['code']))}")
    raise web.HTTPFound(f"/g/{game_id}")


def add_lobby_routes(app: web.Application) -> None:
    app.router.add_post("/api/lobby", open_lobby)
    app.router.add_post("/api/games/{game}/setup", change_setup)
    app.router.add_get("/api/join/{code}", join_code)
    app.router.add_get("/j/{code}", join_page)
