"""Hosted mode, `timekeeper serve --public`: one server for many crews behind a reverse proxy
(nginx with TLS, docs/hosting.md).

- Nothing of the machine is offered: no --scenarios or --music folder, no ship's log of its own,
  no voice installs; each crew (serve/guards/crews.py) sees the built-in tracks and its own.
- A room is a game; idle rooms expire (serve/web/rooms.py).
- Per-client limits (serve/guards/rates.py; with --redis counted across the workers, serve/guards/redis_rates.py)
  by the real client address (serve/guards/clients.py): a request beyond one is answered 429 with
  Retry-After, in the JSON shape of every error.
- The render, mix and slow-work queues are shared fairly: one crew may hold only a few places.
"""

from __future__ import annotations

from aiohttp import web

from timekeeper.serve.guards.clients import CLIENT, client_address, give_cookie, is_https, public_base, real_client
from timekeeper.serve.guards.crews import (
    COOKIE,
    COOKIE_MAX_AGE_S,
    CREW,
    CREW_KEY,
    NEW_CREW_KEY,
    crew_id,
    is_key,
    read_crew,
    remember_crew,
)
from timekeeper.serve.guards.rates import WHAT
from timekeeper.serve.server import ServeConfig
from timekeeper.serve.web.rooms import ROOMS, Rooms, keep_rooms, touch
from timekeeper.serve.web.routes import STATE, json_error, state_of
from timekeeper.serve.web.schemas import NO_INPUT, Loose, RouteInput, declares

# what each route counts against, beyond "requests" (every request counts there); a HEAD counts as
# the GET it is answered by
ROUTE_KINDS = {
    ("POST", "/api/lobby"): "rooms",
    ("POST", "/api/games"): "rooms",
    ("POST", "/api/games/{game}/renders"): "renders",
    ("POST", "/api/tracks/upload"): "uploads",
    ("POST", "/api/tracks/flashcode"): "uploads",
    ("POST", "/api/tracks/generate"): "uploads",
    ("GET", "/api/join/{code}"): "joins",
    ("GET", "/j/{code}"): "joins",
    ("GET", "/crew/{key}"): "joins",
    ("POST", "/api/games/{game}/command"): "messages",
    ("POST", "/api/games/{game}/setup"): "messages",
    ("POST", "/api/games/{game}/log"): "messages",
    ("PATCH", "/api/log/{id}"): "messages",
    ("DELETE", "/api/log/{id}"): "messages",
}


def refused(kind: str, wait_s: int) -> web.Response:
    return json_error(429, f"too many {WHAT[kind]} from this address; try again in {wait_s} s",
                      code="rate_limited", headers={"Retry-After": str(wait_s)})


@web.middleware
async def hosted(request: web.Request, handler):
    """The real client address (every mode); in hosted mode the crew, the per-client limits, and
    the room a request names kept alive."""
    state = state_of(request)
    config = state.config
    request[CLIENT] = real_client(request.remote or "", request.headers.get("X-Forwarded-For"),
                                  frozenset(config.trusted_proxies))
    if not config.public or state.rates is None:
        return await handler(request)
    client = client_address(request)
    route = request.match_info.route.resource
    method = "GET" if request.method == "HEAD" else request.method  # (aiohttp answers HEAD through a GET route)
    kind = ROUTE_KINDS.get((method, route.canonical)) if route is not None else None
    for counted in ("requests", kind) if kind else ("requests",):
        wait = await state.rates.allow(client, counted)
        if wait:
            return refused(counted, wait)
    read_crew(request)
    response = await handler(request)
    if response.status < 400:
        touch(request, state)
    remember_crew(request, response, is_https(request, request.app[STATE].config))
    return response


@declares(RouteInput(query=Loose))
async def crew_link(request: web.Request) -> web.Response:
    """/crew/KEY: this browser becomes one of that crew's (its tracks, its ship's log): the log opens."""
    key = request.match_info["key"]
    if not is_key(key):
        raise web.HTTPNotFound()
    response = web.Response(status=302, headers={"Location": "/log", "Cache-Control": "no-store"})
    give_cookie(response, COOKIE, key, max_age=COOKIE_MAX_AGE_S, samesite="Lax",
                secure=is_https(request, request.app[STATE].config))
    request.pop(NEW_CREW_KEY, None)
    request[CREW] = crew_id(key)
    return response


@declares(NO_INPUT)
async def crew_info(request: web.Request) -> web.Response:
    """The crew link of this browser's crew, to bookmark or open on another device."""
    key = request.get(CREW_KEY, "")
    if not key:
        raise web.HTTPNotFound()
    return web.json_response({"link": f"{public_base(request, request.app[STATE].config)}/crew/{key}"},
                             headers={"Cache-Control": "no-store"})


def add_public(app: web.Application, config: ServeConfig) -> None:
    """The routes and tasks of hosted mode (only with --public)."""
    app.router.add_get("/crew/{key}", crew_link)
    app.router.add_get("/api/crew", crew_info)
    app[ROOMS] = Rooms(config.room_idle_s)
    app.cleanup_ctx.append(keep_rooms(app[STATE]))
