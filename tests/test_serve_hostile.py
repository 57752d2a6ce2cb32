"""`timekeeper serve` against a hostile device on the network: a real server process on loopback
with the access code on (as `--lan`), spoken to over raw sockets (malformed HTTP, slow and idle
clients), HTTP (bad input on every route) and WebSockets (bad messages, floods, too many sockets).

Every case is bounded in count and time. Each checks the status, the JSON error's `code` and
`field`, and the server's terminal is checked at the end: no traceback, a few quiet lines at most.
Some limits are lowered in the server process (as the upload limit is in test_serve_api.py) so
that a timeout or a full queue is reached in a second, not in a minute.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import socket
import subprocess
import time

import pytest
from realparts import not_here
from running import AT_ONCE_S
from serving import LAN_ON_LOOPBACK, start_server

TINY = "title: Tiny\nphase_ends: ['1:00', '2:00', '3:00']\nevents:\n  - {at: '0:30', type: threat, t: 1, zone: red}\n"
LOWER_LIMITS = (
    "import timekeeper.serve.guards.limits as limits, timekeeper.serve.guards.work_queues as work\n"
    "limits.HEADER_TIMEOUT_S = 1.5\nlimits.BODY_TIMEOUT_S = 1.5\nlimits.MAX_CLIENT_SCREENS = 6\nlimits.SCREEN_IDLE_S = 3.0\n"
    "work.RENDERS_WAITING = 1\nwork.SLOW_THREADS = 1\nwork.SLOW_WAITING = 1\n"
    "import timekeeper.serve.tracks.library as library\nlibrary.MAX_ADDED_TRACKS = 5\n"
)
IDLE_SOCKETS = 300
SERVER_PLACES = ("/tmp/", "/work/", "/root", "/home", "state/", "log.db", "sqlite")


@pytest.fixture(scope="module", autouse=True)
def open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    scenarios, music = root / "scenarios", root / "music"
    scenarios.mkdir()
    music.mkdir()
    (scenarios / "tiny.yaml").write_text(TINY, encoding="utf-8")
    (scenarios / "huge.yaml").write_text(TINY + "#" * 2_000_000 + "\n", encoding="utf-8")  # over the 1 MB limit
    (scenarios / "loop.yaml").symlink_to(scenarios / "loop.yaml")  # a link to itself
    (scenarios / "round").symlink_to(scenarios)  # a folder that contains itself
    (music / "loop.wav").symlink_to(music / "loop.wav")
    (music / "again").symlink_to(music)
    return root


@pytest.fixture(scope="module")
def server(folders):
    running = start_server(folders / "state", "--lan", "--scenarios", str(folders / "scenarios"), "--music",
                           str(folders / "music"), "--log", str(folders / "log.db"), prelude=LOWER_LIMITS + LAN_ON_LOOPBACK)
    yield running
    assert running.stop() == 130
    output = "".join(running.output)
    assert "Traceback" not in output and "internal error" not in output, output
    assert len(output.splitlines()) < 40, output  # one quiet line per kind at most


# --- helpers -----------------------------------------------------------------------------------
def raw(server, data: bytes, timeout: float = 5.0) -> bytes:
    """Send `data` on a new connection; everything the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            received += chunk
        return received


def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0


def head(server, line: str = "GET /api/info HTTP/1.1", **headers: str) -> bytes:
    sent = {"Host": f"127.0.0.1:{server.port}", "Connection": "close", **headers}
    return (line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items()) + "\r\n").encode("latin-1")


def is_open(connection: socket.socket) -> bool:
    """True while the server has not closed `connection`."""
    connection.setblocking(False)
    try:
        return connection.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def post(server, path: str, body: bytes, content_type: str = "application/json"):
    return server.request(path, method="POST", data=body, headers={"Content-Type": content_type})


def refused(reply, status: int, code: str, field: str | None = None) -> dict:
    assert reply.status == status, (reply.status, reply.body[:300])
    answer = reply.json()
    assert answer["code"] == code and isinstance(answer["error"], str) and answer["error"], answer
    assert answer.get("field") == field, answer
    assert "Traceback" not in answer["error"], answer
    assert not any(place in answer["error"] for place in SERVER_PLACES), answer  # never where the server keeps things
    return answer


