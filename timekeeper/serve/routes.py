"""The HTTP and WebSocket interface of `timekeeper serve`: the page, its assets, and a small JSON
API. Every handler names tracks and games by id; none takes a path from the request."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from aiohttp import WSMsgType, web

from timekeeper import __version__
from timekeeper.errors import TimekeeperError
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES
from timekeeper.serve.audio import FORMATS, wav_bytes, wav_size
from timekeeper.serve.games import GameError, wall_ms
from timekeeper.serve.library import InvalidTrack, LoadedTrack
from timekeeper.serve.state import ServerState, SettingsError, download_name
from timekeeper.serve.views import game_json, playback_json

ASSETS_DIR = Path(__file__).resolve().parent / "assets"
ASSETS = {"app.js": "text/javascript", "style.css": "text/css", "icon.svg": "image/svg+xml",
          "awake.webm": "video/webm", "awake.mp4": "video/mp4"}  # the videos keep a phone awake without Wake Lock
MAX_SCREENS = 200  # WebSockets open at once, all games together
MAX_MESSAGE_BYTES = 4096
REPORT_EVERY_S = 0.25  # how often ended games are looked for
STATE = web.AppKey("state", ServerState)
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def json_error(status: int, message: str, **extra: object) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


def state_of(request: web.Request) -> ServerState:
    return request.app[STATE]


async def read_json(request: web.Request) -> dict:
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise SettingsError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise SettingsError("the request body must be a JSON object")
    return data


# --- the page ----------------------------------------------------------------------------------
async def page(request: web.Request) -> web.Response:
    html = (ASSETS_DIR / "index.html").read_text(encoding="utf-8")
    return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-cache"})


async def asset(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    # a file response answers byte ranges: Safari plays a video only from a server that does
    return web.FileResponse(ASSETS_DIR / name, headers={"Content-Type": ASSETS[name], "Cache-Control": "no-cache"})


async def info(request: web.Request) -> web.Response:
    from timekeeper.phrases import LANGUAGES, phrase_book
    from timekeeper.serve.generate import generator_form
    from timekeeper.serve.voiceinstall import install_offers

    state = state_of(request)
    voices = await asyncio.to_thread(lambda: state.voices)
    return web.json_response({
        "version": __version__,
        "languages": [{"code": code, "name": phrase_book(code).name if code in LANGUAGES else f"{code} (voice pack)"}
                      for code in state.languages],
        "voices": voices,
        "install": await asyncio.to_thread(install_offers),  # natural voices one step away
        "music": sorted(state.music_files()),
        "generate": generator_form(),
        "lan": state.config.lan,
    })


# --- tracks ------------------------------------------------------------------------------------
async def tracks(request: web.Request) -> web.Response:
    state = state_of(request)
    found = await asyncio.to_thread(state.library.tracks)
    return web.json_response({"tracks": [track.as_json() for track in found]})


def added(loaded: LoadedTrack) -> web.Response:
    return web.json_response({"track": loaded.track.as_json()}, status=201)


async def upload(request: web.Request) -> web.Response:
    body = await request.read()
    if len(body) > MAX_FILE_BYTES:
        return json_error(413, f"the file is {len(body):,} bytes; scenario files are limited to {MAX_FILE_BYTES:,}")
    name = Path(request.query.get("name", "upload.yaml")).name[:100] or "upload.yaml"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsError("not UTF-8 text; a scenario file is YAML", path=name) from None
    loaded = await asyncio.to_thread(state_of(request).library.add_yaml, text, name)
    return added(loaded)


async def flashcode(request: web.Request) -> web.Response:
    from timekeeper.scenario.flashcode import DEFAULT_TITLE, parse_flashcode

    data = await read_json(request)
    code = str(data.get("code", "")).strip()
    if not code:
        raise SettingsError("paste a FlashPlayerCode such as 010AL1TW,050ID,120AL2TR,...")
    if len(code) > 20_000:
        raise SettingsError("that code is too long for one track")
    title = str(data.get("title") or DEFAULT_TITLE)[:200]
    scenario = parse_flashcode(code, title)
    loaded = await asyncio.to_thread(state_of(request).library.add_scenario, scenario, "FlashPlayerCode")
    return added(loaded)


async def generate(request: web.Request) -> web.Response:
    from timekeeper.serve.generate import generate_tracks

    state = state_of(request)
    data = await read_json(request)
    voice = await asyncio.to_thread(state.voice_spec, str(data.get("voice") or ""))
    made = await asyncio.to_thread(generate_tracks, state.library, data, voice)
    return web.json_response({"tracks": [loaded.track.as_json() for loaded in made.tracks],
                              "relaxed": list(made.relaxed), "warnings": made.overlaps}, status=201)


# --- games -------------------------------------------------------------------------------------
def base_url(request: web.Request) -> str:
    """Where other devices reach this server: in LAN mode its network address, else as asked."""
    state = state_of(request)
    if state.config.lan_addresses:
        return f"{request.scheme}://{state.config.lan_addresses[0]}:{request.url.port}"
    return f"{request.scheme}://{request.host}"


async def describe(request: web.Request, game) -> web.Response:
    state = state_of(request)
    mix = await state.mix(game)
    return web.json_response(game_json(game, mix.timeline, wall_ms(), state.join_url(game, base_url(request))))


async def new_game(request: web.Request) -> web.Response:
    state = state_of(request)
    data = await read_json(request)
    loaded = await asyncio.to_thread(state.library.load, str(data.get("track", "")))
    game = await state.new_game(loaded, data.get("settings") or {})
    return await describe(request, game)


async def get_game(request: web.Request) -> web.Response:
    return await describe(request, state_of(request).game(request.match_info["game"]))


async def command(request: web.Request) -> web.Response:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    await apply(state, game, await read_json(request))
    return web.json_response(playback_json(game, wall_ms()))


async def apply(state: ServerState, game, message: dict, sender=None, client: str | None = None) -> None:
    """Carry out one command (play, pause, end, seek, claim, report) and tell every screen.
    `client` is the screen's id: `claim` makes its device the one that plays the sound, and only
    that device's position reports move the clock."""
    kind = message.get("type")
    at_ms = message.get("at_ms")
    if at_ms is not None and not isinstance(at_ms, (int, float)):
        raise SettingsError("at_ms must be a number of milliseconds")
    if kind == "play":
        game.play()
    elif kind == "pause":
        game.pause(at_ms)
    elif kind == "end":
        game.end()
    elif kind == "seek":
        if at_ms is None:
            raise SettingsError("seek needs at_ms")
        game.seek(at_ms)
    elif kind == "claim":
        if client is None:
            raise SettingsError("say hello with a client id before claiming the sound")
        game.holder = client
    elif kind == "report":
        if client is None or client != game.holder:
            return
        if at_ms is None or not game.report(at_ms, bool(message.get("playing"))):
            return
        state.save(game, soon=True)
        await broadcast(state, game, skip=sender)
        return
    else:
        raise SettingsError(f"unknown command {kind!r} (expected play, pause, end, seek or report)")
    game.changes += 1
    state.save(game)
    await broadcast(state, game)


