"""The aiohttp application of `timekeeper serve`: guards, error pages, routes, and the task that
ends games whose sound has run out. `run` starts it and stops cleanly on Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import sys
import traceback

from aiohttp import web

from timekeeper.errors import LogDatabaseError, TimekeeperError
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES
from timekeeper.serve.games import GameError
from timekeeper.serve.library import InvalidTrack
from timekeeper.serve.routes import (
    REPORT_EVERY_S,
    STATE,
    add_routes,
    broadcast,
    json_error,
)
from timekeeper.serve.state import ServeConfig, ServerState

TOKEN_COOKIE = "timekeeper_token"
REQUEST_HEADER = "X-Timekeeper"  # every POST, PATCH and DELETE carries it, so other web pages cannot send them
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_loopback(name: str) -> bool:
    if name in LOCAL_HOSTS:
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    return False


@web.middleware
async def guard(request: web.Request, handler):
    """Who may ask: on loopback, only pages of this server (Host check against DNS rebinding);
    in LAN mode, only holders of the access token (from the link, then a cookie)."""
    config: ServeConfig = request.app[STATE].config
    if not config.lan and not _is_loopback(_host_name(request.host)):
        return json_error(403, "timekeeper serves this machine only; start it with --lan for other devices")
    set_cookie = False
    if config.token is not None:
        offered = request.query.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
        if not hmac.compare_digest(offered.encode(), config.token.encode()):
            return web.Response(status=403, content_type="text/html", text=(
                "<!doctype html><title>timekeeper</title><h1>Access code needed</h1>"
                "<p>Open the link, or scan the QR code, that <code>timekeeper serve --lan</code> printed.</p>"))
        set_cookie = "token" in request.query
    origin = request.headers.get("Origin")
    if origin is not None and origin.split("://", 1)[-1] != request.host:
        return json_error(403, "requests from other sites are refused")
    if request.method not in SAFE_METHODS and request.headers.get(REQUEST_HEADER) != "1":
        return json_error(403, f"{request.method} requests need the header {REQUEST_HEADER}: 1 (the page sends it)")
    response = await handler(request)
    if set_cookie and config.token is not None and not response.prepared:
        response.set_cookie(TOKEN_COOKIE, config.token, httponly=True, samesite="Strict")
    return response


@web.middleware
async def errors(request: web.Request, handler):
    """Every failure as one clear JSON message (or a short page); never a traceback."""
    try:
        return await handler(request)
    except InvalidTrack as error:
        problems = [{"line": p.line, "column": p.column, "message": p.message, "where": str(p)} for p in error.problems]
        return json_error(422, error.message, problems=problems)
    except GameError as error:
        return json_error(409, error.message)
    except LogDatabaseError as error:
        return json_error(503, error.message)
    except TimekeeperError as error:
        status = 404 if error.missing else 400
        return json_error(status, error.message)
    except web.HTTPException as error:
        if error.status >= 400 and request.path.startswith("/api/"):
            return json_error(error.status, error.reason)
        if error.status == 404:
            return web.Response(status=404, content_type="text/html",
                                text="<!doctype html><title>Not found</title><h1>Not found</h1><p><a href='/'>Back</a></p>")
        raise
    except (ConnectionError, asyncio.CancelledError):
        raise
    except Exception as error:  # a bug: one line to the page, the traceback only with --debug
        if request.app[STATE].config.debug:
            traceback.print_exc()
        return json_error(500, f"internal error: {type(error).__name__}: {error}")


async def _watch_endings(app: web.Application):
    """Tell the screens of every game whose sound has run out that the mission is over."""
    state = app[STATE]

    async def loop() -> None:
        while True:
            await asyncio.sleep(REPORT_EVERY_S)
            for game in state.settle_all():
                await broadcast(state, game)

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for sockets in list(state.screens.values()):
        for socket in list(sockets):
            await socket.close()


def make_app(config: ServeConfig) -> web.Application:
    app = web.Application(middlewares=[errors, guard], client_max_size=MAX_FILE_BYTES + 64 * 1024)
    app[STATE] = ServerState(config)
    app.cleanup_ctx.append(_watch_endings)
    add_routes(app)
    from timekeeper.serve.shiplog import add_log_routes

    add_log_routes(app)
    return app


async def _serve(config: ServeConfig, ready) -> None:
    runner = web.AppRunner(make_app(config), access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port, reuse_address=True)
    try:
        await site.start()
        port = runner.addresses[0][1]
        ready(port)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def run(config: ServeConfig, ready) -> None:
    """Serve until Ctrl-C (KeyboardInterrupt reaches the caller, which exits 130). `ready(port)` is
    called once the socket listens."""
    try:
        asyncio.run(_serve(config, ready))
    except OSError as error:
        from timekeeper.errors import TimekeeperError as Failure

        raise Failure(f"cannot listen on {config.host}:{config.port}: {error.strerror or error}"
                      " (another program uses the port? try --port 0 for a free one)") from error
    finally:
        sys.stdout.flush()