def still_answers(server) -> None:
    assert server.request("/api/info").status == 200


@pytest.fixture(scope="module")
def game(server):
    reply = server.request("/api/games", method="POST", json_body={"track": "folder:tiny.yaml"})
    assert reply.status == 200, reply.body
    return reply.json()


# --- malformed HTTP ----------------------------------------------------------------------------
@pytest.mark.parametrize("name, data", [
    ("100 KB URL", lambda s: head(s, f"GET /api/info?x={'a' * 100_000} HTTP/1.1")),
    ("100 KB header", lambda s: head(s, **{"X-Big": "a" * 100_000})),
    ("2,000 headers", lambda s: head(s, **{f"X-H{i}": "1" for i in range(2000)})),
    ("NUL in a header", lambda s: head(s, **{"X-Nul": "a\x00b"})),
    ("HTTP/9.9", lambda s: head(s, "GET /api/info HTTP/9.9")),
    ("Content-Length and Transfer-Encoding", lambda s: head(
        s, "POST /api/games HTTP/1.1", **{"Content-Length": "5", "Transfer-Encoding": "chunked"}) + b"0\r\n\r\n"),
    ("bare LF", lambda s: head(s).replace(b"\r\n", b"\n")),
    ("Host with @", lambda s: head(s, Host=f"127.0.0.1:{s.port}@evil.example")),
])
def test_malformed_requests_get_400_and_the_server_goes_on(server, name, data):
    reply = raw(server, data(server))
    assert status_of(reply) == 400, name
    answer = json.loads(reply.split(b"\r\n\r\n", 1)[1])
    assert answer["code"] == ("invalid_host" if "@" in name else "invalid_http") and answer["error"], answer
    still_answers(server)


def test_a_host_with_an_at_sign_never_makes_the_join_link(server, game):
    for host in (f"127.0.0.1:{server.port}@evil.example", "127.0.0.1:99999", "127.0.0.1:", "[zz]:1"):
        refused(server.request("/api/tracks", headers={"Host": host}), 400, "invalid_host")
    joined = server.request(f"/api/games/{game['id']}", headers={"Host": "127.0.0.1:1"}).json()["join_url"]
    assert joined.startswith(f"http://127.0.0.1:{server.port}/g/")  # the port it listens on, not the Host's


