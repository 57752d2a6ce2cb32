"""What a screen that rejoins costs a worker: the CPU a `timekeeper serve --redis` worker spends
when the screens of another worker that died all reconnect to it at once, without a proxy.

    python benchmarks/bench_rejoin.py                       # 200 playing rooms x 5 screens: 1,000 rejoin
    python benchmarks/bench_rejoin.py --rooms 40            # a quick look
    python benchmarks/bench_rejoin.py --profile rejoin.prof # the surviving worker under cProfile meanwhile
    python benchmarks/bench_rejoin.py --py-spy rejoin.txt   # ... or sampled by py-spy (no overhead)
    python benchmarks/bench_rejoin.py --floor               # a bare aiohttp WebSocket server instead

On loopback: Debian's redis-server and two workers sharing it (tests/scaleout.py starts them as
docs/hosting.md does). Every room is made on the survivor (so it has met the games, as the other
worker of a deployment has), its five screens join the doomed worker directly and speak the page's
protocol as tests/pagesocket.py does (serve/assets/connection.js): hello, the sound device's claim,
five clock pings 150 ms apart; the device plays and reports its position every second. Then the
doomed worker is killed (SIGKILL): every screen is dropped at once and, after the page's wait (0.5 s
spread over 0.25-0.75 s), joins the survivor as the page joins again: hello, the device's claim,
one ping (the offset found before is kept). Every process runs on this machine, so the screens keep
time by its clock (tests/pagesocket.py's same_clock).

Measures:
- the survivor's CPU (user + system, /proc) from the kill until every screen is back, its ping
  answered and every room told who is connected (no presence list for QUIET_S), less the missions' steady share: the survivor's CPU a second once every screen is back
  (measured afterwards over as long a window, 5-30 s), counted for the screen-seconds the screens
  were back within the window; per rejoining screen, in ms;
- each screen's time from the kill until it is back within 100 ms of its room's sound device
  (p50, p99), and until its WebSocket was open again;
- every room still playing on the survivor afterwards.

`--floor` measures the same rejoins on a bare aiohttp server on uvloop (serve/web/app.py's loop)
that only opens the WebSocket, sends one state and answers the pings: what any rejoin costs here,
whatever timekeeper does (aiohttp's handshake and the messages' frames: the floor).

The load average and CPU pressure are printed: CPU measured per process from /proc is robust to a
busy machine, wall times are not. The open-files limit of this process is raised to its hard limit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_scaleout import cpu_s, quantile
from pagesocket import PING_EVERY_S, PINGS, PageSocket, Sound, apart_ms
from scaleout import free_port, raise_open_files, start_redis, stop_process, wait_listening
from serving import Server, start_server

SCREENS_PER_ROOM = 5
SOURCE_ADDRESSES = 100  # connections come from 127.0.1.1 ... (a worker allows 64 screens per address)
REPORT_JITTER_MS = 15.0  # a browser's audio clock reads in steps: each report is off by up to this
IN_SYNC_MS = 100.0
JOIN_AT_ONCE = 64
BACK_LIMIT_S = 60.0  # the longest the rejoin is waited for
STEADY_MIN_S, STEADY_MAX_S = 5.0, 30.0
SETTLE_S = 3.0  # after every screen joined the doomed worker and the rooms play
QUIET_S = 1.0  # the rejoin is over once no presence list has been sent for this long


def machine_load() -> str:
    load = Path("/proc/loadavg").read_text().split()[:3]
    try:
        pressure = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        pressure = "unknown"
    return f"load average {' '.join(load)}; CPU pressure {pressure}"


class Screen(PageSocket):
    """One screen (index 0: the room's sound device) speaking the page's protocol, noting when it
    was back after the kill."""

    def __init__(self, bench: Bench, game_id: str, index: int, session) -> None:
        super().__init__(session, bench.worker_url.replace("http", "ws", 1), game_id, f"{game_id}-{index}",
                         sound=Sound() if index == 0 else None, same_clock=True, pings_again=bench.pings_again)
        self.lost_at: float | None = None
        self.open_s: float | None = None  # after the kill: when its socket was open again
        self.state_s: float | None = None  # ... when the game's state came
        self.pinged_s: float | None = None  # ... when its ping was answered
        self.back_s: float | None = None  # ... when it was back within IN_SYNC_MS of the device
        self.on_lost = Screen._lost
        self.device_screen: Screen | None = None
        self.bench = bench
        self.presence_lists = 0  # presence lists it was sent since the kill

    def _lost(self) -> None:
        if self.lost_at is None:
            self.lost_at = time.monotonic()

    def _since(self) -> float:
        assert self.lost_at is not None
        return time.monotonic() - self.lost_at

    async def _open(self):
        socket = await super()._open()
        if self.lost_at is not None and self.open_s is None:
            self.open_s = self._since()
        return socket

    def _receive(self, socket, data: dict) -> None:
        super()._receive(socket, data)
        if self.lost_at is None or socket is not self.socket:
            return
        kind = data.get("type")
        if kind == "presence":
            self.bench.last_presence = time.monotonic()
            self.presence_lists += 1
        if kind == "state" and self.state_s is None:
            self.state_s = self._since()
        if kind == "pong" and self.pinged_s is None:
            self.pinged_s = self._since()
        if kind in ("pong", "state") and self.back_s is None:
            apart = 0.0 if self.device_screen is None else apart_ms(self, self.device_screen)
            if apart is not None and apart <= IN_SYNC_MS:
                self.back_s = self._since()

    @property
    def rejoined(self) -> bool:
        """Back after the kill: the game's state came and its ping was answered."""
        return self.state_s is not None and self.pinged_s is not None


class Bench:
    def __init__(self, worker_url: str, pings_again: int) -> None:
        self.worker_url, self.pings_again = worker_url, pings_again
        self.last_presence = 0.0  # when a screen was last sent who is connected (monotonic s)
        self.rooms: list[list[Screen]] = []
        self.sessions: list = []

    async def open_sessions(self) -> None:
        import aiohttp

        for n in range(SOURCE_ADDRESSES):
            connector = aiohttp.TCPConnector(local_addr=(f"127.0.1.{n + 1}", 0), limit=0)
            self.sessions.append(aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)))

    async def join(self, game_ids: list[str]) -> list[asyncio.Task]:
        tasks: list[asyncio.Task] = []
        gate = asyncio.Semaphore(JOIN_AT_ONCE)
        for game_id in game_ids:
            room = [Screen(self, game_id, index, self.sessions[(len(self.screens) + index) % SOURCE_ADDRESSES])
                    for index in range(SCREENS_PER_ROOM)]
            for screen in room[1:]:
                screen.device_screen = room[0]
            self.rooms.append(room)

        async def start(screen: Screen) -> None:
            async with gate:
                tasks.append(asyncio.create_task(screen.run(BACK_LIMIT_S)))
                await asyncio.wait_for(screen.joined.wait(), BACK_LIMIT_S)
                await asyncio.sleep(PINGS * PING_EVERY_S)  # (its pings answered before the next joins)

        await asyncio.gather(*(start(screen) for screen in self.screens))
        return tasks

    async def play(self) -> None:
        for room in self.rooms:
            await room[0].claim()
            await room[0].send({"type": "play"})
            await asyncio.sleep(0.002)

    async def reporting(self) -> None:
        """Every sound device reports its audio position each second, at its own phase."""
        await asyncio.gather(*(room[0].reporting(REPORT_JITTER_MS) for room in self.rooms))

    def rejoin_at(self, worker_url: str) -> None:
        """Where the screens' next sockets go (nginx would send them to the worker alive)."""
        for screen in self.screens:
            screen.url = worker_url.replace("http", "ws", 1)

    @property
    def screens(self) -> list[Screen]:
        return [screen for room in self.rooms for screen in room]

    async def close(self) -> None:
        for screen in self.screens:
            await screen.close()
        for session in self.sessions:
            await session.close()