async def broadcast(state: ServerState, game, skip=None) -> None:
    message = json.dumps({"type": "state", "playback": playback_json(game, wall_ms())})
    for socket in list(state.screens.get(game.id, ())):
        if socket is skip or socket.closed:
            continue
        try:
            await socket.send_str(message)
        except (ConnectionError, RuntimeError):
            state.screens[game.id].discard(socket)


async def screen(request: web.Request) -> web.StreamResponse:
    """A joined screen: the game's state now and on every change; its commands; clock pings."""
    state = state_of(request)
    game = state.game(request.match_info["game"])
    if sum(len(s) for s in state.screens.values()) >= MAX_SCREENS:
        return json_error(503, f"too many screens joined (at most {MAX_SCREENS})")
    socket = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_MESSAGE_BYTES)
    await socket.prepare(request)
    joined = state.screens.setdefault(game.id, set())
    joined.add(socket)
    client: str | None = None
    try:
        await socket.send_json({"type": "state", "playback": playback_json(game, wall_ms()), "screens": len(joined)})
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                data = json.loads(message.data)
                if not isinstance(data, dict):
                    raise ValueError("not an object")
            except ValueError:
                await socket.send_json({"type": "error", "error": "messages are JSON objects"})
                continue
            if data.get("type") == "ping":
                await socket.send_json({"type": "pong", "t": data.get("t"), "server_ms": wall_ms()})
                continue
            if data.get("type") == "hello":
                client = str(data.get("client") or "")[:40] or None
                continue
            try:
                await apply(state, game, data, sender=socket, client=client)
            except TimekeeperError as error:
                await socket.send_json({"type": "error", "error": error.message})
    finally:
        joined.discard(socket)
    return socket


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(first, last) byte of a `Range: bytes=a-b` header; None for the whole file. ValueError when
    the range cannot be served."""
    if not header:
        return None
    match = _RANGE.match(header.strip())
    if match is None:
        raise ValueError(header)
    first_text, last_text = match.groups()
    if not first_text:
        if not last_text:
            raise ValueError(header)
        length = min(int(last_text), size)
        return size - length, size - 1
    first = int(first_text)
    last = min(int(last_text), size - 1) if last_text else size - 1
    if first >= size or last < first:
        raise ValueError(header)
    return first, last


async def sound(request: web.Request) -> web.StreamResponse:
    """The game's soundtrack as WAV, mixed as it is sent; byte ranges let players seek and resume."""
    state = state_of(request)
    game = state.game(request.match_info["game"])
    mix = await state.mix(game)
    size = wav_size(mix)
    try:
        wanted = parse_range(request.headers.get("Range"), size)
    except ValueError:
        return web.Response(status=416, headers={"Content-Range": f"bytes */{size}"})
    first, last = wanted or (0, size - 1)
    headers = {"Content-Type": "audio/wav", "Accept-Ranges": "bytes", "Content-Length": str(last - first + 1),
               "Cache-Control": "no-store"}
    if wanted is not None:
        headers["Content-Range"] = f"bytes {first}-{last}/{size}"
    response = web.StreamResponse(status=206 if wanted is not None else 200, headers=headers)
    await response.prepare(request)
    if request.method == "HEAD":
        return response
    pieces = wav_bytes(mix, first, last)
    try:
        while True:
            data = await asyncio.to_thread(next, pieces, None)
            if data is None:
                break
            await response.write(data)
    except (ConnectionError, asyncio.CancelledError):
        pieces.close()
        raise
    await response.write_eof()
    return response