# --- slow and idle clients ---------------------------------------------------------------------
def test_a_half_sent_header_is_dropped_after_the_header_timeout(server):
    started = time.monotonic()
    reply = raw(server, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1", timeout=10)
    assert reply == b"" and time.monotonic() - started < 4.0  # 1.5 s in this server (10 s by default)


def test_a_body_that_does_not_arrive_gets_408(server):
    data = head(server, "POST /api/games HTTP/1.1", **{"Content-Length": "100", "Content-Type": "application/json",
                                                         "X-Timekeeper": "1", "Cookie": f"timekeeper_token={server.token}"})
    reply = raw(server, data + b'{"track":', timeout=10)
    assert status_of(reply) == 408 and b'"code": "timeout"' in reply


def test_idle_sockets_do_not_keep_a_request_with_the_code_out(server):
    idle = []
    try:
        for number in range(IDLE_SOCKETS):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            if number % 2:
                connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")  # half a request
            idle.append(connection)
        started = time.monotonic()
        reply = server.request("/api/tracks")
        assert reply.status == 200 and time.monotonic() - started < AT_ONCE_S
        still_open = sum(is_open(connection) for connection in idle)
        assert still_open <= 100  # the oldest idle ones were closed to make room (100 per client address)
    finally:
        for connection in idle:
            connection.close()
    still_answers(server)


def test_a_request_without_the_code_is_refused_before_its_body_is_read(server):
    data = head(server, "POST /api/tracks/upload HTTP/1.1", **{"Content-Length": "900000", "X-Timekeeper": "1"})
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as connection:
        started = time.monotonic()
        connection.sendall(data)
        first = connection.recv(65536)  # answered at once: the 900 KB never came
        assert status_of(first) == 403 and time.monotonic() - started < AT_ONCE_S


# --- bad input on every route ------------------------------------------------------------------
DEEP = b"[" * 10 + b"]" * 10


def test_json_bodies_are_bounded_before_they_are_parsed(server):
    refused(post(server, "/api/games", b"[" * 100_000 + b"]" * 100_000), 413, "too_large")
    refused(post(server, "/api/games", b'{"track": ' + DEEP + b"}"), 400, "too_deep")
    refused(post(server, "/api/games", b"{not json"), 400, "invalid_json")
    refused(post(server, "/api/games", b"[1]"), 400, "invalid_json")
    refused(post(server, "/api/games", b'{"track": "builtin:mission-1", "settings": {"players": NaN}}'), 400, "invalid_json")
    refused(post(server, "/api/games", b'{"track": "x"}', "application/json; charset=rot13"), 415, "unsupported_charset")
    refused(post(server, "/api/games", "{\"track\": \"\u00e9\"}".encode("latin-1")), 400, "invalid_json")


@pytest.mark.parametrize("path, body, field", [
    ("/api/games", {"track": "builtin:mission-1", "settings": []}, "settings"),
    ("/api/games", {"track": "builtin:mission-1", "settings": "loud"}, "settings"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"music": ["a"]}}, "settings.music"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"players": "05"}}, "settings.players"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"players": 6}}, "settings.players"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"solo": "yes"}}, "settings.solo"),
    ("/api/games", {"track": ["builtin:mission-1"]}, "track"),
    ("/api/games", {"track": "builtin:mission-1", "extra": 1}, "extra"),
    # one rule for every field: exactly its JSON type (docs/serve.md "Types"), nothing taken for it
    ("/api/games", {"track": "builtin:mission-1", "settings": {"players": "5"}}, "settings.players"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"players": 5.0}}, "settings.players"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"players": True}}, "settings.players"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"pace": "1.5"}}, "settings.pace"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"solo": 1}}, "settings.solo"),
    ("/api/games", {"track": "builtin:mission-1", "settings": {"language": 4}}, "settings.language"),
    ("/api/games", {"track": 4}, "track"),
    ("/api/lobby", {"track": "builtin:mission-1", "mode": 1}, "mode"),
    ("/api/tracks/generate", {"count": "3"}, "count"),
    ("/api/tracks/generate", {"seed": "4711"}, "seed"),
    ("/api/tracks/generate", {"seed": ""}, "seed"),
    ("/api/tracks/generate", {"kind": 1}, "kind"),
    ("/api/tracks/flashcode", {"code": "010AL1TW", "title": 7}, "title"),
    ("/api/tracks/generate", {"count": "00000150"}, "count"),
    ("/api/tracks/generate", {"count": "\u00b2"}, "count"),
    ("/api/tracks/generate", {"count": 21}, "count"),
    ("/api/tracks/generate", {"count": 10**400}, "count"),
    ("/api/tracks/generate", {"seed": "\u00b2"}, "seed"),
    ("/api/tracks/generate", {"seed": "1e3"}, "seed"),
    ("/api/tracks/generate", {"kind": {"a": 1}}, "kind"),
    ("/api/tracks/flashcode", {"code": "010AL1TW," * 3000}, "code"),
    ("/api/tracks/flashcode", {"code": ""}, "code"),
])
def test_each_field_is_checked_and_named(server, path, body, field):
    refused(server.request(path, method="POST", json_body=body), 400, "invalid_field", field)


