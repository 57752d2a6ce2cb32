"""A rolling restart no crew notices: both `timekeeper serve --redis` workers behind nginx stopped
with SIGTERM one after the other (as `systemctl restart` does, docs/hosting.md#upgrading) and
started again, while rooms play and their screens send commands.

Each worker moves its screens to the other over its drain window and exits 0; a moved screen opens
its new socket before it closes the old one (tests/pagesocket.py speaks the page's protocol). No
screen is more than 100 ms from its sound device at any moment, no command is lost, no room is
lost, and no screen is ever without a socket (none is closed by a worker, none waits to reconnect).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pagesocket import PageSocket, Sound, apart_ms
from realparts import needs
from scaleout import Deployment, deploy

pytestmark = needs("redis-server", "nginx", "openssl")

DRAIN_S = 2.0  # each worker's drain window here (the default is 10 s)
STEADY_ROOMS, BUSY_ROOMS, SCREENS = 2, 2, 4  # rooms that only play, rooms whose screens press Pause and Play
COMMAND_EVERY_S = 0.4
SAMPLE_EVERY_S = 0.05
IN_SYNC_MS = 100.0
SHORT_TRACK = "title: Drill\nphase_ends: [60, 120, 180]\nevents:\n  - {at: 10, type: threat, t: 'T+1', zone: red}\n"
AFTER_RESTART_S = 5.0  # docs/hosting.md's wait before the next worker: nginx takes the restarted one back
WAIT_S = 30.0  # the longest a condition is waited for


async def until(check, timeout_s: float = WAIT_S) -> None:
    """Poll `check()` until it is true (an AssertionError after `timeout_s`: a bound on a hang)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout_s:.0f} s"
        await asyncio.sleep(0.05)


class Room:
    def __init__(self, game_id: str, screens: list[PageSocket]) -> None:
        self.game_id, self.screens = game_id, screens
        self.sent = 0  # commands sent (each is one more `changes`)
        self.dropped = 0  # commands that found no open socket
        self.last = "play"

    @property
    def device(self) -> PageSocket:
        return self.screens[0]


async def _rolling_restart(deployment: Deployment) -> dict:
    import aiohttp

    url = f"wss://127.0.0.1:{deployment.https_port}"
    rooms: list[Room] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=deployment.tls(), limit=0)) as session:
        for n in range(STEADY_ROOMS + BUSY_ROOMS):
            made = await asyncio.to_thread(deployment.request, "/api/lobby", method="POST",
                                           json_body={"track": "builtin:mission-1"})
            assert made.status == 201, made.body
            game_id = made.json()["id"]
            rooms.append(Room(game_id, [PageSocket(session, url, game_id, f"r{n}-s{k}", sound=Sound() if k == 0 else None,
                                                   ssl=deployment.tls()) for k in range(SCREENS)]))
        screens = [screen for room in rooms for screen in room.screens]
        running = [asyncio.create_task(screen.run()) for screen in screens]
        await asyncio.wait_for(asyncio.gather(*(screen.joined.wait() for screen in screens)), 30)
        for room in rooms:
            await room.device.claim()
            await room.device.send({"type": "play"})
        running += [asyncio.create_task(room.device.reporting()) for room in rooms]
        await until(lambda: all((apart_ms(screen, room.device) or IN_SYNC_MS + 1) <= IN_SYNC_MS
                                for room in rooms for screen in room.screens[1:]))  # offsets measured, devices reported

        worst = [0.0]
        sampling = asyncio.Event()

        async def sample() -> None:
            while not sampling.is_set():
                for room in rooms[:STEADY_ROOMS]:
                    for screen in room.screens[1:]:
                        apart = apart_ms(screen, room.device)
                        if apart is not None:
                            worst[0] = max(worst[0], apart)
                await asyncio.sleep(SAMPLE_EVERY_S)

        async def press(room: Room) -> None:
            while not sampling.is_set():
                await asyncio.sleep(COMMAND_EVERY_S * (0.5 + random.random()))
                room.last = "pause" if room.last == "play" else "play"
                if await random.choice(room.screens).send({"type": room.last}):
                    room.sent += 1
                else:
                    room.dropped += 1

        side = [asyncio.create_task(sample()), *(asyncio.create_task(press(room)) for room in rooms[STEADY_ROOMS:])]
        changes_before = {room.game_id: room.device.changes for room in rooms}
        drains = []
        for index in (0, 1):
            drains.append(await asyncio.to_thread(deployment.drain_worker, index))
            await asyncio.to_thread(deployment.start_worker, index)
            await asyncio.sleep(AFTER_RESTART_S)  # as docs/hosting.md's procedure: the next once nginx takes this one back
        sampling.set()
        await asyncio.gather(*side)
        redis = deployment.redis_client()

        def last_change_everywhere() -> bool:
            for room in rooms:
                stored = json.loads(redis.hget(f"timekeeper:game:{room.game_id}", "clock"))["changes"]
                if any(screen.changes != stored for screen in room.screens):
                    return False
            return True

        await until(last_change_everywhere)  # the last commands' states have arrived everywhere
        stored = {room.game_id: redis.hget(f"timekeeper:game:{room.game_id}", "clock") for room in rooms}
        result = {"drains": drains, "worst_ms": worst[0], "rooms": rooms, "stored": stored,
                  "changes_before": changes_before,
                  "seen": {room.game_id: [(s.changes, s.playback["status"]) for s in room.screens] for room in rooms}}
        for screen in screens:
            await screen.close()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        return result