def redis_commands(port: int | None) -> dict[str, int]:
    """How often Redis has carried out each command so far (INFO commandstats; {} without Redis).
    After the kill only the survivor sends any (the benchmark's own INFO aside)."""
    if port is None:
        return {}
    import redis

    with redis.Redis(port=port) as client:
        stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(fields["calls"]) for name, fields in stats.items()
            if name not in ("cmdstat_info",)}


# --- the workers ---------------------------------------------------------------------------------
PROFILER_PRELUDE = """
import cProfile, signal, time
_profiler = cProfile.Profile(time.thread_time)  # CPU time: on a busy machine wall time would blame whoever was preempted
signal.signal(signal.SIGUSR1, lambda *_: _profiler.enable())
def _dump(*_):
    _profiler.disable()
    _profiler.dump_stats({out!r})
signal.signal(signal.SIGUSR2, _dump)
"""


def start_workers(folder: Path, redis_url: str, screens: int, profile: str | None) -> list[Server]:
    """The doomed worker and the survivor (under cProfile, toggled by SIGUSR1 and SIGUSR2, if `profile`)."""
    env = {"TIMEKEEPER_CACHE": str(folder / "cache"), "TIMEKEEPER_DEFAULT_VOICE": "synthesized"}
    workers = []
    for n in range(2):
        prelude = PROFILER_PRELUDE.format(out=str(Path(profile).resolve())) if profile and n == 1 else ""
        workers.append(start_server(folder / "state", "--redis", redis_url, "--behind-proxy", "--sound-cache",
                                    str(folder / "sound"), "--renders", str(folder / "renders"), "--max-screens",
                                    str(screens + 100), env=env, prelude=prelude))
    return workers


