"""Load test of a scaled-out deployment on loopback: Debian's redis-server, two `timekeeper serve
--redis` workers and nginx running deploy/nginx.conf with TLS (tests/scaleout.py starts them).

    python benchmarks/bench_scaleout.py                         # 1,000 rooms x 5 screens (the issue's load)
    python benchmarks/bench_scaleout.py --rooms 50 --seconds 10 # a quick look

Measures (targets of issue 25):
- every joined screen's clock vs its room's sound device, p99 <= 100 ms: each room has one sound
  device (it claims the sound, plays, reports its position every second as the page does, each
  report off by up to 15 ms as a browser's audio clock reads) and four
  screens that follow the page's protocol (best-of-5 ping offset, extrapolated shared position);
  every screen samples |its clock - the device's| about once a second;
- API answers (game, join code, command) p99 < 200 ms while 10 soundtrack renders are asked for,
  timed by a separate prober process (its own event loop, so the load's 5,000 sockets do not
  delay its clock);
- one worker killed (SIGKILL) mid-mission: the time until every screen is back within 100 ms of
  its sound device (screens reconnect through nginx as the page does: 0.5 s, then doubling, each wait spread
  over 0.5-1.5 times itself), and
  every room still there and playing (< 5 s, none lost); meanwhile, how far the clocks of the
  screens not back yet are from their device (a page goes on counting from its last state while its
  socket is down, and the device goes on playing); the CPU each process used until then;
- the rooms asking for mission 1 with the same settings (every room here): mixes made (the Redis
  lock's count, target 1) with an empty clip cache;
- memory per room: the workers' resident memory and Redis's, before and after the rooms.

Connections come from 100 loopback addresses (127.0.1.1 ...), as many phones would: nginx allows
100 connections per client address. This process runs on uvloop (its sockets and TLS in C): it
stands in for 5,000 phones on the same 2 cores as the deployment, and should take as little of them
as it can. The open-files limit of this process is raised to its hard limit.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from processes import family
from scaleout import Deployment, deploy, raise_open_files

SCREENS_PER_ROOM = 5
SOURCE_ADDRESSES = 100
REPORT_EVERY_S = 1.0
REPORT_JITTER_MS = 15.0  # a browser's audio.currentTime moves in steps of its audio buffer: each report is off by up to this
SAMPLE_EVERY_S = 1.0
IN_SYNC_MS = 100.0
CONNECT_AT_ONCE = 64
RECONNECT_LIMIT_S = 30.0
# The page sets no timeout on opening its WebSocket (a browser waits minutes for a handshake);
# giving one up after a few seconds would throw its work away and queue it again at the back.
OPEN_TIMEOUT_S = RECONNECT_LIMIT_S
WARM_ROOMS = 4  # made first: the workers' one-time memory (the prepared mix) is not counted per room


def cpu_pressure() -> str:
    """How much of the time runnable tasks waited for a CPU (this machine is shared)."""
    try:
        return Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Screen:
    """One joined screen (or the room's sound device) speaking the page's protocol."""

    def __init__(self, bench: Bench, room: Room, index: int, session) -> None:
        self.bench, self.room, self.index, self.session = bench, room, index, session
        self.client = f"{room.game_id}-{index}"
        self.device = index == 0
        self.offset_ms, self.best_rtt = 0.0, float("inf")
        self.playback: dict | None = None
        self.socket = None
        self.connected = asyncio.Event()
        self.lost_at: float | None = None  # monotonic time its worker went away (None: connected)
        self.back_in_sync_s: float | None = None
        self.phases: dict[str, float] = {}  # after its worker died: seconds from lost_at to each step back

    def clock_ms(self, now_ms: float) -> float | None:
        pb = self.playback
        if pb is None or pb["status"] != "playing":
            return None
        return pb["position_ms"] + (now_ms + self.offset_ms - pb["at_ms"])

    async def run(self) -> None:
        retry_s = 0.5
        deadline = None
        while not self.bench.stop.is_set():
            try:
                await self._connect()
                retry_s = 0.5
                await self._listen()
            except (OSError, asyncio.TimeoutError, ConnectionError) as error:
                self.bench.errors.append(type(error).__name__)
            except Exception as error:  # aiohttp's own errors (a refused WebSocket: with its HTTP status)
                self.bench.errors.append(f"{type(error).__name__} {getattr(error, 'status', '')}".strip())
            if self.bench.stop.is_set():
                return
            self.connected.clear()
            if self.lost_at is None:
                self.lost_at = time.monotonic()
                deadline = self.lost_at + RECONNECT_LIMIT_S
            if deadline is not None and time.monotonic() > deadline:
                self.bench.gave_up += 1
                return
            await asyncio.sleep(retry_s * (0.5 + random.random()))  # as the page does (spread)
            retry_s = min(retry_s * 2, 5.0)

    def _step(self, name: str) -> None:
        if self.lost_at is not None and name not in self.phases:
            self.phases[name] = time.monotonic() - self.lost_at

    async def _connect(self) -> None:
        url = f"{self.bench.ws_base}/api/games/{self.room.game_id}/ws"
        self._step("asked again")
        self.socket = await asyncio.wait_for(self.session.ws_connect(url, ssl=self.bench.tls, heartbeat=None),
                                             OPEN_TIMEOUT_S)
        self._step("WebSocket open")
        await self.socket.send_str(json.dumps({"type": "hello", "client": self.client, "kind": "phone"}))
        if self.device and self.room.claimed:
            await self.socket.send_str(json.dumps({"type": "claim"}))
        self.pinging = asyncio.create_task(self._ping(self.socket))  # (the offset found before is kept, as the page does)

    async def _ping(self, socket) -> None:
        """Five pings 150 ms apart, as the page does; the screen counts as joined once they are answered."""
        try:
            for n in range(5):
                await socket.send_str(json.dumps({"type": "ping", "t": time.time() * 1000}))
                await asyncio.sleep(0.15 if n < 4 else 0.3)
        except (ConnectionError, RuntimeError):
            return
        if not socket.closed and self.lost_at is None:
            self.connected.set()

    async def _listen(self) -> None:
        async for message in self.socket:
            if message.type.name != "TEXT":
                break
            data = json.loads(message.data)
            kind = data.get("type")
            if kind == "pong":
                now = time.time() * 1000
                rtt = now - data["t"]
                if rtt <= self.best_rtt + 5:
                    self.best_rtt = min(rtt, self.best_rtt)
                    self.offset_ms = data["server_ms"] - (data["t"] + rtt / 2)
            elif kind == "state":
                self._step("first state")
                self.playback = data["playback"]
                if self.lost_at is not None:
                    self.connected.set()  # back: the page follows the state at once
                if self.device and self.playback["status"] == "playing":
                    self.room.device_playing(self)
            if kind in ("pong", "state") and self.lost_at is not None and self.back_in_sync_s is None:
                self.sync_error()  # back after its worker died: in sync yet?
        raise ConnectionError("closed")

    def own_clock_error(self) -> float | None:
        """|this screen's clock - its room's device|, ms, connected or not: while its socket is down a
        page goes on counting from the last state it had, and the device goes on playing."""
        now = time.time() * 1000
        theirs, mine = self.room.sound_ms(now), self.clock_ms(now)
        return None if theirs is None or mine is None else abs(mine - theirs)

    def sync_error(self) -> float | None:
        """|this screen's clock - its room's device|, ms, now (None: no clock to compare); notes
        when a screen that lost its worker is first back within IN_SYNC_MS."""
        if self.device or not self.connected.is_set():
            return None
        error = self.own_clock_error()
        if error is None:
            return None
        if self.lost_at is not None and self.back_in_sync_s is None and error <= IN_SYNC_MS:
            self.back_in_sync_s = time.monotonic() - self.lost_at
        return error

    async def send(self, message: dict) -> None:
        if self.socket is not None and not self.socket.closed:
            await self.socket.send_str(json.dumps(message))


class Room:
    def __init__(self, game_id: str, code: str) -> None:
        self.game_id, self.code = game_id, code
        self.screens: list[Screen] = []
        self.start_ms: float | None = None  # the device's audio: position = epoch ms - start_ms
        self.claimed = False

    def device_playing(self, device: Screen) -> None:
        """The device (re)starts its audio where the shared clock says (as the page's follow())."""
        if self.start_ms is None:
            now = time.time() * 1000
            position = device.clock_ms(now)
            if position is not None:
                self.start_ms = now - position

    def sound_ms(self, now_ms: float) -> float | None:
        return None if self.start_ms is None else now_ms - self.start_ms


class Bench:
    def __init__(self, deployment: Deployment, rooms: int) -> None:
        self.deployment, self.n_rooms = deployment, rooms
        self.ws_base = f"wss://127.0.0.1:{deployment.https_port}"
        self.tls = deployment.tls()
        self.stop = asyncio.Event()
        self.rooms: list[Room] = []
        self.samples: list[float] = []
        self.errors: list[str] = []
        self.gave_up = 0
        self.sessions: list = []
        self.sampling = False
        self.outage = False  # a worker was killed and its screens are not all back
        self.outage_samples: list[float] = []

    async def sessions_open(self) -> None:
        import aiohttp

        for n in range(SOURCE_ADDRESSES):
            connector = aiohttp.TCPConnector(local_addr=(f"127.0.1.{n + 1}", 0), limit=0, ssl=self.tls)
            self.sessions.append(aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)))

    async def make_rooms(self, count: int) -> list[float]:
        """POST /api/lobby for `count` more rooms (16 at once); each answer's time in ms."""
        times: list[float] = []
        body = json.dumps({"track": "builtin:mission-1"})
        gate = asyncio.Semaphore(16)

        async def one(n: int) -> None:
            async with gate:
                session = self.sessions[n % SOURCE_ADDRESSES]
                started = time.monotonic()
                async with session.post(f"https://127.0.0.1:{self.deployment.https_port}/api/lobby", data=body,
                                        headers={"X-Timekeeper": "1", "Content-Type": "application/json"}) as reply:
                    made = await reply.json()
                    if reply.status != 201:
                        raise RuntimeError(f"room {n}: {reply.status} {made}")
                times.append((time.monotonic() - started) * 1000)
                self.rooms.append(Room(made["id"], made["code"]))

        await asyncio.gather(*(one(len(self.rooms) + n) for n in range(count)))
        return times

    async def join_all(self) -> list[asyncio.Task]:
        tasks = []
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        count = 0
        for room in self.rooms:
            for index in range(SCREENS_PER_ROOM):
                screen = Screen(self, room, index, self.sessions[count % SOURCE_ADDRESSES])
                count += 1
                room.screens.append(screen)

                async def start(screen=screen) -> None:
                    async with gate:
                        tasks.append(asyncio.create_task(screen.run()))
                        await asyncio.wait_for(screen.connected.wait(), 60)

                tasks.append(asyncio.create_task(start()))
        await asyncio.gather(*[t for t in list(tasks)])
        return tasks

    async def play_all(self) -> None:
        for room in self.rooms:
            device = room.screens[0]
            room.claimed = True
            await device.send({"type": "claim"})
            await device.send({"type": "play"})
            await asyncio.sleep(0.002)  # the crews press Play over a couple of seconds

    async def reporting(self) -> None:
        """Every sound device reports its audio position each second, at its own phase."""
        async def one(room: Room) -> None:
            await asyncio.sleep(random.random() * REPORT_EVERY_S)
            while not self.stop.is_set():
                position = room.sound_ms(time.time() * 1000)
                if position is not None and room.screens[0].connected.is_set():
                    try:
                        heard = position + random.uniform(-REPORT_JITTER_MS, REPORT_JITTER_MS)
                        await room.screens[0].send({"type": "report", "at_ms": heard, "playing": True,
                                                    "read_ms": time.time() * 1000 + room.screens[0].offset_ms})
                    except (ConnectionError, RuntimeError):
                        pass
                await asyncio.sleep(REPORT_EVERY_S)

        await asyncio.gather(*(one(room) for room in self.rooms))

    async def sampling_loop(self) -> None:
        """Every screen compares its clock with its room's device about once a second."""
        async def one(screen: Screen) -> None:
            await asyncio.sleep(random.random() * SAMPLE_EVERY_S)
            while not self.stop.is_set():
                error = screen.sync_error()
                if error is not None and self.sampling:
                    self.samples.append(error)
                if self.outage and screen.lost_at is not None and screen.back_in_sync_s is None:
                    error = screen.own_clock_error()  # (what its crew sees until it is back)
                    if error is not None:
                        self.outage_samples.append(error)
                await asyncio.sleep(SAMPLE_EVERY_S)

        await asyncio.gather(*(one(s) for room in self.rooms for s in room.screens if not s.device))

    async def close(self) -> None:
        for session in self.sessions:
            await session.close()


