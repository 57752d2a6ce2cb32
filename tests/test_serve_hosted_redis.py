"""Hosted mode as two workers on one real redis-server (`timekeeper serve --public --redis`,
tests/scaleout.py), attacked across the workers: crews stay apart whichever worker they reach,
every per-client limit holds for every method across both, a room followed by a screen never
expires however short `--room-idle` is (and one nobody uses does), and a Redis outage is a clear
503 naming no backend, a few lines on each worker's terminal, and over once Redis is back. Two busy
processes run beside every test (tests/cpuload.py), so the races of a loaded machine show."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import time

import pytest
from cpuload import busy_cores
from realparts import needs, program
from scaleout import Deployment, deploy, stop_process, wait_listening
from waiting import asked_until_refused, wait_until

from timekeeper.serve.guards.crews import COOKIE
from timekeeper.serve.guards.rates import PER_MINUTE

CODE = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"
VALUES = {"crew": "Ann:captain, Bob:co, Cid:sc, Dee", "survived": "4", "destroyed": "10", "damage_red": "2"}

pytestmark = needs("redis-server")


@pytest.fixture(autouse=True)
def loaded_machine():
    with busy_cores(2):
        yield


@pytest.fixture(scope="module")
def hosted(tmp_path_factory) -> Deployment:
    made = deploy(tmp_path_factory.mktemp("hosted-redis"), nginx=False, extra=("--public",))
    yield made
    made.stop()
    for worker in made.workers:
        assert "Traceback" not in "".join(worker.output)


class Browser:
    """One browser of one crew at one client address (through the workers' trusted proxy, as nginx
    passes it), asking whichever worker it is given."""

    def __init__(self, deployment: Deployment, address: str, key: str | None = None) -> None:
        self.deployment, self.address = deployment, address
        self.key = key or secrets.token_urlsafe(18)

    def __call__(self, path: str, method: str = "GET", body: object = None, *, worker: int = 0):
        base = f"http://127.0.0.1:{self.deployment.worker_ports[worker]}"
        headers = {"Cookie": f"{COOKIE}={self.key}", "X-Forwarded-For": self.address, "X-Timekeeper": "1"}
        return self.deployment.request(path, method=method, json_body=body, base=base, headers=headers)


def test_crews_stay_apart_whichever_worker_they_reach(hosted):
    a, b = Browser(hosted, "203.0.113.10"), Browser(hosted, "203.0.113.11")
    made = a("/api/tracks/flashcode", "POST", {"code": CODE, "title": "A's own"}, worker=0)
    assert made.status == 201, made.body
    track = made.json()["track"]["id"]
    assert track in {t["id"] for t in a("/api/tracks", worker=1).json()["tracks"]}  # the crew's, on both workers
    for worker in (0, 1):
        assert track not in {t["id"] for t in b("/api/tracks", worker=worker).json()["tracks"]}
        assert b("/api/lobby", "POST", {"track": track}, worker=worker).status == 404
    room = a("/api/lobby", "POST", {"track": track}, worker=1).json()
    assert b(f"/api/games/{room['id']}", worker=0).status == 200  # the room's link is all another crew's screen needs
    recorded = b(f"/api/games/{room['id']}/log", "POST", VALUES, worker=0)
    assert recorded.status == 201, recorded.body
    entry = recorded.json()["id"]
    assert [line["id"] for line in a("/api/log", worker=1).json()["lines"]] == [entry]  # in the room's crew's log
    for worker in (0, 1):
        assert b("/api/log", worker=worker).json()["lines"] == []
        other = b(f"/api/log/{entry}", worker=worker)
        assert other.status == 404 and str(hosted.folder) not in other.text and "crews" not in other.text


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_code_look_ups_are_counted_once_across_workers_for_every_method(hosted, method):
    """`HEAD /api/join/CODE` and `/j/CODE` answer as GET does: they count against the same 30
    look-ups a minute, across both workers (the limit is counted in Redis)."""
    guesser = Browser(hosted, f"203.0.113.{20 if method == 'GET' else 21}")
    paths = iter("/api/join/AAAAA" if n % 2 else "/j/AAAAA" for n in range(10_000))
    workers = iter(n % 2 for n in range(10_000))
    answers, _ = asked_until_refused(lambda: guesser(next(paths), method, worker=next(workers)).status,
                                     lambda status: status == 429, PER_MINUTE["joins"])
    assert set(answers[:-1]) <= {200, 302, 404}  # (/j/ redirects to the start page, which says why)
    for worker in (0, 1):  # refused now on both workers and for the other method too
        assert guesser("/api/join/AAAAA", "HEAD" if method == "GET" else "GET", worker=worker).status == 429


def test_new_rooms_are_counted_once_across_workers(hosted):
    maker = Browser(hosted, "203.0.113.30")
    workers = iter(n % 2 for n in range(10_000))
    answers, _ = asked_until_refused(
        lambda: maker("/api/lobby", "POST", {"track": "builtin:test-run-1"}, worker=next(workers)),
        lambda reply: reply.status == 429, PER_MINUTE["rooms"])
    refused = answers[-1]
    assert refused.json()["code"] == "rate_limited" and int(refused.headers["Retry-After"]) >= 1


def screen_follows(deployment: Deployment, worker: int, game_id: str, seconds: float) -> list[int]:
    """A screen joined to `game_id` on `worker` for `seconds`, the room asked for through the other
    worker every second meanwhile: the answers' statuses."""
    import aiohttp

    other = f"http://127.0.0.1:{deployment.worker_ports[1 - worker]}"

    async def follow() -> list[int]:
        statuses = []
        url = f"ws://127.0.0.1:{deployment.worker_ports[worker]}/api/games/{game_id}/ws"
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as screen:
            assert (await screen.receive_json(timeout=30))["type"] == "state"
            started = time.monotonic()
            while time.monotonic() - started < seconds:
                await asyncio.sleep(1.0)
                reply = await asyncio.to_thread(deployment.request, f"/api/games/{game_id}/qr.svg", base=other)
                statuses.append(reply.status)
        return statuses

    return asyncio.run(asyncio.wait_for(follow(), seconds + 60))