async def card(request: web.Request) -> web.Response:
    from timekeeper.cards.html import html_card

    state = state_of(request)
    game = state.game(request.match_info["game"])
    words = (await state.mix(game)).timeline.phrases  # the voice's printed words (a pack may bring its own)
    fragment = html_card(game.scenario, words, game.settings["players"])
    return web.Response(text=fragment, content_type="text/html")


async def card_pdf(request: web.Request) -> web.Response:
    from timekeeper.cards.pdf import cards_pdf

    state = state_of(request)
    game = state.game(request.match_info["game"])
    words = (await state.mix(game)).timeline.phrases
    printed = await asyncio.to_thread(cards_pdf, [game.scenario], words, per_page=1)
    return attachment(printed.data, "application/pdf", download_name(game.title, ".pdf"))


async def track_yaml(request: web.Request) -> web.Response:
    game = state_of(request).game(request.match_info["game"])
    return attachment(game.yaml_text.encode("utf-8"), "application/yaml", download_name(game.title, ".yaml"))


async def track_code(request: web.Request) -> web.Response:
    from timekeeper.scenario.flashcode import format_flashcode

    game = state_of(request).game(request.match_info["game"])
    code = format_flashcode(game.scenario)
    return web.Response(text=code + "\n", content_type="text/plain")