def test_game_routes_check_their_input(server, game):
    base = f"/api/games/{game['id']}"
    refused(post(server, f"{base}/command", b'{"type": "seek", "at_ms": ' + b"9" * 400 + b"}"), 400, "invalid_field", "at_ms")
    refused(server.request(f"{base}/command", method="POST", json_body={"type": "jump"}), 400, "invalid_field", "type")
    refused(server.request(f"{base}/command", method="POST", json_body={"type": "seek", "at_ms": -5}), 400,
            "invalid_field", "at_ms")
    refused(server.request(f"{base}/renders", method="POST", json_body={"format": "wav"}), 400, "invalid_field", "format")
    refused(server.request(f"{base}/log", method="POST", json_body={"campaign": "9" * 30}), 400, "invalid_field", "campaign")
    refused(server.request("/api/games/../../etc"), 404, "not_found")
    refused(server.request("/api/games/0123456789ab"), 404, "not_found")
    refused(server.request("/api/renders/nothing"), 404, "not_found", "job")
    refused(server.request(f"{base}/soundtrack.wav"), 404, "not_found", "format")
    refused(server.request("/api/tracks?color=red"), 400, "invalid_field", "color")
    refused(server.request("/api/tracks?color=red&color=blue"), 400, "invalid_query")
    refused(server.request(f"{base}/command", method="POST", json_body={"type": "end"}), 409, "too_early")


def test_byte_ranges_are_clamped_and_those_that_cannot_be_served_get_416(server, game):
    """Every route that streams reads a range one way (serve/web/ranges.py): past the end is
    clamped (206 with the whole file, RFC 9110 14.1.2), another unit ignored, the rest 416."""
    huge = "9" * 40
    paths = (f"/api/games/{game['id']}/sound.wav", game["sound"]["url"], "/assets/awake.webm")
    for path in paths:
        whole = server.request(path)
        assert whole.status == 200, path
        size = len(whole.body)
        for asked in (f"bytes=0-{huge}", f"bytes=-{huge}", f"bytes=0-{size}"):
            reply = server.request(path, headers={"Range": asked})
            assert reply.status == 206 and reply.body == whole.body, (path, asked)
            assert reply.headers["Content-Range"] == f"bytes 0-{size - 1}/{size}", (path, asked)
        assert server.request(path, headers={"Range": "lines=1-2"}).body == whole.body  # another unit: ignored
        for asked in ("bytes=-0", f"bytes={huge}-", f"bytes={size}-", "bytes=\u00b2-", "bytes=5-2", "bytes=0-1,5-6"):
            reply = server.request(path, headers={"Range": asked.encode().decode("latin-1")})
            assert reply.status == 416 and reply.headers["Content-Range"] == f"bytes */{size}", (path, asked)
    for key in ("0" * 23, "0" * 25, "Z" * 24, "..%2F..%2Fetc%2Fpasswd"):
        reply = server.request(f"/api/games/{game['id']}/sound/{key}.mp3")
        assert reply.status in (400, 404) and "Traceback" not in reply.text, key


def test_uploads_are_bounded_and_checked(server):
    refused(post(server, "/api/tracks/upload?name=x.yaml", b"\xff\xfe" + b"a" * 50, "application/yaml"), 400,
            "invalid_encoding")
    data = head(server, "POST /api/tracks/upload HTTP/1.1", **{"Content-Length": str(5_000_000), "X-Timekeeper": "1",
                                                               "Cookie": f"timekeeper_token={server.token}"})
    reply = raw(server, data)
    assert status_of(reply) == 413 and b'"code": "too_large"' in reply
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as cut:  # an upload cut short
        cut.sendall(data.replace(b"5000000", b"5000") + b"title: Half")
    still_answers(server)


def test_the_game_shows_no_path_of_the_server(server, game):
    assert "/" not in json.dumps(game["settings"])
    shown = server.request(f"/api/games/{game['id']}").text
    assert "/tmp" not in shown and "/root" not in shown and "/home" not in shown


def test_links_in_the_named_folders_and_a_too_large_file(server):
    tracks = {t["id"]: t for t in server.request("/api/tracks").json()["tracks"]}
    assert "folder:tiny.yaml" in tracks and "folder:loop.yaml" not in tracks
    assert "limit" in tracks["folder:huge.yaml"]["problem"] or "large" in tracks["folder:huge.yaml"]["problem"]
    reply = server.request("/api/games", method="POST", json_body={"track": "folder:huge.yaml"})
    assert reply.status in (400, 422) and reply.json()["code"] in ("invalid_request", "invalid_track")
    assert server.request("/api/info").json()["music"] == []