def probe(url: str, cafile: str, paths: list[str], seconds: float, out: str) -> None:
    """The prober process: GET the paths in turn for `seconds`; every answer's time in ms to `out`."""
    import urllib.request

    context = ssl.create_default_context(cafile=cafile)
    times: list[float] = []
    failures: list[str] = []
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        path = paths[n % len(paths)]
        n += 1
        started = time.monotonic()
        try:
            with urllib.request.urlopen(url + path, timeout=30, context=context) as reply:
                reply.read()
            times.append((time.monotonic() - started) * 1000)
        except OSError as error:
            failures.append(f"{path}: {error}"[:200])
        time.sleep(0.05)
    Path(out).write_text(json.dumps({"times": times, "failures": failures}))


async def start_renders(deployment: Deployment, rooms: list[Room], count: int) -> list[str]:
    """Ask for `count` soundtrack renders (each a different mix: its own pace), as crews would."""
    import aiohttp

    statuses: list[str] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=deployment.tls())) as session:
        for n in range(count):
            body = {"track": "builtin:mission-1", "settings": {"pace": round(1.05 + n * 0.05, 2)}}
            async with session.post(f"{deployment.url}/api/lobby", json=body, headers={"X-Timekeeper": "1"}) as reply:
                game = await reply.json()
                if reply.status != 201:
                    statuses.append(f"room refused: {reply.status} {game.get('code')}")
                    continue
            async with session.post(f"{deployment.url}/api/games/{game['id']}/renders", json={"format": "mp3"},
                                    headers={"X-Timekeeper": "1"}) as reply:
                answer = await reply.json()
                statuses.append(f"{reply.status} {answer.get('code', '')}".strip())
    return statuses


