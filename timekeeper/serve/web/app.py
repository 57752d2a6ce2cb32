"""The aiohttp application of `timekeeper serve`: its middleware (errors as JSON, who may ask,
busy connections, each route's declared input read within its limits), routes, and the task that
ends games whose sound has run out. `run` listens behind the connection gate of serve/guards/limits.py,
stops cleanly on Ctrl-C and gracefully on SIGTERM (serve/web/drain.py)."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import re
import signal
import traceback

from aiohttp import web
from aiohttp.web import RequestHandler

from timekeeper.environment import current
from timekeeper.errors import ScenarioError, TimekeeperError
from timekeeper.files import stopping
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES
from timekeeper.serve.games.screens import close_all
from timekeeper.serve.guards.clients import give_cookie
from timekeeper.serve.guards.limits import (
    BODY_TIMEOUT_S,
    HEADER_TIMEOUT_S,
    MAX_CLIENT_CONNECTIONS,
    MAX_CONNECTIONS,
    ConnectionLimits,
    accept_backlog,
    connection_cap,
    raise_open_files_limit,
)
from timekeeper.serve.quiet import install as install_quiet
from timekeeper.serve.quiet import say, unexpected
from timekeeper.serve.refusal import Refused
from timekeeper.serve.server import PUBLIC_CONNECTIONS, ServeConfig, ServerState, screens_allowed
from timekeeper.serve.sound.render_child import stop_children
from timekeeper.serve.tracks.library import InvalidTrack
from timekeeper.serve.web.drain import REQUESTS, Requests, counted, drain
from timekeeper.serve.web.routes import (
    CHECKED_INPUT,
    REPORT_EVERY_S,
    STATE,
    add_routes,
    broadcast,
    classify,
    json_error,
    screen,
    told,
)
from timekeeper.serve.web.schemas import JSON_BODY_BYTES, Checked, RouteInput, check_charset, json_object, validate
from timekeeper.serve.web.speaking import watch_speakers
from timekeeper.voice.levelling import stop_background

TOKEN_COOKIE = "timekeeper_token"
REQUEST_HEADER = "X-Timekeeper"  # every POST, PATCH and DELETE carries it, so other web pages cannot send them
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
LIMITS = web.AppKey("limits", ConnectionLimits)
MAX_LINE_BYTES = 8190  # the request line, and each header
MAX_HEADERS = 100
INTERNAL_ERROR = "internal error; the server's terminal names it"
# Ctrl-C and a closed terminal (SIGHUP) stop the server at once, SIGTERM after a drain (serve/web/drain.py)
STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


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


_HOST = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::(?P<port>[0-9]{1,5}))?$")


@web.middleware
async def guard(request: web.Request, handler):
    """Who may ask: on loopback, only pages of this server (Host check against DNS rebinding; behind
    a proxy, the proxy's server names decide);
    in LAN mode, only holders of the access token (from the link, then a cookie). A Host that is
    not a plain name or address with a port (`127.0.0.1:80@evil.example`) is refused."""
    config: ServeConfig = request.app[STATE].config
    host = _HOST.match(request.host)
    if host is None or int(host.group("port") or 0) > 65535:
        return json_error(400, "the Host header is not a host name or address with a port", code="invalid_host")
    if not config.lan and not config.public and not config.behind_proxy and not _is_loopback(_host_name(request.host)):
        return json_error(403, "timekeeper serves this machine only; start it with --lan for other devices")
    set_cookie = False
    if config.token is not None:
        offered = request.query.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
        if not hmac.compare_digest(offered.encode(), config.token.encode()):
            return web.Response(status=403, content_type="text/html", text=(
                "<!doctype html><title>timekeeper</title><h1>Access code needed</h1>"
                "<p>Open the link, or scan the QR code, that <code>timekeeper serve --lan</code> printed.</p>"))
        set_cookie = "token" in request.query
    gate = request.app[LIMITS].gate(request.transport)
    if gate is not None:
        gate.trusted = True
    origin = request.headers.get("Origin")
    if origin is not None and origin.split("://", 1)[-1] != request.host:
        return json_error(403, "requests from other sites are refused")
    if request.method not in SAFE_METHODS and request.headers.get(REQUEST_HEADER) != "1":
        return json_error(403, f"{request.method} requests need the header {REQUEST_HEADER}: 1 (the page sends it)")
    response = await handler(request)
    if set_cookie and config.token is not None:
        give_cookie(response, TOKEN_COOKIE, config.token, samesite="Strict")
    return response


@web.middleware
async def busy(request: web.Request, handler):
    """Mark the connection busy while its request is handled: busy connections are never the idle
    ones closed to make room (serve/guards/limits.py)."""
    gate = request.app[LIMITS].gate(request.transport)
    if gate is None:
        return await handler(request)
    gate.busy += 1
    try:
        return await handler(request)
    finally:
        gate.busy -= 1


@web.middleware
async def check_input(request: web.Request, handler):
    """The route's declared input (serve/web/schemas.py), checked before its handler runs."""
    spec = getattr(request.match_info.handler, "route_input", None)
    if spec is not None:
        request[CHECKED_INPUT] = await read_input(request, spec)
    return await handler(request)


async def read_input(request: web.Request, spec: RouteInput) -> Checked:
    path = None
    if spec.path is not None:
        try:
            path = validate(spec.path, dict(request.match_info), "the address")
        except Refused as error:
            raise Refused(f"no such page: {request.path[:80]}", status=404, code="not_found", field=error.field) from None
    if len(request.query) != len(set(request.query.keys())):
        raise Refused("a query parameter is given twice", code="invalid_query")
    query = validate(spec.query, dict(request.query), "the query")
    body, raw = None, b""
    if spec.body is not None or spec.raw:
        limit = spec.max_body or JSON_BODY_BYTES
        check_charset(request.charset)
        if request.content_length is not None and request.content_length > limit:
            raise too_large(request.content_length, limit)
        try:
            raw = await asyncio.wait_for(_read_bounded(request, limit), BODY_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise Refused(f"the request body did not arrive within {BODY_TIMEOUT_S:.0f} s", status=408,
                          code="timeout") from None
        if spec.body is not None:
            body = json_object(raw, spec.body)
    return Checked(path, query, body, raw)


def too_large(size: int, limit: int) -> Refused:
    return Refused(f"the request body is {size:,} bytes; it is limited to {limit:,} here", status=413,
                   code="too_large")


async def _read_bounded(request: web.Request, limit: int) -> bytes:
    data = bytearray()
    while True:
        chunk = await request.content.read(64 * 1024)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise too_large(len(data), limit)


@web.middleware
async def current_game(request: web.Request, handler):
    """The game a request names is read from the store before its handler runs (with several
    workers another one may have changed it); handlers then take it with `state.game(id)`."""
    game_id = request.match_info.get("game")
    if game_id is not None:
        store = request.app[STATE].store
        if not (request.match_info.handler is screen and store.follows(game_id)):  # (a screen joining a game
            await store.refresh(game_id)  # this worker's screens follow: pub/sub keeps it current)
    return await handler(request)


@web.middleware
async def errors(request: web.Request, handler):
    """Every failure as one clear JSON message (or a short page); never a traceback."""
    try:
        return await handler(request)
    except TimekeeperError as error:
        status, code, field = classify(error)
        if status >= 500 and told(error) != error.message:  # the operator's to know where: one line
            say(f"{code}: {error.message}", kind=f"unavailable:{code}")
        extra: dict = {}
        if isinstance(error, InvalidTrack):
            extra["problems"] = [{"line": p.line, "column": p.column, "message": p.message, "where": str(p),
                                  "said": p.said.as_json() if p.said is not None else None} for p in error.problems]
        elif isinstance(error, ScenarioError) and len(error.lines) > 1:  # a pasted code's problems, each in words
            extra["problems"] = [{"line": 0, "column": 0, "message": line, "where": line,
                                  "said": words.as_json() if words is not None else None}
                                 for line, words in zip(error.lines, error.lines_said)]
        retry = getattr(error, "retry_after_s", None)
        return json_error(status, told(error), code=code, field=field, said=error.said,
                          headers={"Retry-After": str(retry)} if retry else None, **extra)
    except web.HTTPException as error:
        if error.status >= 400 and request.path.startswith("/api/"):
            return json_error(error.status, error.reason)
        if error.status == 404:
            return web.Response(status=404, content_type="text/html",
                                text="<!doctype html><title>Not found</title><h1>Not found</h1><p><a href='/'>Back</a></p>")
        raise
    except ConnectionError:  # the client has gone: nobody to answer, nothing to report
        return web.Response(status=400)
    except Exception as error:  # a bug: one line to the page, the traceback only with --debug
        if request.app[STATE].config.debug:
            traceback.print_exc()
        say(f"internal error on {request.method} {request.path[:80]}: {type(error).__name__}",
            kind=f"internal:{request.method}:{type(error).__name__}")
        return json_error(500, INTERNAL_ERROR, code="internal")


def _plain_refusal(protocol, request, status: int = 500, exc: BaseException | None = None,
                   message: str | None = None) -> web.StreamResponse:
    """aiohttp's answer to a request it could not parse (or a failure outside the middleware): a
    JSON error as every other, one quiet line on the terminal, the connection closed."""
    if request.writer.output_size > 0:
        raise ConnectionError("the answer had begun")
    reason = str(getattr(exc, "message", "") or message or "").split(":", 1)[0].strip()[:80] or "malformed"
    if status == 500:
        say(f"internal error outside a handler ({type(exc).__name__})", kind=f"internal-outside:{type(exc).__name__}")
        response = json_error(500, INTERNAL_ERROR, code="internal")
    else:
        say(f"refused a malformed request from {request.remote}: {reason}", kind="malformed")
        response = json_error(status, f"the request is not valid HTTP ({reason})", code="invalid_http")
    response.force_close()
    return response


class _JsonErrors(RequestHandler):
    """aiohttp's protocol, answering what it cannot parse by _plain_refusal (no new fields)."""

    __slots__ = ()

    def handle_error(self, request, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        return _plain_refusal(self, request, status, exc, message)


def _answering_in_json(make):
    """aiohttp's protocol factory `make` (web.Server), its protocols made _JsonErrors: the
    server builds a RequestHandler with its own settings, whose class only is swapped."""

    def protocol():
        made = make()
        made.__class__ = _JsonErrors
        return made

    return protocol


async def _watch_endings(app: web.Application):
    """Tell the screens of every game whose sound has run out that the mission is over (each told
    through its outbox: the loop never waits for a screen); watch the speakers of this worker's
    games (serve/web/speaking.py)."""
    state = app[STATE]

    async def loop() -> None:
        while True:
            await asyncio.sleep(REPORT_EVERY_S)
            try:
                for game in await state.settle_all():
                    await broadcast(state, game)
                await watch_speakers(state, REPORT_EVERY_S * 1000)
            except TimekeeperError:
                pass  # the store is unreachable (said on the terminal): tried again shortly
            except Exception as error:  # a bug: named in one line; the next round goes on
                unexpected("ending games whose sound has run out", error)

    await state.store.start()
    state.sounds.warm_up()
    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await state.store.close()
    for queue in (state.rendering, state.mixing, state.slow):
        queue.shutdown()
    stop_background()  # the phrases a mix is levelling in the background: the process ends after the current one
    stop_children()
    state.sounds.shutdown()


async def _close_screens(app: web.Application) -> None:
    """The server stops: every screen is sent a close (1001, going away) at once, within a second
    (the page joins again, to another worker if there is one)."""
    state = app[STATE]
    state.closing = True  # the screens' sockets close now: their speakers are not lost
    await close_all([screen for screens in list(state.screens.values()) for screen in screens],
                    message=b"the server stops")


def make_app(config: ServeConfig) -> web.Application:
    from timekeeper.serve.web.hosted import add_public, hosted

    app = web.Application(middlewares=[counted, errors, guard, hosted, busy, check_input, current_game],
                          client_max_size=MAX_FILE_BYTES + 64 * 1024)
    app[STATE] = ServerState(config)
    app[REQUESTS] = Requests()
    # every WebSocket holds a connection; behind a proxy every connection comes from it (exempt from
    # the per-client limit: the proxy limits each client, deploy/nginx.conf)
    most = PUBLIC_CONNECTIONS if config.public else max(MAX_CONNECTIONS, screens_allowed(config) + MAX_CLIENT_CONNECTIONS)
    app[LIMITS] = ConnectionLimits(connection_cap(raise_open_files_limit(), most),
                                   exempt=frozenset(config.trusted_proxies))
    app.cleanup_ctx.append(_watch_endings)
    app.on_shutdown.append(_close_screens)
    if config.public:
        add_public(app, config)
    add_routes(app)
    from timekeeper.serve.web.log_routes import add_log_routes

    add_log_routes(app)
    from timekeeper.serve.web.lobby_routes import add_lobby_routes

    add_lobby_routes(app)
    from timekeeper.serve.web.offline import add_offline_routes

    add_offline_routes(app)
    return app


async def _serve(config: ServeConfig, ready) -> None:
    """Listen through the connection gate of serve/guards/limits.py, aiohttp's parser bounded (request
    line and each header 8 KB, 100 headers; a request must arrive within HEADER_TIMEOUT_S)."""
    loop = asyncio.get_running_loop()
    install_quiet(loop, config.debug)
    app = make_app(config)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0,
                           keepalive_timeout=HEADER_TIMEOUT_S, max_line_size=MAX_LINE_BYTES,
                           max_field_size=MAX_LINE_BYTES, max_headers=MAX_HEADERS, lingering_time=2.0,
                           auto_decompress=False)  # a compressed body is not inflated (no gzip bomb)
    await runner.setup()
    assert runner.server is not None
    limits = app[LIMITS]
    server = await loop.create_server(limits.factory(_answering_in_json(runner.server)), config.host, config.port, reuse_address=True,
                                      backlog=accept_backlog(raise_open_files_limit(), limits.total))
    signalled: list[int] = []  # the signal that stops the server, handled in the event loop (not where it lands)
    asked_to_stop = asyncio.Event()

    def stop_on(signum: int) -> None:
        if not signalled and signum != signal.SIGTERM:  # (a drain serves on: it is no stop of the command)
            stopping.note(signum)  # background work and engines stop at once (files/stopping.py)
        signalled.append(signum)
        asked_to_stop.set()

    before = {signum: signal.getsignal(signum) for signum in STOPPING_SIGNALS}  # (the command line's)
    for signum in STOPPING_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # (not on Windows)
            loop.add_signal_handler(signum, stop_on, signum)
    try:
        ready(server.sockets[0].getsockname()[1])
        await asked_to_stop.wait()
        app[STATE].closing = True  # its screens move to the other workers, which watch their speakers from now on
        server.close()  # new connections go to the other workers
        if signalled[0] == signal.SIGTERM:
            await drain(app, config.drain_s, limits)
    finally:
        app[STATE].closing = True  # the screens' sockets close now: their speakers are not lost
        server.close()
        await runner.cleanup()  # every screen closed (1001), every child ended, no temporary file left
        for signum, handler in before.items():  # (after the clean-up: a second Ctrl-C cannot cut it short)
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, TypeError):
                loop.remove_signal_handler(signum)
                signal.signal(signum, handler)
    if signalled and signalled[0] != signal.SIGTERM:
        raise stopping.stop_error(signalled[0])  # Ctrl-C: 130; the terminal closed (SIGHUP): 129


def _event_loop_runner():
    """uvloop's event loop where it is installed (Linux and macOS): asyncio's API with its sockets
    and TLS in C, about a quarter less CPU per joined screen (benchmarks/bench_scaleout.py);
    asyncio's own loop elsewhere (Windows)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


def run(config: ServeConfig, ready) -> None:
    """Serve until Ctrl-C (KeyboardInterrupt reaches the caller, which exits 130), SIGTERM (the
    screens are moved to the other workers first, serve/web/drain.py; then it returns: exit 0) or
    SIGHUP (the terminal closed: Terminated, 129), each ending with the same clean stop: screens
    closed (1001), children ended, temporary files removed. `ready(port)` is called once the socket
    listens."""
    try:
        _event_loop_runner()(_serve(config, ready))
    except OSError as error:
        from timekeeper.errors import TimekeeperError as Failure

        raise Failure(f"cannot listen on {config.host}:{config.port}: {error.strerror or error}"
                      " (another program uses the port? try --port 0 for a free one)") from error
    finally:
        current().streams.stdout.flush()