@pytest.mark.parametrize("kind", ["wav", "mp3"])
def test_a_sound_player_that_stops_reading_is_no_error(server, game, kind):
    path = f"/api/games/{game['id']}/sound.wav" if kind == "wav" else game["sound"]["url"]
    data = head(server, f"GET {path} HTTP/1.1", Cookie=f"timekeeper_token={server.token}")
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as player:
            player.sendall(data)
            player.recv(20_000)
            player.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # reset
    still_answers(server)


# --- WebSockets --------------------------------------------------------------------------------
def ws_url(server, game) -> str:
    return f"http://127.0.0.1:{server.port}/api/games/{game['id']}/ws?token={server.token}"


def test_websocket_messages_are_checked_and_floods_are_closed(server, game):
    import aiohttp

    async def talk():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ws_url(server, game)) as screen:
                await screen.receive_json(timeout=5)
                answers = []
                for text in ('{"type": "seek", "at_ms": ' + "9" * 400 + "}", "[" * 20 + "]" * 20, '{"type": "jump"}',
                             "not json", '{"type": "ping", "t": "\u00b2"}'):
                    await screen.send_str(text)
                    answers.append(await screen.receive_json(timeout=5))
                await screen.send_str('{"type": "ping", "t": 1}')
                pong = await screen.receive_json(timeout=5)
                for _ in range(500):
                    await screen.send_str('{"type": "ping", "t": 1}')
                codes, closed = set(), None
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    message = await screen.receive(timeout=5)
                    if message.type != aiohttp.WSMsgType.TEXT:
                        closed = screen.close_code
                        break
                    codes.add(json.loads(message.data).get("code"))
                return answers, pong, codes, closed

    answers, pong, codes, closed = asyncio.run(talk())
    assert [(a["type"], a["code"], a.get("field")) for a in answers] == [
        ("error", "invalid_field", "at_ms"), ("error", "too_deep", None), ("error", "invalid_field", None),
        ("error", "invalid_json", None), ("error", "invalid_field", "t")]
    assert pong["type"] == "pong"
    assert "rate_limited" in codes and closed == 1008


def test_too_many_websockets_from_one_device_are_refused(server, game):
    import aiohttp

    async def crowd():
        async with aiohttp.ClientSession() as session:
            sockets = [await session.ws_connect(ws_url(server, game)) for _ in range(6)]
            try:
                async with session.get(ws_url(server, game), headers={
                        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}) as reply:
                    return reply.status, await reply.json(), reply.headers.get("Retry-After")
            finally:
                for ws in sockets:
                    await ws.close()

    status, answer, retry = asyncio.run(crowd())
    assert status == 503 and answer["code"] == "too_busy" and retry


def test_a_big_websocket_message_closes_the_socket(server, game):
    import aiohttp

    async def big():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ws_url(server, game)) as screen:
                await screen.receive_json(timeout=5)
                await screen.send_str('{"type": "ping", "t": "' + "x" * 10_000 + '"}')
                message = await screen.receive(timeout=5)
                return message.type, screen.close_code

    kind, code = asyncio.run(big())
    assert kind == aiohttp.WSMsgType.CLOSE and code == 1009


# --- state, queue, log -------------------------------------------------------------------------
def test_a_change_that_cannot_be_saved_is_not_made_for_anyone(server, folders, game):
    import aiohttp

    games = folders / "state" / "games"

    async def pause_unsaved():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ws_url(server, game)) as screen:
                await screen.receive_json(timeout=5)
                shutil.move(games, games.with_name("games.away"))
                games.write_text("a file where the folder was\n", encoding="utf-8")
                try:
                    reply = await asyncio.to_thread(server.request, f"/api/games/{game['id']}/command", method="POST",
                                                    json_body={"type": "pause", "at_ms": 5000})
                    with pytest.raises(asyncio.TimeoutError):
                        await screen.receive_json(timeout=1.0)  # no screen is told of a change
                finally:
                    games.unlink()
                    shutil.move(games.with_name("games.away"), games)
                return reply

    reply = asyncio.run(pause_unsaved())
    refused(reply, 503, "state_unwritable")
    assert server.request(f"/api/games/{game['id']}").json()["playback"]["status"] == "ready"