async def make_rooms(base: str, count: int) -> list[str]:
    """`count` lobby rooms of mission 1 made on the worker at `base`, each read back once its mix is ready."""
    import aiohttp

    made: list[str] = []
    gate = asyncio.Semaphore(8)
    async with aiohttp.ClientSession() as session:
        async def one() -> None:
            async with gate:
                async with session.post(f"{base}/api/lobby", json={"track": "builtin:mission-1"},
                                        headers={"X-Timekeeper": "1"}) as reply:
                    room = await reply.json()
                    if reply.status != 201:
                        raise RuntimeError(f"a room was refused: {reply.status} {room}")
                async with session.get(f"{base}/api/games/{room['id']}") as reply:  # (waits for the mix)
                    await reply.read()
                made.append(room["id"])

        await one()  # the mix is prepared once, then every room finds it
        await asyncio.gather(*(one() for _ in range(count - 1)))
    return made


async def read_games(base: str, game_ids: list[str]) -> list[dict | None]:
    """GET /api/games/ID of each game on the worker at `base` (None: not answered with 200)."""
    import aiohttp

    read: list[dict | None] = []
    async with aiohttp.ClientSession() as session:
        for game_id in game_ids:
            async with session.get(f"{base}/api/games/{game_id}") as reply:
                read.append(await reply.json() if reply.status == 200 else None)
    return read


# --- a bare aiohttp server: the floor -------------------------------------------------------------
def bare_server(port: int, start_ms: float) -> None:
    """A WebSocket route that only opens the socket, sends the one state every room plays by and
    answers pings (aiohttp on uvloop, as serve/web/app.py runs)."""
    from aiohttp import WSMsgType, web

    state = json.dumps({"type": "state", "playback": {"status": "playing", "position_ms": 0.0, "at_ms": start_ms}})

    async def screen(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096, compress=False)
        await socket.prepare(request)
        await socket.send_str(state)
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if data.get("type") == "ping":
                await socket.send_str(json.dumps({"type": "pong", "t": data["t"], "server_ms": time.time() * 1000}))
        return socket

    app = web.Application()
    app.router.add_get("/api/games/{game}/ws", screen)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None, backlog=4096,
                loop=uvloop.new_event_loop())


def start_bare(start_ms: float) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, __file__, "--bare-server", str(port), str(start_ms)])
    wait_listening(port, process, "the bare server")
    return process, port


# --- the measurement ------------------------------------------------------------------------------
class Figures(dict):
    def __setitem__(self, name: str, value: object) -> None:
        super().__setitem__(name, value)
        print(f"{name:<84} {value}", flush=True)