async def qr(request: web.Request) -> web.Response:
    import io

    import segno

    state = state_of(request)
    game = state.game(request.match_info["game"])
    out = io.BytesIO()
    segno.make(state.join_url(game, base_url(request)), error="m").save(out, kind="svg", scale=6, border=2)
    return web.Response(body=out.getvalue(), content_type="image/svg+xml")


async def start_render(request: web.Request) -> web.Response:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    data = await read_json(request)
    job = await state.start_render(game, str(data.get("format", "mp3")))
    return web.json_response(job.as_json(), status=202)


async def render_progress(request: web.Request) -> web.Response:
    job = state_of(request).jobs.get(request.match_info["job"])
    if job is None:
        return json_error(404, "no such download; start it again")
    return web.json_response(job.as_json())


async def start_voice_install(request: web.Request) -> web.Response:
    """Install a language's recommended voice; only the machine that runs the server may ask."""
    if not _from_this_machine(request):
        return json_error(403, "voices are installed from the machine that runs timekeeper serve")
    data = await read_json(request)
    job = state_of(request).start_voice_install(str(data.get("language") or ""))
    return web.json_response(job.as_json(), status=202)


async def voice_install_progress(request: web.Request) -> web.Response:
    job = state_of(request).voice_installs.get(request.match_info["language"])
    if job is None:
        return json_error(404, "no voice install for this language; start it first")
    return web.json_response(job.as_json())


def _from_this_machine(request: web.Request) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(request.remote or "").is_loopback
    except ValueError:
        return False


async def soundtrack(request: web.Request) -> web.StreamResponse:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    fmt = request.match_info["format"]
    job = state.jobs.get(f"{game.mix_key}-{fmt}")
    if fmt not in FORMATS or job is None or not job.finished or job.error or not job.path.is_file():
        return json_error(409, "the soundtrack is not rendered yet; start the download first")
    return web.FileResponse(job.path, headers={
        "Content-Disposition": f'attachment; filename="{download_name(game.title, "." + fmt)}"'})


def attachment(data: bytes, content_type: str, filename: str) -> web.Response:
    return web.Response(body=data, content_type=content_type,
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/", page)
    app.router.add_get("/g/{game}", page)
    app.router.add_get("/assets/{name}", asset)
    app.router.add_get("/api/info", info)
    app.router.add_get("/api/tracks", tracks)
    app.router.add_post("/api/tracks/upload", upload)
    app.router.add_post("/api/tracks/flashcode", flashcode)
    app.router.add_post("/api/tracks/generate", generate)
    app.router.add_post("/api/games", new_game)
    app.router.add_get("/api/games/{game}", get_game)
    app.router.add_post("/api/games/{game}/command", command)
    app.router.add_get("/api/games/{game}/ws", screen)
    app.router.add_get("/api/games/{game}/sound.wav", sound)
    app.router.add_get("/api/games/{game}/card.html", card)
    app.router.add_get("/api/games/{game}/card.pdf", card_pdf)
    app.router.add_get("/api/games/{game}/track.yaml", track_yaml)
    app.router.add_get("/api/games/{game}/track.txt", track_code)
    app.router.add_get("/api/games/{game}/qr.svg", qr)
    app.router.add_post("/api/games/{game}/renders", start_render)
    app.router.add_get("/api/renders/{job}", render_progress)
    app.router.add_get("/api/games/{game}/soundtrack.{format}", soundtrack)
    app.router.add_post("/api/voices/install", start_voice_install)
    app.router.add_get("/api/voices/install/{language}", voice_install_progress)


__all__ = ["REPORT_EVERY_S", "STATE", "GameError", "InvalidTrack", "add_routes", "broadcast", "json_error"]