def test_renders_wait_in_a_bounded_queue(server):
    made = []
    for players, background in ((4, False), (5, False), (4, True)):
        reply = server.request("/api/games", method="POST", json_body={
            "track": "folder:tiny.yaml", "settings": {"players": players, "background": background}})
        made.append(reply.json()["id"])
    first = server.request(f"/api/games/{made[0]}/renders", method="POST", json_body={"format": "ogg"})
    second = server.request(f"/api/games/{made[1]}/renders", method="POST", json_body={"format": "ogg"})
    third = server.request(f"/api/games/{made[2]}/renders", method="POST", json_body={"format": "ogg"})
    assert first.status == 202 and second.status == 202
    assert second.json()["position"] in (0, 1)  # 1 while the first still renders
    refused(third, 503, "queue_full")
    assert int(third.headers["Retry-After"]) > 0
    started = time.monotonic()
    assert server.request("/api/tracks").status == 200 and time.monotonic() - started < AT_ONCE_S
    deadline = time.monotonic() + 40
    job = second.json()
    while not job["finished"] and time.monotonic() < deadline:
        time.sleep(0.2)
        job = server.request(f"/api/renders/{job['id']}").json()
    assert job["ready"] and job["position"] == 0
    download = f"/api/games/{made[1]}/soundtrack.ogg"  # served by byte range like every stream
    whole = server.request(download)
    assert whole.status == 200 and whole.body[:4] == b"OggS" and "attachment" in whole.headers["Content-Disposition"]
    clamped = server.request(download, headers={"Range": f"bytes=4-{'9' * 30}"})
    assert clamped.status == 206 and clamped.body == whole.body[4:]


def test_a_read_only_log_gets_503(server, folders, game):
    log = folders / "log.db"
    assert server.request("/api/log").status == 200  # the log exists now
    immutable = os.geteuid() == 0
    if immutable:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(log)], capture_output=True).returncode:
            not_here("root ignores file modes, and chattr +i is refused (a container without CAP_LINUX_IMMUTABLE)")
    else:
        log.chmod(0o444)
    try:
        reply = server.request(f"/api/games/{game['id']}/log", method="POST",
                               json_body={"crew": "Ann, Bob, Cid, Dee", "survived": "1"})
        refused(reply, 503, "log_unavailable")
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(log)], check=True)
        else:
            log.chmod(0o644)


def test_a_game_in_play_is_never_forgotten(tmp_path):
    few = "import timekeeper.serve.games.game as games; games.KEPT_GAMES = 2\n"
    running = start_server(tmp_path / "state", prelude=few)
    try:
        new = {"track": "builtin:quick-drill", "settings": {"background": False}}
        playing = running.request("/api/games", method="POST", json_body=new).json()["id"]
        running.request(f"/api/games/{playing}/command", method="POST", json_body={"type": "play"})
        ended = running.request("/api/games", method="POST", json_body=new).json()["id"]
        for _ in range(4):
            running.request("/api/games", method="POST", json_body=new)
        assert running.request(f"/api/games/{playing}").status == 200
        assert running.request(f"/api/games/{ended}").status == 404  # an old game not in play is forgotten
    finally:
        assert running.stop() == 130


def test_every_route_declares_its_input(tmp_path):
    from timekeeper.serve.server import ServeConfig
    from timekeeper.serve.web.app import make_app

    app = make_app(ServeConfig(state=tmp_path))
    routes = list(app.router.routes())
    assert len(routes) > 20
    undeclared = [route.resource.canonical for route in routes if not hasattr(route.handler, "route_input")]
    assert undeclared == []