class Figures(dict):
    """The figures, each printed as soon as it is measured (a run stopped early still says what it found)."""

    def __setitem__(self, name: str, value: object) -> None:
        super().__setitem__(name, value)
        print(f"{name:<90} {value}", flush=True)


async def run(args, deployment: Deployment) -> dict:
    figures: dict[str, object] = Figures()
    figures["CPU pressure at the start (/proc/pressure/cpu)"] = cpu_pressure()
    bench = Bench(deployment, args.rooms)
    await bench.sessions_open()
    pids = [worker.process.pid for worker in deployment.workers]
    redis = deployment.redis_client()
    warm = min(WARM_ROOMS, args.rooms)
    await bench.make_rooms(warm)  # each worker prepares the rooms' mix (once): not counted per room
    for room in bench.rooms:
        for port in deployment.worker_ports:
            await asyncio.to_thread(deployment.request, f"/api/games/{room.game_id}", base=f"http://127.0.0.1:{port}")
    rss_before = [rss_mb(pid) for pid in pids]
    redis_before = int(redis.info("memory")["used_memory"])
    create_ms = await bench.make_rooms(args.rooms - warm)
    figures["rooms made (POST /api/lobby through nginx), p99 ms"] = round(quantile(create_ms, 0.99), 1)
    joining = time.monotonic()
    tasks = await bench.join_all()
    figures["time to join every screen (5 per room, through nginx), s"] = round(time.monotonic() - joining, 1)
    figures["WebSockets open"] = sum(1 for room in bench.rooms for s in room.screens if s.connected.is_set())
    side = [asyncio.create_task(bench.reporting()), asyncio.create_task(bench.sampling_loop())]
    await bench.play_all()
    await asyncio.sleep(3)  # every device has reported once or twice
    rss_after = [rss_mb(pid) for pid in pids]
    redis_after = int(redis.info("memory")["used_memory"])
    counted = max(1, args.rooms - warm)
    figures["worker memory per room (5 screens each), KB"] = round((sum(rss_after) - sum(rss_before)) * 1024 / counted, 1)
    figures["Redis memory per room, KB"] = round((redis_after - redis_before) / 1024 / counted, 1)
    figures["workers' resident memory, MB"] = [round(value) for value in rss_after]
    figures["mixes made for the rooms' mission 1 with one setting (Redis lock's count)"] = int(
        redis.get("timekeeper:tally:mix-made") or 0)

    # --- steady state, with 10 renders asked for and an API prober ---------------------------------
    processes = {"workers": pids, "nginx": family(deployment.nginx.pid), "redis": [deployment.redis.pid], "load": [os.getpid()]}
    cpu_before = {name: sum(cpu_s(pid) for pid in group) for name, group in processes.items()}
    steady_started = time.monotonic()
    bench.sampling = True
    out = Path(args.folder) / "probe.json"
    paths = []
    for room in random.sample(bench.rooms, min(20, len(bench.rooms))):
        paths += [f"/api/games/{room.game_id}", f"/api/join/{room.code}"]
    prober = subprocess.Popen([sys.executable, __file__, "--probe", deployment.url, str(deployment.cert), str(args.seconds),
                               str(out), *paths])
    render_statuses = await start_renders(deployment, bench.rooms, args.renders)
    await asyncio.sleep(args.seconds)
    await asyncio.to_thread(prober.wait, args.seconds + 60)
    probed = json.loads(out.read_text())
    bench.sampling = False
    steady_s = time.monotonic() - steady_started
    figures["CPU use in the steady state, cores (workers, nginx, redis, load)"] = tuple(
        round((sum(cpu_s(pid) for pid in group) - cpu_before[name]) / steady_s, 2) for name, group in processes.items())
    steady = list(bench.samples)
    figures["screens vs sound device, steady, ms (p50, p99, max)"] = (
        round(quantile(steady, 0.5), 1), round(quantile(steady, 0.99), 1), round(max(steady, default=float("nan")), 1))
    figures["clock samples"] = len(steady)
    figures[f"API p99 ms while {args.renders} renders were asked for (p50, p99, max; answers, failures)"] = (
        round(quantile(probed["times"], 0.5), 1), round(quantile(probed["times"], 0.99), 1),
        round(max(probed["times"], default=float("nan")), 1), len(probed["times"]), len(probed["failures"]))
    if probed["failures"]:
        figures["API failures (first 3)"] = probed["failures"][:3]
    figures["render requests answered (status: count)"] = {str(s): render_statuses.count(s) for s in set(render_statuses)}

    # --- a worker killed mid-mission ------------------------------------------------------------
    on_killed = sum(1 for room in bench.rooms for s in room.screens)  # every screen is watched
    errors_before_kill = len(bench.errors)
    survivors = {"worker": pids[1:], "nginx": family(deployment.nginx.pid), "redis": [deployment.redis.pid], "load": [os.getpid()]}
    cpu_before = {name: sum(cpu_s(pid) for pid in group) for name, group in survivors.items()}
    deployment.kill_worker(0)  # (the closed sockets' errors are counted, not shown)
    killed = time.monotonic()
    bench.outage = True
    deadline = killed + RECONNECT_LIMIT_S
    while time.monotonic() < deadline:
        lost = [s for room in bench.rooms for s in room.screens if s.lost_at is not None and not s.device]
        if lost and all(s.back_in_sync_s is not None for s in lost) and time.monotonic() - killed > 8:
            break
        await asyncio.sleep(0.5)
    bench.outage = False
    outage = bench.outage_samples
    figures["worker killed: screens not back yet, their own clocks vs the device, ms (p50, p99, max; samples)"] = (
        round(quantile(outage, 0.5), 1), round(quantile(outage, 0.99), 1), round(max(outage, default=float("nan")), 1),
        len(outage))
    figures["worker killed: CPU used from the kill until the screens were back (8 s at least), s (surviving worker, nginx, redis, load)"] = tuple(
        round(sum(cpu_s(pid) for pid in group) - cpu_before[name], 1) for name, group in survivors.items())
    lost = [s for room in bench.rooms for s in room.screens if s.lost_at is not None]
    followers = [s for s in lost if not s.device]
    back = [s.back_in_sync_s for s in followers if s.back_in_sync_s is not None]
    figures["worker killed: screens that lost their worker (of all)"] = (len(lost), on_killed)
    figures["worker killed: connections lost and reconnections failed (kinds)"] = dict(
        collections.Counter(bench.errors[errors_before_kill:]))
    figures["worker killed: back within 100 ms of the device, s (p50, p99, max; not back)"] = (
        round(quantile(back, 0.5), 2), round(quantile(back, 0.99), 2), round(max(back), 2) if back else None,
        len(followers) - len(back))
    missing = 0
    for room in bench.rooms:
        seen = deployment.request(f"/api/games/{room.game_id}")
        if seen.status != 200 or seen.json()["playback"]["status"] != "playing":
            missing += 1
    for step in ("asked again", "WebSocket open", "first state"):
        times = [s.phases[step] for s in followers if step in s.phases]
        figures[f"worker killed: '{step}' after the loss, s (p50, p99)"] = (
            round(quantile(times, 0.5), 2), round(quantile(times, 0.99), 2))
    figures["worker killed: rooms lost or not playing"] = missing
    bench.stop.set()
    for task in side:
        task.cancel()
    for room in bench.rooms:
        for screen in room.screens:
            if screen.socket is not None:
                await screen.socket.close()
    await asyncio.gather(*tasks, return_exceptions=True)
    await bench.close()
    figures["client errors (kinds)"] = {kind: bench.errors.count(kind) for kind in set(bench.errors)}
    figures["CPU pressure at the end (/proc/pressure/cpu)"] = cpu_pressure()
    figures["screens that gave up reconnecting"] = bench.gave_up
    return figures


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        url, cafile, seconds, out, *paths = sys.argv[2:]
        probe(url, cafile, paths, float(seconds), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=1000, help="rooms (default 1000), 5 screens each")
    parser.add_argument("--seconds", type=float, default=30.0, help="steady-state measuring time (default 30)")
    parser.add_argument("--renders", type=int, default=10, help="soundtrack renders asked for meanwhile (default 10)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped (timeout): the deployment is stopped too
    limit = raise_open_files()
    if limit < args.rooms * SCREENS_PER_ROOM + 200:
        sys.exit(f"the open-files limit is {limit}; {args.rooms * SCREENS_PER_ROOM + 200} are needed (ulimit -n)")
    print(f"{args.rooms} rooms x {SCREENS_PER_ROOM} screens, 2 workers, redis-server, nginx (TLS) on loopback", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        args.folder = folder
        figures: dict = {}
        env = {"TIMEKEEPER_CACHE": str(Path(folder) / "cold-cache"), "TIMEKEEPER_DEFAULT_VOICE": "synthesized"}
        screens_per_worker = str(args.rooms * SCREENS_PER_ROOM + 100)  # one worker holds them all once the other dies
        deployment = deploy(Path(folder) / "deploy", 2, extra=("--max-screens", screens_per_worker), env=env)
        try:
            figures = uvloop.run(run(args, deployment))  # (the load's own TLS in C: it stands in for 5,000 phones)
        finally:
            deployment.stop()
            log = Path(folder) / "deploy" / "nginx" / "error.log"
            if log.exists():  # what nginx said, by kind ("no live upstreams", "upstream timed out", ...)
                said = collections.Counter(re.sub(r"^.*?\] \d+#\d+: (\*\d+ )?", "", line).split(" while ")[0][:80]
                                           for line in log.read_text(errors="replace").splitlines())
                print(f"nginx said: {dict(said.most_common(6))}", file=sys.stderr)
            for n, worker in enumerate(deployment.workers):  # what a worker said (errors are one line each)
                said = [line for line in "".join(worker.output).splitlines() if "error" in line.lower()]
                if said:
                    print(f"worker {n} said: " + " | ".join(said[:5]), file=sys.stderr)
    print(f"({args.rooms} rooms x {SCREENS_PER_ROOM} screens, 2 workers, redis-server, nginx (TLS) on loopback)")
    if os.environ.get("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
