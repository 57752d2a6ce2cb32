"""One phone that stops reading, against real servers on a loaded machine: a screen joined by hand
on a socket with a tiny receive buffer, which then reads nothing while the room it joined is
flooded with state messages. It must hold up nobody: not the other screens of its room, not its
room's commands, not another game on the same worker (with `--redis`, where one listener passes
every worker's messages on); it is dropped (its connection cut) and the worker says so in one line.
Two busy processes run beside every test (tests/cpuload.py), so the races of a loaded machine show."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpuload import busy_cores
from realparts import needs
from scaleout import deploy
from serving import start_server

# The worker's side: a screen is dropped after 5 s instead of 10, the kernel's send buffer of each
# connection is 8 KB (Linux grows it up to 4 MB: minutes of flooding before anything waits), the
# event loop's 1 KB (64 KB) and aiohttp looks at it every 4 KB (16 KB), so the pongs the stalled
# screen does not read fill its buffers at once. aiohttp's heartbeat (a ping every 20 s), which cuts
# a screen that does not answer 10 s later, pings after 10 minutes: what is seen is the server's
# own defence, as when the heartbeat's ping waits behind what the screen does not read.
PRELUDE = """
import socket, aiohttp.web_ws as web_ws, timekeeper.serve.guards.limits as limits
_socket = web_ws.WebSocketResponse.__init__
def _late_heartbeat(response, *args, **kwargs):
    _socket(response, *args, **{**kwargs, "heartbeat": 600.0})
web_ws.WebSocketResponse.__init__ = _late_heartbeat
try:
    import timekeeper.serve.games.screens as screens
    screens.SEND_S, screens.WRITER_LIMIT = 5.0, 4096
except ImportError:  # (before screens had an outbox: the test shows what went wrong)
    pass
_made = limits.Gate.connection_made
def _small_buffer(gate, transport):
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    transport.set_write_buffer_limits(high=1024)
    _made(gate, transport)
limits.Gate.connection_made = _small_buffer
"""
FLOODERS = 15  # screens of the stalled one's room sending commands while it reads nothing
HEARD_S = 60.0  # a message to a screen that reads arrives within this on a machine under heavy load
DROPPED_S = 60.0  # the stalled screen is dropped within this (SEND_S once its buffers are full, under load)


@pytest.fixture(autouse=True)
def loaded_machine():
    with busy_cores(2):
        yield


def frame(text: str) -> bytes:
    """A client's WebSocket text frame (masked, as RFC 6455 wants from a client), under 126 bytes."""
    payload, mask = text.encode(), os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def stalled_screen(port: int, game_id: str, address: str) -> socket.socket:
    """A WebSocket joined by hand (the upgrade written and its answer read) on a socket whose
    receive buffer is 1 KB, which sends 180 pings (three bursts 4 s apart, within its limits) and
    reads nothing: the pongs (13 KB), and whatever its room is sent, pile up."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    raw.settimeout(10)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall((f"GET /api/games/{game_id}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                 f"X-Forwarded-For: {address}\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += raw.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    for burst in range(3):
        time.sleep(4.0 if burst else 0.0)
        raw.sendall(b"".join(frame(json.dumps({"type": "ping", "t": n})) for n in range(60)))
    return raw


def says(server, words: str, timeout_s: float) -> bool:
    """Whether the server's terminal says `words` within `timeout_s` (its output read as it comes)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            chunk = os.read(server.process.stdout.fileno(), 65536).decode(errors="replace")
        except BlockingIOError:  # (nothing to read now: the pipe is non-blocking)
            chunk = ""
        if chunk:
            server.output.append(chunk)
        if words in "".join(server.output):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def ends_within(raw: socket.socket, timeout_s: float) -> bool:
    """Read what the server had sent; True when the connection ends (closed or reset) within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    raw.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            if raw.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset
            return True
    return False


class Joined:
    """A screen that reads everything it is sent (a task of its own keeps every message)."""

    def __init__(self, socket_) -> None:
        self.socket, self.messages = socket_, []
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type.name == "TEXT":
                self.messages.append(json.loads(message.data))

    async def send(self, message: dict) -> None:
        await self.socket.send_str(json.dumps(message))

    async def next(self, kind: str, check=lambda m: True, timeout_s: float = HEARD_S) -> dict | None:
        """The first message of `kind` passing `check` received so far or within `timeout_s` (None: none came)."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = next((m for m in self.messages if m.get("type") == kind and check(m)), None)
            if found is not None or time.monotonic() > deadline:
                return found
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        await self.socket.close()
        self.reader.cancel()


async def joined(session, base: str, game_id: str, address: str, client: str) -> Joined:
    socket_ = await session.ws_connect(f"{base.replace('http', 'ws')}/api/games/{game_id}/ws",
                                       headers={"X-Forwarded-For": address})
    screen = Joined(socket_)
    await screen.send({"type": "hello", "client": client, "kind": "phone"})
    return screen