async def measure(args, doomed: subprocess.Popen, doomed_url: str, survivor: subprocess.Popen, survivor_url: str,
                  game_ids: list[str]) -> Figures:
    figures = Figures()
    bench = Bench(doomed_url, args.pings_again)
    await bench.open_sessions()
    started = time.monotonic()
    tasks = await bench.join(game_ids)
    figures["screens joined to the doomed worker (s)"] = (len(bench.screens), round(time.monotonic() - started, 1))
    await bench.play()
    reporting = asyncio.create_task(bench.reporting())
    await asyncio.sleep(SETTLE_S)

    bench.rejoin_at(survivor_url)
    spy = None
    if args.py_spy:
        spy = subprocess.Popen(["py-spy", "record", "--pid", str(survivor.pid), "--rate", "250", "--format", "raw",
                                "--output", args.py_spy, "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        await asyncio.sleep(1.0)
    if args.profile:
        survivor.send_signal(signal.SIGUSR1)
    figures["the machine before the kill"] = machine_load()
    commands_before = redis_commands(args.redis_port)
    cpu_before = cpu_s(survivor.pid)
    doomed.kill()
    killed = time.monotonic()
    doomed.wait(timeout=10)
    while time.monotonic() - killed < BACK_LIMIT_S and not all(s.rejoined for s in bench.screens):
        await asyncio.sleep(0.05)
    rejoined_s = time.monotonic() - killed
    # ... and until the survivor has told every room who is back: no presence list for QUIET_S (the
    # lists a burst of arrivals asks for may be sent well after the last arrival)
    while time.monotonic() - killed < BACK_LIMIT_S and time.monotonic() - bench.last_presence < QUIET_S:
        await asyncio.sleep(0.05)
    told_s = max(bench.last_presence - killed, 0.0)
    window_s = time.monotonic() - killed
    cpu_rejoin = cpu_s(survivor.pid) - cpu_before
    commands = {name: count - commands_before.get(name, 0) for name, count in redis_commands(args.redis_port).items()}
    if args.profile:
        survivor.send_signal(signal.SIGUSR2)
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        await asyncio.to_thread(spy.wait, 60)
    back = [s for s in bench.screens if s.rejoined]
    # every screen's seconds back within the window (from its socket open again): the missions' share
    present_s = sum(window_s - s.open_s for s in back if s.open_s is not None)

    steady_s = min(max(window_s, STEADY_MIN_S), STEADY_MAX_S)
    await asyncio.sleep(0.5)  # (the profile's dump, the last presence lists)
    cpu_steady_before, steady_started = cpu_s(survivor.pid), time.monotonic()
    await asyncio.sleep(steady_s)
    steady_rate = (cpu_s(survivor.pid) - cpu_steady_before) / (time.monotonic() - steady_started)
    missions_share = steady_rate * present_s / max(1, len(back))
    net = cpu_rejoin - missions_share
    figures["the machine after the rejoin"] = machine_load()
    figures["from the kill until every screen had its state and its ping answered / its last presence list, s"] = (
        round(rejoined_s, 2), round(told_s, 2))
    figures[f"rejoin window: until then and {QUIET_S:g} s without a presence list, s"] = round(window_s, 2)
    figures["survivor's CPU in the window, s (all; the missions' steady share)"] = (
        round(cpu_rejoin, 2), round(missions_share, 2))
    figures["survivor's CPU once every screen is back (the missions' steady share), cores"] = round(steady_rate, 3)
    figures["CPU per rejoining screen, ms (the target: 1.0)"] = round(net * 1000 / max(1, len(back)), 2)
    figures["screens back (of all)"] = (len(back), len(bench.screens))
    if commands:
        per_screen = {name: round(count / max(1, len(back)), 2) for name, count in sorted(commands.items()) if count}
        figures["Redis commands the survivor sent a rejoining screen (all; by command)"] = (
            round(sum(commands.values()) / max(1, len(back)), 2), per_screen)
    figures["presence lists a screen was sent after the kill (mean)"] = round(
        sum(s.presence_lists for s in bench.screens) / max(1, len(bench.screens)), 1)
    followers = [s for s in bench.screens if not s.device]
    times = [s.back_s for s in followers if s.back_s is not None]
    figures["back within 100 ms of the sound device after the kill, s (p50, p99, max; not within 100 ms)"] = (
        round(quantile(times, 0.5), 2), round(quantile(times, 0.99), 2), round(max(times, default=float("nan")), 2),
        len(followers) - len(times))
    opened = [s.open_s for s in bench.screens if s.open_s is not None]
    figures["WebSocket open again after the kill, s (p50, p99)"] = (round(quantile(opened, 0.5), 2),
                                                                   round(quantile(opened, 0.99), 2))
    errors = [error for screen in bench.screens for error in screen.errors]
    reporting.cancel()
    await bench.close()
    await asyncio.gather(*tasks, reporting, return_exceptions=True)
    if not args.floor:
        playing = sum(1 for game in await read_games(survivor_url, game_ids)
                      if game is not None and game["playback"]["status"] == "playing")
        figures["rooms playing on the survivor (of all)"] = (playing, len(game_ids))
    figures["reconnections that failed (kinds)"] = {kind: errors.count(kind) for kind in set(errors)}
    return figures


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--bare-server":
        bare_server(int(sys.argv[2]), float(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="example: python benchmarks/bench_rejoin.py --rooms 200 --profile rejoin.prof",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=200, help="playing rooms, 5 screens each (default 200)")
    parser.add_argument("--profile", metavar="FILE", help="run the survivor under cProfile during the rejoin; stats to FILE")
    parser.add_argument("--py-spy", metavar="FILE", help="sample the survivor with py-spy during the rejoin (raw format)")
    parser.add_argument("--floor", action="store_true", help="a bare aiohttp WebSocket server instead of timekeeper")
    parser.add_argument("--pings-again", type=int, default=1, choices=(1, 5),
                        help="clock pings a screen sends when it joins again (the page: 1; 5 before issue 37)")
    args = parser.parse_args()
    if not 1 <= args.rooms <= 2000:
        parser.error("--rooms: from 1 to 2000")
    if args.floor and args.profile:
        parser.error("--profile profiles timekeeper's worker; use --py-spy with --floor")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped (timeout): the processes are stopped too
    screens = args.rooms * SCREENS_PER_ROOM
    limit = raise_open_files()
    if limit < screens * 2 + 200:
        sys.exit(f"the open-files limit is {limit}; {screens * 2 + 200} are needed (ulimit -n)")
    print(f"{args.rooms} rooms x {SCREENS_PER_ROOM} screens rejoin one "
          f"{'bare aiohttp server' if args.floor else 'timekeeper serve --redis worker'} on loopback", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-rejoin-") as name:
        folder = Path(name)
        if args.floor:
            args.start_ms, args.redis_port = time.time() * 1000, None
            (doomed, doomed_port), (survivor, survivor_port) = start_bare(args.start_ms), start_bare(args.start_ms)
            try:
                game_ids = [f"{n:012x}" for n in range(args.rooms)]
                uvloop.run(measure(args, doomed, f"http://127.0.0.1:{doomed_port}", survivor,
                                   f"http://127.0.0.1:{survivor_port}", game_ids))
            finally:
                for process in (doomed, survivor):
                    stop_process(process)
            return
        redis, redis_port = start_redis(folder / "redis")
        args.redis_port = redis_port
        workers: list[Server] = []
        try:
            workers = start_workers(folder, f"redis://127.0.0.1:{redis_port}/0", screens, args.profile)
            doomed, survivor = workers
            game_ids = uvloop.run(make_rooms(survivor.url.rstrip("/"), args.rooms))
            uvloop.run(read_games(doomed.url.rstrip("/"), game_ids[:1]))  # the doomed worker has the mix too
            uvloop.run(measure(args, doomed.process, doomed.url.rstrip("/"), survivor.process, survivor.url.rstrip("/"),
                               game_ids))
        finally:
            for worker in workers:
                worker.stop()
            stop_process(redis)
            for n, worker in enumerate(workers):  # what a worker said (errors are one line each)
                said = [line for line in "".join(worker.output).splitlines() if "error" in line.lower()]
                if said:
                    print(f"worker {n} said: " + " | ".join(said[:5]), file=sys.stderr)


if __name__ == "__main__":
    main()
