"""Hosted mode (`timekeeper serve --public`) in one process: memory per room, and how fast rooms
are made and read while many are open. A real server on loopback; the rooms come from as many
client addresses (named through the trusted proxy header, as nginx would), so the per-client
limits see a crowd, not one client.

    python benchmarks/bench_hosted.py                 # 500 rooms, 2 screens each
    python benchmarks/bench_hosted.py --rooms 1000 --screens 5

Measures:
- memory per room: the server's resident memory (VmRSS of /proc/PID/status) after the rooms are
  made, less before, per room; first the rooms alone (a lobby each, all of one track and settings:
  one mix and one sound file, made before), then with their screens joined (WebSockets saying hello);
- new room (POST /api/lobby) and a room's state (GET /api/games/ID) answer times, p50 and p99.
Every loop is bounded in count and time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import serving
from serving import start_server

serving.REQUEST_TIMEOUT_S = 600  # the first room prepares its mix (synthesized phrases): not measured
TRACK = "builtin:mission-1"


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def client(number: int) -> str:
    return f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256 or 1}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def join_screens(server, rooms: list[dict], screens: int) -> list:
    import aiohttp

    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60),
                                    connector=aiohttp.TCPConnector(limit=0))  # every screen holds one
    sockets = []
    base = server.url.replace("http", "ws")
    for number, room in enumerate(rooms):
        for seat in range(screens):
            socket = await session.ws_connect(f"{base}api/games/{room['id']}/ws",
                                              headers={"X-Forwarded-For": client(number * screens + seat + 1)})
            await socket.receive_json(timeout=30)  # the room's state
            await socket.send_json({"type": "hello", "client": f"c{number}-{seat}", "kind": "phone"})
            sockets.append(socket)
    for socket in sockets[-50:]:
        await socket.receive_json(timeout=30)  # presence: the last screens were answered
    return [session, sockets]


async def leave(joined: list) -> None:
    session, sockets = joined
    for socket in sockets:
        await socket.close()
    await session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=500, choices=range(1, 5001), metavar="N")
    parser.add_argument("--screens", type=int, default=2, choices=range(0, 11), metavar="N")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds every screen's socket

    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder) / "state", "--public", "--trust-proxy", "127.0.0.1")
        try:
            headers = {"X-Forwarded-For": client(0)}
            first = server.request("/api/lobby", method="POST", json_body={"track": TRACK}, headers=headers).json()
            described = server.request(f"/api/games/{first['id']}", headers=headers)  # its mix is ready
            assert described.status == 200
            sound = described.json().get("sound")
            if sound:  # the page's sound file, made once for the mix every room shares: read whole, so it is made
                assert server.request(sound["url"], headers=headers).status == 200
            time.sleep(1.0)
            before = resident_mb(server.process.pid)
            made, reads, rooms = [], [], []
            deadline = time.monotonic() + 600
            for number in range(1, args.rooms + 1):
                if time.monotonic() > deadline:
                    raise SystemExit("the rooms took longer than 10 minutes")
                sent = {"X-Forwarded-For": client(number)}
                start = time.perf_counter()
                reply = server.request("/api/lobby", method="POST", json_body={"track": TRACK}, headers=sent)
                made.append(time.perf_counter() - start)
                assert reply.status == 201, reply.body
                rooms.append(reply.json())
                if number % 10 == 0:
                    start = time.perf_counter()
                    assert server.request(f"/api/games/{rooms[-1]['id']}", headers=sent).status == 200
                    reads.append(time.perf_counter() - start)
            time.sleep(2.0)
            with_rooms = resident_mb(server.process.pid)
            joined = None
            if args.screens:
                joined = asyncio.run(join_screens(server, rooms, args.screens))
                time.sleep(2.0)
            with_screens = resident_mb(server.process.pid)
            per_room = (with_rooms - before) * 1024 / args.rooms
            per_screen_room = (with_screens - before) * 1024 / args.rooms
            figures = [
                ("server memory before / with the rooms / with their screens",
                 f"{before:.0f} / {with_rooms:.0f} / {with_screens:.0f} MB"),
                ("memory per room (a lobby, one shared mix)", f"{per_room:.0f} KB"),
                (f"memory per room with {args.screens} screens joined", f"{per_screen_room:.0f} KB"),
                ("new room (POST /api/lobby) p50 / p99",
                 f"{statistics.median(made) * 1000:.1f} / {percentile(made, 0.99) * 1000:.1f} ms"),
                ("a room's state (GET /api/games/ID) p50 / p99",
                 f"{statistics.median(reads) * 1000:.1f} / {percentile(reads, 0.99) * 1000:.1f} ms"),
            ]
            if joined is not None:
                asyncio.run(leave(joined))
        finally:
            server.stop()
    print(f"hosted mode, one process: {args.rooms} rooms, {args.screens} screens each")
    for name, value in figures:
        print(f"  {name}: {value}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


if __name__ == "__main__":
    main()