def test_a_rolling_restart_of_both_workers_goes_unnoticed(tmp_path):
    deployment = deploy(tmp_path, extra=("--drain", str(DRAIN_S)))
    try:
        started = time.monotonic()
        seen = asyncio.run(_rolling_restart(deployment))
        assert time.monotonic() - started < 120
        rooms: list[Room] = seen["rooms"]
        screens = [screen for room in rooms for screen in room.screens]
        told = [(screen.client, screen.moves, screen.lost, screen.closed_by_server, screen.errors) for screen in screens]
        said = ["".join(worker.output) for worker in deployment.old_workers]
        nginx_log = (deployment.folder / "nginx" / "error.log").read_text(errors="replace")[-3000:]
        for drained, output in zip(seen["drains"], said, strict=True):
            assert drained.status == 0, output
            stopped = re.search(r"stopped in ([0-9.]+) s: ([0-9]+) screens moved, ([0-9]+) closed, ([0-9]+) requests cut",
                                output)
            assert stopped is not None, output
            assert float(stopped.group(1)) <= DRAIN_S + 1.0, (output, told, nginx_log)  # every screen moved within the window
            assert stopped.group(3, 4) == ("0", "0"), (output, told, nginx_log)  # none had to be closed, no request was cut
            assert drained.seconds < 60, output  # (the process's exit: its encoder child, Redis closed)
        assert all(screen.moves >= 1 for screen in screens), told  # every screen was on a worker that stopped
        assert [screen.closed_by_server for screen in screens] == [[] for _ in screens]  # none was cut off
        assert sum(screen.lost for screen in screens) == 0  # ... nor waited to reconnect
        assert seen["worst_ms"] <= 100, f"a screen was {seen['worst_ms']:.0f} ms from its sound device"
        for room in rooms:
            clock = json.loads(seen["stored"][room.game_id])
            assert room.dropped == 0
            assert clock["changes"] == seen["changes_before"][room.game_id] + room.sent  # no command lost
            assert len({changes for changes, _status in seen["seen"][room.game_id]}) == 1  # every screen saw the last
            expected = "playing" if room.sent == 0 or room.last == "play" else "paused"
            assert clock["playback"]["status"] == expected
            assert deployment.request(f"/api/games/{room.game_id}").status == 200  # no room lost
        assert sum(room.sent for room in rooms) >= 10
        for worker in [*deployment.old_workers, *deployment.workers]:
            worker.stop()
            output = "".join(worker.output)
            assert "Traceback" not in output and "internal error" not in output, output
    finally:
        deployment.stop()


def test_a_stopping_worker_leaves_its_downloads_to_the_other(tmp_path):
    deployment = deploy(tmp_path, nginx=False, extra=("--drain", "1"))
    try:
        first, second = (f"http://127.0.0.1:{port}" for port in deployment.worker_ports)
        uploaded = deployment.workers[1].request("/api/tracks/upload?name=drill.yaml", method="POST",
                                                 data=SHORT_TRACK.encode())
        assert uploaded.status == 201, uploaded.body
        made = deployment.request("/api/lobby", method="POST", json_body={"track": uploaded.json()["track"]["id"]},
                                  base=second)
        game = made.json()["id"]
        jobs = []
        for fmt in ("mp3", "ogg"):  # one is rendered on the first worker, the other waits behind it
            started = deployment.request(f"/api/games/{game}/renders", method="POST", json_body={"format": fmt}, base=first)
            assert started.status == 202, started.body
            jobs.append(started.json()["id"])
        assert deployment.drain_worker(0).status == 0
        said = "".join(deployment.old_workers[0].output)
        assert re.search(r"[12] downloads left to the other workers", said), said
        deadline = time.monotonic() + 120
        progress: dict = {}
        for job in jobs:  # the page goes on asking; the worker that lives takes each left download over
            while time.monotonic() < deadline:
                progress = deployment.request(f"/api/renders/{job}", base=second).json()
                if progress.get("finished"):
                    break
                time.sleep(0.5)
            assert progress.get("ready"), progress
        for fmt in ("mp3", "ogg"):
            sound = deployment.request(f"/api/games/{game}/soundtrack.{fmt}", base=second)
            assert sound.status == 200 and len(sound.body) > 50_000
        assert not [path for path in (deployment.folder / "renders").iterdir() if path.suffix not in (".mp3", ".ogg")]
    finally:
        deployment.stop()
