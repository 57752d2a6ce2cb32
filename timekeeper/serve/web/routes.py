"""The HTTP and WebSocket interface of `timekeeper serve`: the page, its assets, and a small JSON
API. Every handler names tracks and games by id; none takes a path from the request."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import os
from collections.abc import AsyncGenerator
from functools import partial
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from timekeeper import __version__
from timekeeper.errors import LogDatabaseError, LogEntryError, OutputError, TimekeeperError, Words
from timekeeper.i18n import said
from timekeeper.serve.games.game import READY, GameError, wall_ms
from timekeeper.serve.games.screens import HEARTBEAT_S, WRITER_LIMIT, Screen
from timekeeper.serve.games.speakers import Report
from timekeeper.serve.guards.clients import client_address, public_base
from timekeeper.serve.guards.crews import crew_of
from timekeeper.serve.guards.limits import MESSAGE_BURST, SCREEN_IDLE_S, MessageRate
from timekeeper.serve.quiet import unexpected
from timekeeper.serve.refusal import Refused
from timekeeper.serve.server import ServerState
from timekeeper.serve.sound.cache import SoundUnavailable
from timekeeper.serve.sound.mixes import FORMATS, wav_bytes, wav_size
from timekeeper.serve.sound.mp3stream import CONTENT_TYPE
from timekeeper.serve.tracks.library import FLASHCODE, InvalidTrack, LoadedTrack
from timekeeper.serve.web import speaking
from timekeeper.serve.web.downloads import disposition
from timekeeper.serve.web.ranges import opened_file, send_ranged
from timekeeper.serve.web.schemas import (
    NO_INPUT,
    UPLOAD,
    AssetPath,
    Checked,
    CommandBody,
    FlashcodeBody,
    GamePath,
    GenerateBody,
    Hello,
    JobPath,
    LangPath,
    LangQuery,
    Loose,
    NewGameBody,
    PagePath,
    Ping,
    RenderBody,
    RouteInput,
    SoundPath,
    SoundtrackPath,
    VoiceInstallBody,
    VoiceInstallPath,
    declares,
    screen_message,
)
from timekeeper.serve.web.views import game_json, playback_json, state_message

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"
# The page's scripts: native ES modules, app.js first (index.html loads it; it imports the others).
PAGE_SCRIPTS = ("app.js", "after.js", "api.js", "awake.js", "captions.js", "clock.js", "connection.js", "dom.js",
                "frame.js", "i18n.js", "joining.js", "language.js", "lobby.js", "log.js", "mission.js", "offline.js",
                "setup.js", "silence.js", "speaker.js", "state.js", "sync.js")
ASSETS = {**dict.fromkeys(PAGE_SCRIPTS, "text/javascript"), "style.css": "text/css", "icon.svg": "image/svg+xml",
          "icon-192.png": "image/png", "icon-512.png": "image/png", "manifest.webmanifest": "application/manifest+json",
          "awake.webm": "video/webm", "awake.mp4": "video/mp4"}  # the videos keep a phone awake without Wake Lock
MAX_MESSAGE_BYTES = 4096
REPORT_EVERY_S = 0.25  # how often ended games are looked for
STATE = web.AppKey("state", ServerState)
SOUNDTRACK_TYPES = {"mp3": "audio/mpeg", "ogg": "audio/ogg"}


ERROR_CODES = {400: "invalid_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 408: "timeout",
               409: "conflict", 413: "too_large", 415: "unsupported_charset", 416: "range_not_satisfiable",
               422: "invalid_field", 429: "rate_limited", 500: "internal", 503: "unavailable"}


def json_error(status: int, message: str, *, code: str | None = None, field: str | None = None,
               headers: dict | None = None, said: Words | None = None, **extra: object) -> web.Response:
    """An error as the page reads it: the English message, a stable `code` (docs/serve.md lists
    them), the `field` at fault, if one is, and the message's words (`said`), which the page says
    in its language, when the error has them."""
    body: dict[str, object] = {"error": message, "code": code or ERROR_CODES.get(status, "invalid_request")}
    if field is not None:
        body["field"] = field
    if said is not None:
        body["said"] = said.as_json()
    return web.json_response({**body, **extra}, status=status, headers=headers)


def log_entry_error(status: int, error: LogEntryError, **extra: Any) -> web.Response:
    """A log entry refused: the message, each bad field's problem (`fields`) and their words
    (`said`: which fields to check; `fields_said`: each field's problem) for the page's language."""
    return json_error(status, told(error), said=error.said, fields=error.problems,
                      fields_said={name: words.as_json() for name, words in error.problems_said.items()}, **extra)


def classify(error: TimekeeperError) -> tuple[int, str, str | None]:
    """The HTTP status, code and field at fault of a refusal."""
    if isinstance(error, Refused):
        return error.status, error.code, error.field
    if isinstance(error, InvalidTrack):
        return 422, "invalid_track", None
    if isinstance(error, GameError):
        return 409, error.code, None
    if isinstance(error, LogDatabaseError):
        return 503, "log_unavailable", None
    if isinstance(error, OutputError):  # the state folder (or the render cache) cannot be written
        return 503, "state_unwritable", None
    return (404, "not_found", None) if error.missing else (400, "invalid_request", None)


def told(error: TimekeeperError) -> str:
    """What an answer says of `error`: its message, without its place when that is a file or
    folder of the server (the state folder, a crew's log, the render folder): an answer names what
    the client did, never where the server keeps things (its terminal says that, serve/quiet.py)."""
    if error.path is None:
        return error.message
    if isinstance(error, (OutputError, LogDatabaseError, LogEntryError)) or server_path(error.path):
        return error.detail  # (the place is a file of the server's, or a log in memory)
    return error.message


def server_path(text: str) -> bool:
    """Whether `text` names a place on the server's disk (not a track id or a name the client gave)."""
    return os.path.isabs(text) or text.startswith(("~", "./", "../")) or (os.sep in text and os.path.exists(text))


def error_body(error: TimekeeperError) -> dict:
    _status, code, field = classify(error)
    return {"error": told(error), "code": code, **({"field": field} if field else {}),
            **({"said": error.said.as_json()} if error.said is not None else {})}


CHECKED_INPUT = web.RequestKey("input", Checked)  # set by serve/web/app.py's middleware


def checked(request: web.Request) -> Checked:
    """The request's input as its route's schema checked it (serve/web/app.py's middleware)."""
    return request[CHECKED_INPUT]


def state_of(request: web.Request) -> ServerState:
    return request.app[STATE]


def owners_of(request: web.Request) -> tuple[str, ...]:
    """Whose shares of a queue of slow work the request's job takes: its crew's and its client
    address's (hosted mode; none otherwise)."""
    return state_of(request).owners(crew_of(request), client_address(request))


# --- the page ----------------------------------------------------------------------------------
@declares(RouteInput(path=PagePath, query=Loose))
async def page(request: web.Request) -> web.Response:
    html = (ASSETS_DIR / "index.html").read_text(encoding="utf-8")
    return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-cache"})


@declares(RouteInput(path=AssetPath, query=Loose))
async def asset(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    # by byte range: Safari plays a video only from a server that answers ranges
    with opened_file(ASSETS_DIR / name) as (size, pieces):
        return await send_ranged(request, size, pieces, {"Content-Type": ASSETS[name], "Cache-Control": "no-cache"},
                                 etag=asset_etag(name))


@functools.cache
def asset_etag(name: str) -> str:
    """An asset's ETag: a digest of its bytes (they change only with the server's version)."""
    return '"' + hashlib.sha256((ASSETS_DIR / name).read_bytes()).hexdigest()[:20] + '"'


def page_language(request: web.Request) -> str:
    """The page's language: ?lang= when it names a shipped one, else the browser's Accept-Language."""
    from timekeeper.i18n import UI_LANGUAGES, preferred_language

    asked = checked(request).query.lang or ""
    return asked if asked in UI_LANGUAGES else preferred_language(request.headers.get("Accept-Language"))


@declares(RouteInput(query=LangQuery))
async def info(request: web.Request) -> web.Response:
    from timekeeper.grammar.pace import MAX_PACE, MIN_PACE, NORMAL_PACE
    from timekeeper.grammar.phrases import LANGUAGES, phrase_book
    from timekeeper.serve.tracks.generate_form import generator_form
    from timekeeper.serve.tracks.voice_installs import install_offers
    from timekeeper.voice.names import pack_language_name

    state = state_of(request)
    ui = page_language(request)
    voices = await asyncio.to_thread(state.voices_in, ui)
    return web.json_response({
        "ui_language": ui,
        "version": __version__,
        "languages": [{"code": code, "name": phrase_book(code).name if code in LANGUAGES else pack_language_name(code, ui)}
                      for code in state.languages],
        "voices": voices,
        "install": [] if state.config.public else await asyncio.to_thread(install_offers),  # natural voices one step away
        "music": sorted(state.music_files()),
        "generate": generator_form(ui),
        "pace": {"normal": NORMAL_PACE, "low": MIN_PACE, "high": MAX_PACE},  # the training pace a game may take
        "lan": state.config.lan or state.config.public,  # other devices can reach the server: show the QR code
        "public": state.config.public,  # hosted mode: crews, the crew link (docs/serve.md#hosted-mode)
        "room_idle_s": state.config.room_idle_s if state.config.public else None,  # a game nobody uses then goes
    })


MESSAGES_MAX_AGE_S = 3600  # the words change only with the server's version
SERVER_PREFIXES = ("card.", "generate.", "prompter.", "voice.")  # entries the server (or the terminal) words itself
FORM_PREFIXES = ("generate.label.", "generate.unit.", "generate.help.", "generate.kind.", "generate.official_example")  # but
# the generate form's own words (one source with the command line's help and the server's messages); the page
# itself takes them already worded from /api/info's generate.options


@declares(RouteInput(path=LangPath))
async def ui_messages(request: web.Request) -> web.Response:
    """The page's words in one language (timekeeper/i18n.py; every entry but those the server words
    itself, the generate form's included), English where a catalogue lacks one; UTF-8, not escaped."""
    from timekeeper.i18n import UI_LANGUAGES, messages

    language = request.match_info["lang"]
    if language not in UI_LANGUAGES:
        return json_error(404, f"no messages in language {language[:20]!r} (expected one of {', '.join(UI_LANGUAGES)})",
                          code="not_found")
    words = {key: text for key, text in messages(language).items()
             if not key.startswith(SERVER_PREFIXES) or key.startswith(FORM_PREFIXES)}
    return web.json_response({"language": language, "messages": words}, dumps=partial(json.dumps, ensure_ascii=False),
                             headers={"Cache-Control": f"public, max-age={MESSAGES_MAX_AGE_S}"})


# --- tracks ------------------------------------------------------------------------------------
@declares(NO_INPUT)
async def tracks(request: web.Request) -> web.Response:
    state = state_of(request)
    found = await asyncio.to_thread(state.library_for(crew_of(request)).tracks)
    return web.json_response({"tracks": [track.as_json() for track in found]})


def crew_library(request: web.Request):
    """The library the asking crew adds tracks to (its folder made first in hosted mode)."""
    state = state_of(request)
    crew = crew_of(request)
    state.claim_crew(crew)
    return state.library_for(crew)


def added(loaded: LoadedTrack) -> web.Response:
    return web.json_response({"track": loaded.track.as_json()}, status=201)


@declares(UPLOAD)
async def upload(request: web.Request) -> web.Response:
    body = checked(request).raw
    name = Path(checked(request).query.name).name[:100] or "upload.yaml"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(said("page.problem.not_utf8", name=name), code="invalid_encoding") from None
    loaded = await asyncio.to_thread(crew_library(request).add_yaml, text, name)
    return added(loaded)


@declares(RouteInput(body=FlashcodeBody, max_body=64 * 1024))
async def flashcode(request: web.Request) -> web.Response:
    from timekeeper.scenario.flashcode import DEFAULT_TITLE, parse_flashcode

    data: FlashcodeBody = checked(request).body
    code = data.code.strip()
    if not code:
        raise Refused(said("page.problem.paste_code"), field="code")
    title = data.title or DEFAULT_TITLE
    scenario = parse_flashcode(code, title)
    loaded = await asyncio.to_thread(crew_library(request).add_scenario, scenario, FLASHCODE)
    return added(loaded)


@declares(RouteInput(query=LangQuery, body=GenerateBody, max_body=16 * 1024))
async def generate(request: web.Request) -> web.Response:
    from timekeeper.generate.problems import SettingProblem
    from timekeeper.serve.tracks.generate_form import generate_tracks

    state = state_of(request)
    data = checked(request).body
    voice = await asyncio.to_thread(state.voice_spec, data.voice)
    ui = page_language(request)
    library = crew_library(request)
    try:
        made = await state.slow.run(f"generate-{id(request)}",
                                    lambda: generate_tracks(library, data.model_dump(), voice, ui), owners_of(request))
    except SettingProblem as problem:  # said with the form's labels, in the page's language
        raise Refused(problem.text(ui), field=problem.option) from None
    return web.json_response({"tracks": [loaded.track.as_json() for loaded in made.tracks],
                              "relaxed": list(made.relaxed), "warnings": made.overlaps}, status=201)


# --- games -------------------------------------------------------------------------------------
def base_url(request: web.Request) -> str:
    """Where other devices reach this server: in LAN mode its network address and the port this
    connection came in on (never one a Host header names), else as asked (a loopback Host)."""
    state = state_of(request)
    if state.config.public or state.config.behind_proxy:  # as the browser asked the proxy (https, its host)
        return public_base(request, state.config)
    if state.config.lan_addresses:
        sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
        port = sockname[1] if sockname else state.config.port
        return f"{request.scheme}://{state.config.lan_addresses[0]}:{port}"
    return f"{request.scheme}://{request.host}"


async def describe(request: web.Request, game) -> web.Response:
    state = state_of(request)
    timeline, sound = await state.described_mix(game, client_address(request))
    if game.playback.status == READY:
        game.duration_ms = timeline.duration_ms  # a lobby's game learns its length once its mix is prepared
    described = game_json(game, timeline, wall_ms(), state.join_url(game, base_url(request)))
    return web.json_response({**described, "code": await state.store.code(game.id), "sound": {
        "url": f"/api/games/{game.id}/sound/{sound.key}.mp3", "type": CONTENT_TYPE, "bytes": sound.size}})


@declares(RouteInput(body=NewGameBody, max_body=8 * 1024))
async def new_game(request: web.Request) -> web.Response:
    state = state_of(request)
    data: NewGameBody = checked(request).body
    crew = crew_of(request)
    loaded = await asyncio.to_thread(state.library_for(crew).load, data.track)
    game = await state.new_game(loaded, data.settings.model_dump(), crew=crew, client=client_address(request))
    return await describe(request, game)


GAME = RouteInput(path=GamePath)


@declares(GAME)
async def get_game(request: web.Request) -> web.Response:
    return await describe(request, state_of(request).game(request.match_info["game"]))


@declares(RouteInput(path=GamePath, body=CommandBody, max_body=MAX_MESSAGE_BYTES))
async def command(request: web.Request) -> web.Response:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    await apply(state, game, checked(request).body)
    return web.json_response(playback_json(game, wall_ms()))


async def apply(state: ServerState, game, message: CommandBody, client: str | None = None) -> None:
    """Carry out one command (play, pause, end, undo, seek, claim, release) on the game as the store
    has it now, save it and tell every screen (on every worker). `client` is the screen's id:
    `claim` makes its device one more that plays the sound (a speaker, watched by this worker),
    `release` takes it back."""
    await state.update(game, partial(_carry_out, message=message, client=client, worker=state.store.worker),
                       tell=state_message)


def _carry_out(game, message: CommandBody, client: str | None, worker: str = "") -> bool | None:
    """The command's change to `game`; None when it changes nothing (nothing saved, nobody told)."""
    kind, at_ms = message.type, message.at_ms
    if kind == "play":
        game.play()
    elif kind == "pause":
        game.pause(at_ms)
    elif kind == "end":
        game.end()
    elif kind == "undo":
        game.undo_end()
    elif kind == "seek":
        if at_ms is None:
            raise Refused("seek needs at_ms", field="at_ms")
        game.seek(at_ms)
    elif kind == "claim":
        if client is None:
            raise Refused("say hello with a client id before claiming the sound", field="client")
        # a speaker more is no command: the others' sound does not seek (nothing changes for one that
        # claims again as it reconnects to the same worker; one that moved is watched by its new worker)
        return game.claim(client, message.late_ms, worker) or None
    elif kind == "release":  # this device no longer plays the sound (prompter, quiet, unticked)
        if client is None or not game.release(client):
            return None
        return True
    elif kind == "report":  # (a speaker's report goes to serve/web/speaking.py; over HTTP it changes nothing)
        return None
    game.changes += 1
    return True


async def broadcast(state: ServerState, game, skip=None) -> None:
    await state.store.publish(game.id, state_message(game), skip, game)


async def to_screens(state: ServerState, game_id: str, message: dict, skip=None) -> None:
    """Send `message` to every screen joined to game `game_id` (but `skip`), on every worker."""
    await state.store.publish(game_id, message, skip)


@declares(GAME)
async def screen(request: web.Request) -> web.StreamResponse:
    """A joined screen: the game's state now and on every change; its commands; clock pings.
    Each message is checked (serve/web/schemas.py) and counted (serve/guards/limits.py); every
    message to it goes through its outbox (serve/games/screens.py), never awaited."""
    state = state_of(request)
    game = state.game(request.match_info["game"])
    device = client_address(request)
    refused = state.sockets.join(device)
    if refused is not None:
        return json_error(503, refused, code="too_busy", headers={"Retry-After": "10"})
    store = state.store
    try:
        socket = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_MESSAGE_BYTES, compress=False,  # small messages
                                       writer_limit=WRITER_LIMIT)
        await socket.prepare(request)
        joined = Screen(socket, request.transport)
        try:
            count = store.join(game.id, joined)
            joined.send_json({"type": "state", "playback": playback_json(game, wall_ms()), "screens": count})
            await _follow(state, game, joined, request)
        except ConnectionError:
            pass  # the screen went away
        except Exception as error:  # a bug: the socket is closed (1011), never answered with an HTTP page
            unexpected("answering a screen", error)
            await joined.close(code=WSCloseCode.INTERNAL_ERROR)
        finally:
            store.part(game.id, joined)
            await joined.end()
            await speaking.closed(state, game, joined)
            with contextlib.suppress(TimekeeperError):  # the store is gone: the others learn it when it is back
                await store.leave(game.id, joined)
                await store.tell_presence(game.id)
    finally:
        state.sockets.leave(device)
    return socket


async def _follow(state: ServerState, game, screen: Screen, request: web.Request) -> None:
    """Answer a screen's messages until it leaves, floods (closed: 1008) or stays silent too long;
    every screen is told who is connected when a screen says hello or the sound moves."""
    socket = screen.socket
    rate = MessageRate()
    while not screen.closed:
        try:
            message = await socket.receive(timeout=SCREEN_IDLE_S)
        except asyncio.TimeoutError:
            await screen.close(code=WSCloseCode.GOING_AWAY, message=b"idle")
            return
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            return
        if not rate.allow():
            if rate.refused > MESSAGE_BURST * 5:
                await screen.close(code=WSCloseCode.POLICY_VIOLATION, message=b"too many messages")
                return
            if rate.refused == 1 or rate.refused % MESSAGE_BURST == 0:
                screen.send_json({"type": "error", "error": "too many messages; slow down", "code": "rate_limited"})
            continue
        if message.type != WSMsgType.TEXT:
            continue
        try:
            wait = await _message_allowed(request)
            if wait:  # hosted mode: this client's messages a minute (serve/guards/rates.py)
                screen.send_json({"type": "error", "error": f"too many messages from this address; try again in "
                                  f"{wait} s", "code": "rate_limited", "retry_after_s": wait})
                continue
            data = screen_message(message.data)
            if isinstance(data, Ping):
                screen.send_json({"type": "pong", "t": data.t, "server_ms": wall_ms()})
            elif isinstance(data, Hello):
                if data.client:
                    await state.store.arrive(game.id, data.client, data.kind, screen)
                    await state.store.tell_presence(game.id)
            elif data.type == "report":
                if screen.client is not None and data.at_ms is not None:
                    await speaking.reported(state, game, screen.client, Report(data.at_ms, data.playing, data.read_ms,
                                                                        data.loading))
            else:
                heard = game.heard_speakers()
                client = screen.client
                await apply(state, game, data, client=client)
                if client is not None and data.type == "claim":
                    speaking.claimed(state, game, client, screen)
                elif client is not None and data.type == "release":
                    speaking.released(state, game, client)
                if game.heard_speakers() != heard:
                    await state.store.tell_presence(game.id)
        except TimekeeperError as error:
            screen.send_json({"type": "error", **error_body(error)})


async def _message_allowed(request: web.Request) -> int:
    """0 when this client may send one more message (hosted mode), else the seconds to wait."""
    rates = state_of(request).rates
    return 0 if rates is None else await rates.allow(client_address(request), "messages")


@declares(RouteInput(path=SoundPath))
async def sound_file(request: web.Request) -> web.StreamResponse:
    """The game's sound as the page plays it: an mp3 made once per mix (serve/sound/cache.py),
    served by byte range (serve/web/ranges.py) while it is being made; a range not made yet is sent
    once it is."""
    state = state_of(request)
    game = state.game(request.match_info["game"])
    mix = await state.mix(game, client_address(request))
    sound = state.sounds.start(game.mix_key, mix)
    if checked(request).path.key != sound.key:
        return json_error(404, "this is no longer the game's sound (its settings changed); load the game again")

    async def pieces(first: int, last: int) -> AsyncGenerator[bytes, None]:
        reading = state.sounds.read(sound, mix, first, last)
        started = False
        try:
            async for piece in reading:
                started = True
                yield piece
        except SoundUnavailable as error:
            if started:
                raise
            raise Refused(f"the sound cannot be made now: {error}", status=503, code="sound_unavailable",
                          retry_after_s=5) from None
        finally:
            await reading.aclose()

    return await send_ranged(request, sound.size, pieces, {  # its address names its content
        "Content-Type": CONTENT_TYPE, "Cache-Control": "private, max-age=604800, immutable"}, etag=f'"{sound.key}"')


@declares(GAME)
async def sound(request: web.Request) -> web.StreamResponse:
    """The game's mix as WAV, mixed as it is sent, for any byte range (the same samples the page's
    mp3 is encoded from; tools and tests compare it with `render`)."""
    state = state_of(request)
    if state.config.public:  # 53 MB mixed per request: a hosted server sends only the mp3
        return json_error(404, "a hosted server sends the game's sound as mp3 only: its address is the game's sound.url")
    game = state.game(request.match_info["game"])
    mix = await state.mix(game, client_address(request))

    async def pieces(first: int, last: int) -> AsyncGenerator[bytes, None]:
        chunks = wav_bytes(mix, first, last)
        try:
            while (data := await asyncio.to_thread(next, chunks, None)) is not None:
                yield data
        finally:
            chunks.close()

    return await send_ranged(request, wav_size(mix), pieces, {"Content-Type": "audio/wav", "Cache-Control": "no-store"})


@declares(GAME)
async def card(request: web.Request) -> web.Response:
    from timekeeper.cards.html import html_card

    state = state_of(request)
    game = state.game(request.match_info["game"])
    words = (await state.timeline(game, client_address(request))).phrases  # the voice's printed words (a pack may bring its own)
    fragment = html_card(game.scenario, words, game.settings["players"], bool(game.settings.get("solo")))
    return web.Response(text=fragment, content_type="text/html")


@declares(GAME)
async def card_pdf(request: web.Request) -> web.Response:
    from timekeeper.cards.pdf import cards_pdf

    state = state_of(request)
    game = state.game(request.match_info["game"])
    words = (await state.timeline(game, client_address(request))).phrases
    printed = await state.slow.run(f"card-{id(request)}", lambda: cards_pdf([game.scenario], words, per_page=1),
                                   owners_of(request))
    return attachment(printed.data, "application/pdf", disposition(game.title, ".pdf", game.settings.get("language")))


@declares(GAME)
async def track_yaml(request: web.Request) -> web.Response:
    game = state_of(request).game(request.match_info["game"])
    return attachment(game.yaml_text.encode("utf-8"), "application/yaml",
                      disposition(game.title, ".yaml", game.settings.get("language")))


@declares(GAME)
async def track_code(request: web.Request) -> web.Response:
    from timekeeper.scenario.flashcode import format_flashcode

    game = state_of(request).game(request.match_info["game"])
    code = format_flashcode(game.scenario)
    return web.Response(text=code + "\n", content_type="text/plain")


@declares(GAME)
async def qr(request: web.Request) -> web.Response:
    import io

    import segno

    state = state_of(request)
    game = state.game(request.match_info["game"])
    out = io.BytesIO()
    segno.make(state.join_url(game, base_url(request)), error="m").save(out, kind="svg", scale=6, border=2)
    return web.Response(body=out.getvalue(), content_type="image/svg+xml")


@declares(RouteInput(path=GamePath, body=RenderBody, max_body=1024))
async def start_render(request: web.Request) -> web.Response:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    job = await state.start_render(game, checked(request).body.format, crew_of(request), client_address(request))
    return web.json_response(state.job_json(job), status=202)


@declares(RouteInput(path=JobPath))
async def render_progress(request: web.Request) -> web.Response:
    state = state_of(request)
    job = await state.find_job(request.match_info["job"])
    if job is None:
        return json_error(404, "no such download; start it again")
    return web.json_response(state.job_json(job))


@declares(RouteInput(body=VoiceInstallBody, max_body=1024))
async def start_voice_install(request: web.Request) -> web.Response:
    """Install a language's recommended voice; only the machine that runs the server may ask."""
    if state_of(request).config.public or not _from_this_machine(request):
        return json_error(403, "voices are installed from the machine that runs timekeeper serve")
    job = state_of(request).start_voice_install(checked(request).body.language)
    return web.json_response(job.as_json(), status=202)


@declares(RouteInput(path=VoiceInstallPath))
async def voice_install_progress(request: web.Request) -> web.Response:
    job = state_of(request).voice_installs.get(checked(request).path.language)
    if job is None:
        return json_error(404, "no voice install for this language; start it first")
    return web.json_response(job.as_json())


def _from_this_machine(request: web.Request) -> bool:
    """The request comes from this machine (behind a trusted proxy: the client the proxy names)."""
    import ipaddress

    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:
        return False


@declares(RouteInput(path=SoundtrackPath))
async def soundtrack(request: web.Request) -> web.StreamResponse:
    state = state_of(request)
    game = state.game(request.match_info["game"])
    fmt = request.match_info["format"]
    job = await state.find_job(f"{game.mix_key}-{fmt}")
    not_yet = json_error(409, "the soundtrack is not rendered yet; start the download first")
    if fmt not in FORMATS or job is None or not job.finished or job.error:
        return not_yet
    try:
        with opened_file(job.path) as (size, pieces):
            return await send_ranged(request, size, pieces, {
                "Content-Type": SOUNDTRACK_TYPES[fmt], "Cache-Control": "private, no-cache",
                "Content-Disposition": disposition(game.title, "." + fmt, game.settings.get("language"))},
                etag=f'"{job.id}"')
    except FileNotFoundError:  # (forgotten meanwhile: the oldest soundtracks go)
        return not_yet


def attachment(data: bytes, content_type: str, named: str) -> web.Response:
    """`data` to be saved as a file, `named` by its Content-Disposition (web/downloads.py)."""
    return web.Response(body=data, content_type=content_type, headers={"Content-Disposition": named})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/", page)
    app.router.add_get("/g/{game}", page)
    app.router.add_get("/assets/{name}", asset)
    app.router.add_get("/api/info", info)
    app.router.add_get("/api/messages/{lang}", ui_messages)
    app.router.add_get("/api/tracks", tracks)
    app.router.add_post("/api/tracks/upload", upload)
    app.router.add_post("/api/tracks/flashcode", flashcode)
    app.router.add_post("/api/tracks/generate", generate)
    app.router.add_post("/api/games", new_game)
    app.router.add_get("/api/games/{game}", get_game)
    app.router.add_post("/api/games/{game}/command", command)
    app.router.add_get("/api/games/{game}/ws", screen)
    app.router.add_get("/api/games/{game}/sound.wav", sound)
    app.router.add_get("/api/games/{game}/sound/{key}.mp3", sound_file)
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


__all__ = ["REPORT_EVERY_S", "STATE", "add_routes", "broadcast", "classify", "json_error", "to_screens"]
