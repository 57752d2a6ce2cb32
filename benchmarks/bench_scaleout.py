"""Load test of a scaled-out deployment on loopback: Debian's redis-server, two `timekeeper serve
--redis` workers and nginx running deploy/nginx.conf with TLS (tests/scaleout.py starts them).

    python benchmarks/bench_scaleout.py                         # 1,000 rooms x 5 screens (the issue's load)
    python benchmarks/bench_scaleout.py --rooms 50 --seconds 10 # a quick look
    python benchmarks/bench_scaleout.py --rolling --rooms 300   # a rolling restart instead of a worker killed

Measures (targets of issue 25):
- every joined screen's clock vs its room's sound device, p99 <= 100 ms: each room has one sound
  device (it claims the sound, plays, reports its position every half second as the page does, each
  report off by up to 15 ms as a browser's audio clock reads; its worker watches that it advances) and four
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
- with --rolling instead: both workers stopped with SIGTERM one after the other and started again
  (docs/hosting.md's upgrade; each moves its screens to the other over its --drain window) while
  one room in ten presses Pause and Play throughout: every other screen's clock against its
  device meanwhile (target: never more than 100 ms), the commands lost and the rooms lost (none),
  the screens that had to reconnect, each process's CPU;
- the rooms asking for mission 1 with the same settings (every room here): mixes made (the Redis
  lock's count, target 1) with an empty clip cache;
- memory per room: the workers' resident memory and Redis's, before and after the rooms.

The screens speak the page's protocol as tests/pagesocket.py does (the sound device follows the
room's clock as a speaker's audio element does). Every process runs on this machine, so the screens keep
time by its one clock: their pings are sent and answered as the page's are (the server's work),
but the offset they measure is not used (on this load generator, which stands in for thousands of
phones on a CPU it shares, a ping's round trip reaches a second and its offset is off by half of
it: a phone's own CPU does not lag like that). Connections come from 100 loopback addresses
(127.0.1.1 ...), as many phones would: nginx allows
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

from pagesocket import PING_EVERY_S, PINGS, PageSocket, Sound, apart_ms
from processes import family
from scaleout import Deployment, deploy, raise_open_files

SCREENS_PER_ROOM = 5
SOURCE_ADDRESSES = 100
REPORT_JITTER_MS = 15.0  # a browser's audio.currentTime moves in steps of its audio buffer: each report is off by up to this
SAMPLE_EVERY_S = 1.0
IN_SYNC_MS = 100.0
CONNECT_AT_ONCE = 64
RECONNECT_LIMIT_S = 30.0
# The page sets no timeout on opening its WebSocket (a browser waits minutes for a handshake);
# giving one up after a few seconds would throw its work away and queue it again at the back.
OPEN_TIMEOUT_S = RECONNECT_LIMIT_S
WARM_ROOMS = 4  # made first: the workers' one-time memory (the prepared mix) is not counted per room
BUSY_EVERY = 10  # --rolling: one room in ten presses Pause and Play throughout
COMMAND_EVERY_S = 2.0
AFTER_RESTART_S = 5.0  # --rolling: docs/hosting.md's wait before the next worker


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


class Screen(PageSocket):
    """One joined screen (or the room's sound device) speaking the page's protocol
    (tests/pagesocket.py), noting each step back after its worker went away."""

    def __init__(self, bench: Bench, room: Room, index: int, session) -> None:
        super().__init__(session, bench.ws_base, room.game_id, f"{room.game_id}-{index}",
                         sound=Sound() if index == 0 else None, ssl=bench.tls, same_clock=True)
        self.bench, self.room = bench, room
        self.lost_at: float | None = None  # monotonic time its worker went away (None: connected)
        self.back_in_sync_s: float | None = None
        self.phases: dict[str, float] = {}  # after its worker died: seconds from lost_at to each step back
        self.on_lost = Screen._lost

    def _lost(self) -> None:
        if self.lost_at is None:
            self.lost_at = time.monotonic()

    async def run(self, give_up_s: float = RECONNECT_LIMIT_S) -> None:
        await super().run(give_up_s)
        if not self.stop.is_set():
            self.bench.gave_up += 1

    def _step(self, name: str) -> None:
        if self.lost_at is not None and name not in self.phases:
            self.phases[name] = time.monotonic() - self.lost_at

    async def _open(self):
        self._step("asked again")
        socket = await super()._open()
        self._step("WebSocket open")
        return socket

    def _receive(self, socket, data: dict) -> None:
        super()._receive(socket, data)
        kind = data.get("type")
        if kind == "state" and socket is self.socket:
            self._step("first state")
        if kind in ("pong", "state") and self.lost_at is not None and self.back_in_sync_s is None:
            self.sync_error()  # back after its worker died: in sync yet?

    def own_clock_error(self) -> float | None:
        """|this screen's clock - its room's device|, ms, connected or not: while its socket is down a
        page goes on counting from the last state it had, and the device goes on playing."""
        return apart_ms(self, self.room.device)

    def sync_error(self) -> float | None:
        """|this screen's clock - its room's device|, ms, now (None: no clock to compare); notes
        when a screen that lost its worker is first back within IN_SYNC_MS."""
        if self.device or not self.joined.is_set():
            return None
        error = self.own_clock_error()
        if error is None:
            return None
        if self.lost_at is not None and self.back_in_sync_s is None and error <= IN_SYNC_MS:
            self.back_in_sync_s = time.monotonic() - self.lost_at
        return error


class Room:
    def __init__(self, game_id: str, code: str) -> None:
        self.game_id, self.code = game_id, code
        self.screens: list[Screen] = []
        self.sent = 0  # commands its screens sent (a rolling restart's busy rooms)
        self.dropped = 0  # ... that found no open socket
        self.last = "play"

    @property
    def device(self) -> Screen:
        return self.screens[0]


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
                        await asyncio.wait_for(screen.joined.wait(), 60)
                        await asyncio.sleep(PINGS * PING_EVERY_S)  # (its pings answered before the next joins)

                tasks.append(asyncio.create_task(start()))
        await asyncio.gather(*[t for t in list(tasks)])
        return tasks

    async def play_all(self) -> None:
        for room in self.rooms:
            await room.device.claim()
            await room.device.send({"type": "play"})
            await asyncio.sleep(0.002)  # the crews press Play over a couple of seconds

    async def reporting(self) -> None:
        """Every sound device reports its audio position every half second, at its own phase."""
        await asyncio.gather(*(room.device.reporting(REPORT_JITTER_MS) for room in self.rooms))

    @property
    def screens(self) -> list[Screen]:
        return [screen for room in self.rooms for screen in room.screens]

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
        self.stop.set()
        for screen in self.screens:
            await screen.close()
        for session in self.sessions:
            await session.close()
        self.errors += [error for screen in self.screens for error in screen.errors]


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
    figures["WebSockets open"] = sum(1 for s in bench.screens if s.joined.is_set())
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

    if args.rolling:
        await rolling_restart(args, deployment, bench, figures)
    else:
        await kill_one(deployment, bench, figures)
    for task in side:
        task.cancel()
    await bench.close()
    await asyncio.gather(*tasks, *side, return_exceptions=True)
    figures["client errors (kinds)"] = dict(collections.Counter(bench.errors))
    figures["CPU pressure at the end (/proc/pressure/cpu)"] = cpu_pressure()
    figures["screens that gave up reconnecting"] = bench.gave_up
    return figures


def errors_now(bench: Bench) -> list[str]:
    return [error for screen in bench.screens for error in screen.errors]


def rooms_not_playing(deployment: Deployment, rooms: list[Room]) -> int:
    missing = 0
    for room in rooms:
        seen = deployment.request(f"/api/games/{room.game_id}")
        if seen.status != 200 or seen.json()["playback"]["status"] != "playing":
            missing += 1
    return missing


async def kill_one(deployment: Deployment, bench: Bench, figures: dict) -> None:
    """One worker killed (SIGKILL) mid-mission: its screens reconnect through nginx to the other."""
    on_killed = len(bench.screens)  # every screen is watched
    errors_before_kill = len(errors_now(bench))
    pids = [worker.process.pid for worker in deployment.workers]
    survivors = {"worker": pids[1:], "nginx": family(deployment.nginx.pid), "redis": [deployment.redis.pid], "load": [os.getpid()]}
    cpu_before = {name: sum(cpu_s(pid) for pid in group) for name, group in survivors.items()}
    deployment.kill_worker(0)  # (the closed sockets' errors are counted, not shown)
    killed = time.monotonic()
    bench.outage = True
    deadline = killed + RECONNECT_LIMIT_S
    while time.monotonic() < deadline:
        lost = [s for s in bench.screens if s.lost_at is not None and not s.device]
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
    lost = [s for s in bench.screens if s.lost_at is not None]
    followers = [s for s in lost if not s.device]
    back = [s.back_in_sync_s for s in followers if s.back_in_sync_s is not None]
    figures["worker killed: screens that lost their worker (of all)"] = (len(lost), on_killed)
    figures["worker killed: connections lost and reconnections failed (kinds)"] = dict(
        collections.Counter(errors_now(bench)[errors_before_kill:]))
    figures["worker killed: back within 100 ms of the device, s (p50, p99, max; not back)"] = (
        round(quantile(back, 0.5), 2), round(quantile(back, 0.99), 2), round(max(back), 2) if back else None,
        len(followers) - len(back))
    for step in ("asked again", "WebSocket open", "first state"):
        times = [s.phases[step] for s in followers if step in s.phases]
        figures[f"worker killed: '{step}' after the loss, s (p50, p99)"] = (
            round(quantile(times, 0.5), 2), round(quantile(times, 0.99), 2))
    figures["worker killed: rooms lost or not playing"] = await asyncio.to_thread(rooms_not_playing, deployment, bench.rooms)


async def rolling_restart(args, deployment: Deployment, bench: Bench, figures: dict) -> None:
    """Both workers stopped with SIGTERM one after the other and started again (docs/hosting.md's
    upgrade), while every room plays and the screens of one room in BUSY_EVERY press Pause and
    Play every few seconds: every screen's clock against its device (the other rooms'), the
    commands lost, the rooms lost, each process's CPU."""
    busy = bench.rooms[::BUSY_EVERY]
    steady = [room for room in bench.rooms if room not in busy]
    before = {room.game_id: room.device.changes for room in busy}
    samples: list[float] = []
    done = asyncio.Event()

    async def sample(screen: Screen) -> None:
        await asyncio.sleep(random.random() * SAMPLE_EVERY_S)
        while not done.is_set():
            apart = apart_ms(screen, screen.room.device)
            if apart is not None:
                samples.append(apart)
            await asyncio.sleep(SAMPLE_EVERY_S)

    async def press(room: Room) -> None:
        while not done.is_set():
            await asyncio.sleep(COMMAND_EVERY_S * (0.5 + random.random()))
            room.last = "pause" if room.last == "play" else "play"
            if await random.choice(room.screens).send({"type": room.last}):
                room.sent += 1
            else:
                room.dropped += 1

    side = [asyncio.create_task(sample(screen)) for room in steady for screen in room.screens[1:]]
    side += [asyncio.create_task(press(room)) for room in busy]
    others = {"nginx": family(deployment.nginx.pid), "redis": [deployment.redis.pid], "load": [os.getpid()]}
    cpu_before = {name: sum(cpu_s(pid) for pid in group) for name, group in others.items()}
    workers_before = sum(cpu_s(worker.process.pid) for worker in deployment.workers)
    started = time.monotonic()
    drains = []
    for index in range(len(deployment.workers)):
        other = deployment.workers[1 - index].process.pid
        other_before = cpu_s(other)
        drains.append((await asyncio.to_thread(deployment.drain_worker, index), cpu_s(other) - other_before))
        await asyncio.to_thread(deployment.start_worker, index)
        await asyncio.sleep(AFTER_RESTART_S)  # as docs/hosting.md's procedure waits before the next worker
    took = time.monotonic() - started
    done.set()
    await asyncio.gather(*side)
    await asyncio.sleep(1.0)  # the last commands' states arrive everywhere
    new_workers = sum(cpu_s(worker.process.pid) for worker in deployment.workers)
    figures["rolling restart: both workers stopped (SIGTERM) and started again, s"] = round(took, 1)
    for n, ((drained, other_cpu), worker) in enumerate(zip(drains, deployment.old_workers, strict=True)):
        said = re.search(r"stopped in .*", "".join(worker.output))
        figures[f"rolling restart: worker {n} exit status, s to exit, its CPU s since start; the other's CPU s meanwhile"] = (
            drained.status, round(drained.seconds, 1), round(drained.cpu_s, 1), round(other_cpu, 1))
        figures[f"rolling restart: worker {n} said"] = said.group(0) if said else "(nothing)"
    figures["rolling restart: CPU used meanwhile, s (workers old and new, nginx, redis, load)"] = (
        round(sum(drained.cpu_s for drained, _ in drains) + new_workers - workers_before, 1),
        *(round(sum(cpu_s(pid) for pid in group) - cpu_before[name], 1) for name, group in others.items()))
    figures["rolling restart: screens vs sound device meanwhile, ms (p50, p99, max; samples; over 100 ms)"] = (
        round(quantile(samples, 0.5), 1), round(quantile(samples, 0.99), 1), round(max(samples, default=float("nan")), 1),
        len(samples), sum(1 for value in samples if value > IN_SYNC_MS))
    screens = bench.screens
    figures["rolling restart: screens moved at least once, closed by a worker, that lost their socket (of all)"] = (
        sum(1 for s in screens if s.moves), sum(1 for s in screens if s.closed_by_server), sum(1 for s in screens if s.lost),
        len(screens))
    redis = deployment.redis_client()
    lost = 0
    for room in busy:
        clock = json.loads(redis.hget(f"timekeeper:game:{room.game_id}", "clock") or "{}")
        lost += room.sent - (int(clock.get("changes", 0)) - int(before[room.game_id] or 0))
    figures["rolling restart: commands sent, found no socket, lost (busy rooms)"] = (
        sum(room.sent for room in busy), sum(room.dropped for room in busy), lost)
    figures["rolling restart: rooms lost or not playing (of the rooms that only play)"] = (
        await asyncio.to_thread(rooms_not_playing, deployment, steady), len(steady))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        url, cafile, seconds, out, *paths = sys.argv[2:]
        probe(url, cafile, paths, float(seconds), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=1000, help="rooms (default 1000), 5 screens each")
    parser.add_argument("--seconds", type=float, default=30.0, help="steady-state measuring time (default 30)")
    parser.add_argument("--renders", type=int, default=10, help="soundtrack renders asked for meanwhile (default 10)")
    parser.add_argument("--rolling", action="store_true",
                        help="a rolling restart of both workers (SIGTERM, started again) instead of a worker killed")
    parser.add_argument("--drain", type=float, default=10.0, help="with --rolling: the workers' drain window, s (default 10)")
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
        deployment = deploy(Path(folder) / "deploy", 2, extra=("--max-screens", screens_per_worker, "--drain", str(args.drain)),
                            env=env)
        try:
            figures = uvloop.run(run(args, deployment))  # (the load's own TLS in C: it stands in for 5,000 phones)
        finally:
            deployment.stop()
            log = Path(folder) / "deploy" / "nginx" / "error.log"
            if log.exists():  # what nginx said, by kind ("no live upstreams", "upstream timed out", ...)
                said = collections.Counter(re.sub(r"^.*?\] \d+#\d+: (\*\d+ )?", "", line).split(" while ")[0][:80]
                                           for line in log.read_text(errors="replace").splitlines())
                print(f"nginx said: {dict(said.most_common(6))}", file=sys.stderr)
            for n, worker in enumerate([*deployment.old_workers, *deployment.workers]):  # errors are one line each
                said = [line for line in "".join(worker.output).splitlines() if "error" in line.lower()]
                if said:
                    print(f"worker {n} said: " + " | ".join(said[:5]), file=sys.stderr)
    print(f"({args.rooms} rooms x {SCREENS_PER_ROOM} screens, 2 workers, redis-server, nginx (TLS) on loopback)")
    if os.environ.get("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