def test_a_followed_room_never_expires_however_short_the_idle_time(tmp_path):
    """`--room-idle 1`: a room a screen follows stays (its key renewed every quarter of the idle
    time, not every 30 s), code and all; one nobody follows or asks for is gone after the idle time."""
    own = deploy(tmp_path, nginx=False, extra=("--public", "--room-idle", "1"))
    try:
        base = f"http://127.0.0.1:{own.worker_ports[0]}"
        followed = own.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"}, base=base).json()
        left = own.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-2"}, base=base).json()
        statuses = screen_follows(own, 0, followed["id"], seconds=6.0)
        assert statuses and set(statuses) == {200}, statuses
        assert own.request(f"/api/join/{followed['code']}", base=base).json() == {"id": followed["id"]}
        assert own.request(f"/api/games/{left['id']}", base=base).status == 404  # nobody used it: gone
        assert own.request(f"/api/join/{left['code']}", base=base).status == 404
        client = own.redis_client()
        wait_until(lambda: client.exists(f"timekeeper:game:{followed['id']}") == 0, 30, "the room left alone to expire")
        assert own.request(f"/api/join/{followed['code']}", base=base).status == 404
    finally:
        own.stop()


def restart_redis(deployment: Deployment) -> None:
    """redis-server again on its port (empty: the deployment's Redis keeps nothing on disk)."""
    folder = deployment.folder / "redis"
    deployment.redis = subprocess.Popen(
        [program("redis-server"), "--port", str(deployment.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(folder), "--logfile", str(folder / "redis.log")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(deployment.redis_port, deployment.redis, "redis-server")


def test_a_redis_outage_is_a_clear_503_a_few_lines_and_over_when_redis_is_back(tmp_path):
    import aiohttp

    own = deploy(tmp_path, nginx=False, extra=("--public",))
    bases = [f"http://127.0.0.1:{port}" for port in own.worker_ports]
    try:
        room = own.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"}, base=bases[0]).json()
        stop_process(own.redis)
        for n in range(40):  # a flood of requests during the outage, on both workers
            reply = own.request(f"/api/games/{room['id']}", base=bases[n % 2],
                                headers={"X-Forwarded-For": f"198.51.100.{n + 1}"})
            assert reply.status == 503 and reply.json()["code"] == "store_unavailable", reply.body
            error = reply.json()["error"]
            assert "Redis" not in error and str(own.redis_port) not in error and "127.0.0.1" not in error, error
            assert 1 <= int(reply.headers["Retry-After"]) <= 60
        restart_redis(own)
        made = wait_until(lambda: (reply := own.request("/api/lobby", method="POST", json_body={
            "track": "builtin:test-run-1"}, base=bases[1])).status == 201 and reply, 60, "the workers back on Redis")
        game = made.json()

        async def joined(session) -> aiohttp.ClientWebSocketResponse:
            url = f"ws://127.0.0.1:{own.worker_ports[0]}/api/games/{game['id']}/ws"
            deadline = time.monotonic() + 60
            while True:  # (as the page does: a 503 while the worker finds Redis again, then joined)
                try:
                    return await session.ws_connect(url)
                except aiohttp.WSServerHandshakeError as refused:
                    assert refused.status == 503 and time.monotonic() < deadline, refused
                    await asyncio.sleep(0.5)

        async def heard_across_workers() -> dict:
            async with aiohttp.ClientSession() as session:
                async with await joined(session) as screen:
                    assert (await screen.receive_json(timeout=30))["type"] == "state"
                    deadline = time.monotonic() + 60
                    while time.monotonic() < deadline:  # (worker 0 listens again within a second or so)
                        await asyncio.to_thread(own.request, f"/api/games/{game['id']}/command", method="POST",
                                                json_body={"type": "seek", "at_ms": 4000}, base=bases[1])
                        try:
                            message = await screen.receive_json(timeout=2)
                        except asyncio.TimeoutError:
                            continue
                        if message["type"] == "state" and message["playback"]["position_ms"] == 4000:
                            return message
                    raise AssertionError("worker 0's screen never heard worker 1's command again")

        asyncio.run(asyncio.wait_for(heard_across_workers(), 120))
    finally:
        own.stop()
    for worker in own.workers:
        output = "".join(worker.output)
        assert "Traceback" not in output, output
        lines = [line for line in output.splitlines() if line.startswith("timekeeper serve:")]
        assert len(lines) <= 8, lines  # 20 refusals each: one line of each kind, not one a request
        assert any("Redis cannot be reached" in line for line in lines), lines  # where: the operator's to know
    assert "Redis is back" in "".join(own.workers[0].output)
