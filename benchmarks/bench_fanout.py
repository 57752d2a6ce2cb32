"""What telling every screen of a room costs the server, and whether one screen that stops reading
holds up the others: a real `timekeeper serve --public` on loopback (one process, no Redis; each
screen from an address of its own, through the trusted proxy header, as nginx passes it), ROOMS
rooms of SCREENS joined screens each (WebSockets that read everything), one screen of each room
saying hello again and again, so that every screen of the room is sent who is connected (no disk
is touched).

    python benchmarks/bench_fanout.py                      # 50 rooms, 5 screens, 20 s
    python benchmarks/bench_fanout.py --stalled 1          # and one screen that reads nothing

Prints the messages delivered, the server's CPU per message delivered (µs, from /proc/PID/stat),
and how late the lists arrive (ms from the hello to its list on every other screen of the room,
p50 and p99). Run it with PYTHONPATH (and the working folder) of another checkout to compare.
Every loop is bounded in count and time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from serving import start_server

HELLOS_PER_S = 5  # each room's talking screen says hello this often (within its 20 a second)


def address(number: int) -> str:
    return f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256 or 1}"


def cpu_s(pid: int) -> float:
    """User and system CPU seconds of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def stalled_screen(port: int, game_id: str) -> socket.socket:
    """A screen joined by hand on a 1 KB receive buffer, which then reads nothing."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall((f"GET /api/games/{game_id}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += raw.recv(1)
    return raw


async def run(server, rooms: int, screens: int, seconds: float, stalled: int) -> dict:
    import aiohttp

    games = [await asyncio.to_thread(server.request, "/api/games", method="POST", json_body={"track": "builtin:test-run-1"},
                                     headers={"X-Forwarded-For": address(rooms * screens + n)}) for n in range(rooms)]
    ids = [reply.json()["id"] for reply in games]
    late_ms: list[float] = []
    delivered = [0]
    sent_at: dict[str, float] = {}
    stuck = [stalled_screen(server.port, game_id) for game_id in ids[:stalled]]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        joined = []
        for number, game_id in enumerate(ids):
            room = [await session.ws_connect(f"{server.url.replace('http', 'ws')}api/games/{game_id}/ws",
                                             headers={"X-Forwarded-For": address(number * screens + n)})
                    for n in range(screens)]
            for n, ws in enumerate(room):
                await ws.send_json({"type": "hello", "client": f"{game_id}-{n}", "kind": "phone"})
            joined.append(room)

        async def read(ws, game_id: str) -> None:
            async for message in ws:
                data = json.loads(message.data)
                if data.get("type") == "presence":
                    delivered[0] += 1
                    started = sent_at.get(game_id)
                    if started is not None:
                        late_ms.append((time.monotonic() - started) * 1000)

        readers = [asyncio.create_task(read(ws, game_id)) for game_id, room in zip(ids, joined) for ws in room[1:]]
        await asyncio.sleep(2.0)  # the joins told
        delivered[0], before, started = 0, cpu_s(server.process.pid), time.monotonic()
        while time.monotonic() - started < seconds:
            for game_id, room in zip(ids, joined):
                sent_at[game_id] = time.monotonic()
                await room[0].send_json({"type": "hello", "client": f"{game_id}-0", "kind": "phone"})
            await asyncio.sleep(1 / HELLOS_PER_S)
        await asyncio.sleep(1.0)
        used = cpu_s(server.process.pid) - before
        for task in readers:
            task.cancel()
        for room in joined:
            for ws in room:
                await ws.close()
    for raw in stuck:
        raw.close()
    return {"delivered": delivered[0], "cpu_us": used * 1e6 / max(1, delivered[0]),
            "p50": percentile(late_ms, 0.5), "p99": percentile(late_ms, 0.99)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--screens", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--stalled", type=int, default=0, help="rooms with one screen that reads nothing")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder) / "state", "--public", "--trust-proxy", "127.0.0.1")
        try:
            found = asyncio.run(asyncio.wait_for(run(server, options.rooms, options.screens, options.seconds,
                                                     options.stalled), options.seconds + 300))
        finally:
            server.stop()
    print(f"{options.rooms} rooms x {options.screens} screens, {options.stalled} with a stalled screen, "
          f"{options.seconds:g} s: {found['delivered']} lists delivered, {found['cpu_us']:.0f} us of server CPU each, "
          f"late p50 {found['p50']:.1f} ms, p99 {found['p99']:.1f} ms")


if __name__ == "__main__":
    main()