def test_a_low_open_files_limit_caps_connections_instead_of_failing(tmp_path):
    """The hard limit of open files set to 256 before the server starts: it keeps its connections
    below that, so accept() never runs out of files (before: thousands of tracebacks)."""
    low = "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))\n"
    running = start_server(tmp_path / "state", prelude=low)
    idle = []
    try:
        assert running.request("/api/tracks").status == 200  # the track list read once (2 s cold)
        for _ in range(600):
            idle.append(socket.create_connection(("127.0.0.1", running.port), timeout=5))
        started = time.monotonic()
        assert running.request("/api/tracks").status == 200 and time.monotonic() - started < AT_ONCE_S
        assert sum(is_open(connection) for connection in idle) <= 56  # the cap: 256 files less 200 spare
    finally:
        for connection in idle:
            connection.close()
        assert running.stop() == 130
    output = "".join(running.output)
    assert "Traceback" not in output and "out of system resource" not in output, output


def test_tracks_made_in_the_page_are_bounded(server, folders):
    made = server.request("/api/tracks/generate", method="POST", json_body={"seed": 77, "count": 8})
    assert made.status == 201 and len(made.json()["tracks"]) == 8
    added = [t for t in server.request("/api/tracks").json()["tracks"] if t["group"] == "added"]
    assert len(added) == 5 and len(list((folders / "state" / "tracks").glob("*.yaml"))) == 5  # 5 in this server


def test_slow_answers_wait_in_a_bounded_queue(server, game):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(10) as pool:
        replies = list(pool.map(lambda _: server.request(f"/api/games/{game['id']}/card.pdf"), range(10)))
    statuses = sorted(reply.status for reply in replies)
    assert statuses[0] == 200 and statuses[-1] == 503, statuses  # 1 made, 1 waiting, the rest refused at once
    refused(next(reply for reply in replies if reply.status == 503), 503, "queue_full")
    assert all(reply.body.startswith(b"%PDF") for reply in replies if reply.status == 200)


def test_a_silent_websocket_is_closed(server, game):
    import aiohttp

    async def silent():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ws_url(server, game), autoping=True) as screen:
                await screen.receive_json(timeout=5)
                started = time.monotonic()
                message = await screen.receive(timeout=10)
                return message.type, screen.close_code, time.monotonic() - started

    kind, code, waited = asyncio.run(silent())
    assert kind == aiohttp.WSMsgType.CLOSE and code == 1001 and 2.5 < waited < 8  # 3 s here, 30 minutes by default


class FakeTransport:
    """What the gate asks of a connection: the client's address, writing and closing."""

    def __init__(self, client: str) -> None:
        self.client, self.closed, self.sent = client, False, b""

    def get_extra_info(self, name: str):
        return (self.client, 40_000) if name == "peername" else None

    def write(self, data: bytes) -> None:
        self.sent += data

    def close(self) -> None:
        self.closed = True


class Inner:
    def connection_made(self, transport) -> None:
        self.transport = transport


def test_room_is_made_by_closing_idle_connections_without_the_code_first():
    from timekeeper.serve.guards.limits import ConnectionLimits

    limits = ConnectionLimits(total=5, per_client=3)
    make = limits.factory(Inner)

    def connect(client: str):
        gate, transport = make(), FakeTransport(client)
        gate.connection_made(transport)
        return gate, transport

    phone, phone_socket = connect("10.0.0.2")
    phone.trusted = True  # showed the access code, now idle between requests
    busy, busy_socket = connect("10.0.0.2")
    busy.busy = 1  # a WebSocket
    stranger, stranger_socket = connect("10.0.0.2")
    newest, newest_socket = connect("10.0.0.2")  # a 4th from one address: the idle one without the code goes
    assert stranger_socket.closed and not phone_socket.closed and not busy_socket.closed and not newest_socket.closed
    newest.busy = 1  # its request is being answered
    another, _ = connect("10.0.0.2")  # then the idle phone connection, never a busy one
    assert phone_socket.closed and not busy_socket.closed and not newest_socket.closed
    others = [connect(f"10.0.0.{n}") for n in (3, 4)]
    assert limits.count == 5 and all(not transport.closed for _, transport in others)
    another.busy = 1  # every connection busy: a new one is refused with a short 503
    for gate, _ in others:
        gate.busy = 1
    refused_gate, refused_socket = connect("10.0.0.9")
    assert refused_socket.closed and refused_socket.sent.startswith(b"HTTP/1.1 503") and b'"too_busy"' in refused_socket.sent
    assert limits.count == 5