async def flood(session, base: str, game_id: str, seconds: float = 0.0) -> list[Joined]:
    """FLOODERS screens of the room, each sending a burst of 60 seeks and hellos in turn, then 15
    seeks a second for `seconds` (within its limits): each sends every screen of the room the
    game's state, or who is connected. Some 500 KB for the stalled screen: more than its buffers
    hold even with aiohttp's own limit (it waits for the connection only every 256 KB)."""
    flooders = [await joined(session, base, game_id, f"198.51.100.{n + 1}", f"flood-{n}") for n in range(FLOODERS)]
    for k in range(60):
        for n, flooder in enumerate(flooders):
            if k % 2:
                await flooder.send({"type": "seek", "at_ms": 1000 + n * 1000 + k})
            else:
                await flooder.send({"type": "hello", "client": f"flood-{n}", "kind": "phone"})
    started, last = time.monotonic(), None
    while time.monotonic() - started < seconds:
        await asyncio.sleep(0.2)
        for k in range(3):
            for n, flooder in enumerate(flooders):
                last = 90_000 + n * 1000 + k
                await flooder.send({"type": "seek", "at_ms": last})
    if last is not None:  # the whole flood carried out (and so passed on to every worker)
        assert await flooders[-1].next("state", lambda m: m["playback"]["position_ms"] == last, timeout_s=HEARD_S)
    return flooders


def new_room(request, base: str | None = None) -> dict:
    kwargs = {"base": base} if base else {}
    reply = request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1"}, **kwargs)
    assert reply.status == 201, reply.body
    return reply.json()


def test_a_stalled_screen_holds_up_neither_its_room_nor_the_server(tmp_path):
    """One process (no Redis): once the stalled screen's buffers are full, its room's commands
    are still carried out and answered, every other screen hears them, and the stalled screen is
    dropped with one line on the terminal."""
    import aiohttp

    server = start_server(tmp_path / "state", "--public", "--trust-proxy", "127.0.0.1", prelude=PRELUDE)
    try:
        room = new_room(server.request)
        base = server.url.rstrip("/")

        async def scenario() -> tuple[dict | None, dict | None, bool, bool]:
            async with aiohttp.ClientSession() as session:
                reader = await joined(session, base, room["id"], "203.0.113.65", "reader")
                raw = await asyncio.to_thread(stalled_screen, server.port, room["id"], "203.0.113.66")
                flooders = await flood(session, base, room["id"])
                await flooders[0].send({"type": "ping", "t": 7})
                pong = await flooders[0].next("pong", timeout_s=HEARD_S)
                await flooders[1].send({"type": "seek", "at_ms": 99_000})
                heard = await reader.next("state", lambda m: m["playback"]["position_ms"] == 99_000, timeout_s=HEARD_S)
                dropped = await asyncio.to_thread(says, server, "dropped a screen that does not read", DROPPED_S)
                ended = await asyncio.to_thread(ends_within, raw, DROPPED_S)  # (read only now: it read nothing before)
                for screen in (reader, *flooders):
                    await screen.close()
                return pong, heard, dropped, ended

        pong, heard, dropped, ended = asyncio.run(asyncio.wait_for(scenario(), 4 * HEARD_S))
        assert pong is not None and pong["t"] == 7, "a command of the stalled one's room waited for it"
        assert heard is not None, "a screen of the stalled one's room waited for it"
        assert dropped and ended, f"the stalled screen was not dropped (said {dropped}, ended {ended})"
        assert server.request("/api/info").status == 200
    finally:
        assert server.stop() == 130
    output = "".join(server.output)
    assert "Traceback" not in output, output


@needs("redis-server")
def test_with_redis_a_stalled_screen_stops_no_game_on_its_worker(tmp_path):
    """Two hosted workers on one redis-server: the stalled screen on worker 0, its room's commands
    sent on worker 1; another game's commands, sent on worker 1, still reach its screen on worker 0
    (whose one listener passes every worker's messages on, never waiting for a screen)."""
    import aiohttp

    own = deploy(tmp_path, nginx=False, extra=("--public",), prelude=PRELUDE)
    bases = [f"http://127.0.0.1:{port}" for port in own.worker_ports]
    try:
        room, other = new_room(own.request, bases[0]), new_room(own.request, bases[1])

        async def scenario() -> tuple[list[bool], bool, bool]:
            async with aiohttp.ClientSession() as session:
                watcher = await joined(session, bases[0], other["id"], "203.0.113.70", "watcher")
                commander = await joined(session, bases[1], other["id"], "203.0.113.71", "commander")
                raw = await asyncio.to_thread(stalled_screen, own.worker_ports[0], room["id"], "203.0.113.66")
                flooders = await flood(session, bases[1], room["id"], seconds=12.0)  # (hellos: one list a tenth of a second)
                heard = []
                for n in range(3):  # the other game, while the room's messages are passed on (and after)
                    await commander.send({"type": "seek", "at_ms": 50_000 + n})
                    heard.append(await watcher.next("state", lambda m, n=n: m["playback"]["position_ms"] == 50_000 + n,
                                                    timeout_s=HEARD_S) is not None)
                dropped = await asyncio.to_thread(says, own.workers[0], "dropped a screen that does not read", DROPPED_S)
                ended = await asyncio.to_thread(ends_within, raw, DROPPED_S)
                for screen in (*flooders, watcher, commander):
                    await screen.close()
                return heard, dropped, ended

        heard, dropped, ended = asyncio.run(asyncio.wait_for(scenario(), 6 * HEARD_S))
        assert all(heard), f"another game's screen on the stalled one's worker heard nothing: {heard}"
        assert dropped and ended, f"the stalled screen was not dropped (said {dropped}, ended {ended})"
    finally:
        own.stop()
    output = "".join(own.workers[0].output)
    assert "Traceback" not in output, output
