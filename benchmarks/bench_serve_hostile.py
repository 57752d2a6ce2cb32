"""`timekeeper serve` under hostile load, a real server on loopback with the access code on (as
`--lan`, but listening on 127.0.0.1 only).

    python benchmarks/bench_serve_hostile.py                  # both loads
    python benchmarks/bench_serve_hostile.py --idle 2000      # more idle connections

Measures (targets from issue 20):
- with 1,000 idle connections open from 10 loopback addresses (as 10 devices; half of them with
  half a request sent), a request carrying the access code is answered in < 1 s (the worst of
  20, each on a new connection);
- with 20 soundtrack renders requested at once (20 different games), the page and the API answer
  in < 200 ms at the 99th percentile (GET /, /api/tracks, /api/games/ID, polled for 15 s while
  the renders run); the renders beyond the queue are refused with 503 at once;
- the server's peak memory (VmHWM of /proc/PID/status) stays < 300 MB through both.
Every loop is bounded in count and time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import serving
from serving import LAN_ON_LOOPBACK, start_server

serving.REQUEST_TIMEOUT_S = 600  # a new game in a cold cache synthesizes its phrases first (not measured)

POLL_S = 15.0
TRACKS = ("builtin:mission-1", "builtin:mission-2", "builtin:mission-3", "builtin:mission-4", "builtin:mission-5")
SETTINGS = ({"players": 5, "background": True}, {"players": 4, "background": True}, {"players": 5, "background": False},
            {"players": 4, "background": False})


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def idle_load(server, count: int, spread: int) -> list[float]:
    """Seconds to answer 20 requests with the code while `count` idle connections are open, from
    `spread` loopback addresses (127.0.0.2 ...: as many devices)."""
    idle = []
    try:
        for number in range(count):
            source = (f"127.0.0.{2 + number % spread}", 0)
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=source)
            if number % 2:
                connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
            idle.append(connection)
        times = []
        for _ in range(20):
            started = time.monotonic()
            assert server.request("/api/tracks").status == 200
            times.append(time.monotonic() - started)
        return times
    finally:
        for connection in idle:
            connection.close()


def render_load(server) -> tuple[list[float], dict[int, int]]:
    """Latencies of the page and API while 20 renders are asked for at once; the render answers by status."""
    games = []
    for number in range(20):
        body = {"track": TRACKS[number % len(TRACKS)], "settings": SETTINGS[number // len(TRACKS)]}
        reply = server.request("/api/games", method="POST", json_body=body)
        assert reply.status == 200, reply.body
        games.append(reply.json()["id"])
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda game: server.request(f"/api/games/{game}/renders", method="POST",
                                                             json_body={"format": "mp3"}), games))
    statuses: dict[int, int] = {}
    for reply in replies:
        statuses[reply.status] = statuses.get(reply.status, 0) + 1
    latencies = []
    paths = ("/", "/api/tracks", f"/api/games/{games[0]}")
    deadline = time.monotonic() + POLL_S
    while time.monotonic() < deadline:
        for path in paths:
            started = time.monotonic()
            assert server.request(path).status == 200
            latencies.append(time.monotonic() - started)
        time.sleep(0.05)
    return latencies, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--idle", type=int, default=1000, help="idle connections to open (default 1000)")
    parser.add_argument("--devices", type=int, default=10, choices=range(1, 250), metavar="N",
                        help="loopback addresses the idle connections come from (default 10)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.idle + 512)), hard))
    with tempfile.TemporaryDirectory() as state:
        # a cache of its own: every render is made, none found from an earlier run
        server = start_server(Path(state) / "state", "--lan", prelude=LAN_ON_LOOPBACK,
                              env={"TIMEKEEPER_CACHE": str(Path(state) / "cache")})
        try:
            pid = server.process.pid
            idle = idle_load(server, args.idle, args.devices)
            after_idle = peak_mb(pid)
            latencies, statuses = render_load(server)
            peak = peak_mb(pid)
        finally:
            server.stop()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    rows = [
        (f"request with the code, {args.idle} idle connections from {args.devices} addresses (worst / median of 20)",
         f"{max(idle) * 1000:.0f} ms / {statistics.median(idle) * 1000:.0f} ms (target < 1000 ms)"),
        ("20 renders asked for at once: accepted (202) / refused (503)",
         f"{statuses.get(202, 0)} / {statuses.get(503, 0)}"),
        (f"page and API during the renders, p99 / median of {len(latencies)}",
         f"{p99 * 1000:.0f} ms / {statistics.median(latencies) * 1000:.0f} ms (target < 200 ms)"),
        ("server peak memory (VmHWM) after the idle load / after both", f"{after_idle:.0f} MB / {peak:.0f} MB (target < 300 MB)"),
    ]
    for name, value in rows:
        print(f"{name:<78} {value}")


if __name__ == "__main__":
    main()
