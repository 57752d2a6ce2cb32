"""Beyond one process: real `redis-server`, two `timekeeper serve --redis` workers and real `nginx`
running the repository's deploy/nginx.conf with TLS, all on loopback (tests/scaleout.py).

The whole path: a game made through the proxy is known to every worker; screens joined to different
workers see each other and follow one clock; a pause pressed on one worker reaches the other's
screens; a worker killed mid-mission loses nothing (its screens reconnect through nginx to the other
and carry on at the right moment); a mix is made once across workers; Redis gone is a clear 503.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realparts import needs
from scaleout import ROOT, Deployment, deploy

pytestmark = needs("redis-server", "nginx", "openssl")

WAIT_S = 10.0  # the longest any message is waited for


@pytest.fixture(scope="module")
def deployment(tmp_path_factory) -> Deployment:
    made = deploy(tmp_path_factory.mktemp("scaleout"))
    yield made
    made.stop()


def worker_url(deployment: Deployment, index: int) -> str:
    return f"http://127.0.0.1:{deployment.worker_ports[index]}"


def new_lobby(deployment: Deployment, **settings) -> dict:
    reply = deployment.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1", "settings": settings})
    assert reply.status == 201, reply.body
    return reply.json()


class Screen:
    """A joined screen speaking the page's protocol over a WebSocket (through nginx or to a worker)."""

    def __init__(self, session, url: str, game_id: str, client: str, ssl_context=None) -> None:
        self.session, self.url, self.game_id, self.client, self.ssl = session, url, game_id, client, ssl_context
        self.socket = None
        self.messages: list[dict] = []
        self.closed_at: float | None = None

    async def open(self) -> None:
        scheme = "wss" if self.url.startswith("https") else "ws"
        address = self.url.split("://", 1)[1]
        self.socket = await asyncio.wait_for(self.session.ws_connect(
            f"{scheme}://{address}/api/games/{self.game_id}/ws", ssl=self.ssl or True), WAIT_S)
        await self.send({"type": "hello", "client": self.client, "kind": "phone"})

    async def send(self, message: dict) -> None:
        await self.socket.send_str(json.dumps(message))

    async def next(self, kind: str, check=lambda m: True, timeout_s: float = WAIT_S) -> dict:
        """The next message of `kind` passing `check` (earlier ones are dropped)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                raw = await self.socket.receive(timeout=max(0.01, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if raw.type.name in ("CLOSE", "CLOSING", "CLOSED", "ERROR"):
                self.closed_at = time.monotonic()
                raise ConnectionError("closed")
            message = json.loads(raw.data)
            self.messages.append(message)
            if message.get("type") == kind and check(message):
                return message
        raise AssertionError(f"no {kind} message within {timeout_s} s on {self.client}")

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()


def expected_position(playback: dict, now_ms: float) -> float:
    if playback["status"] != "playing":
        return playback["position_ms"]
    return playback["position_ms"] + (now_ms - playback["at_ms"])


def test_the_example_config_is_the_one_nginx_runs(deployment, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("nginx_conf", ROOT / "tools" / "nginx_conf.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    run_dir = deployment.folder / "nginx"
    filled = (run_dir / "nginx.conf").read_text()
    assert filled == tool.fill((ROOT / "deploy" / "nginx.conf").read_text(), listen=f"127.0.0.1:{deployment.https_port}",
                               http_listen=f"127.0.0.1:{deployment.http_port}",
                               workers=[f"127.0.0.1:{port}" for port in deployment.worker_ports],
                               cert=deployment.cert, key=deployment.folder / "key.pem", run_dir=run_dir)
    assert "@@" not in filled
    import http.client

    plain = http.client.HTTPConnection("127.0.0.1", deployment.http_port, timeout=WAIT_S)
    try:
        plain.request("GET", "/g/x")
        redirect = plain.getresponse()
        assert redirect.status == 301 and redirect.getheader("Location") == "https://127.0.0.1/g/x"
    finally:
        plain.close()
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "nginx_conf.py"), "--worker", "127.0.0.1:80; evil",
                          "--cert", "/c.pem", "--key", "/k.pem", "--run-dir", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("nginx_conf: --worker") and "Traceback" not in bad.stderr
    assert not (tmp_path / "nginx.conf").exists()


def test_a_game_made_through_the_proxy_is_known_to_every_worker(deployment):
    game = new_lobby(deployment)
    assert game["join_url"] == f"{deployment.url}/g/{game['id']}"  # the proxy's scheme and host
    for index in range(2):
        seen = deployment.request(f"/api/games/{game['id']}", base=worker_url(deployment, index))
        assert seen.status == 200 and seen.json()["code"] == game["code"]
        found = deployment.request(f"/api/join/{game['code'].lower()}", base=worker_url(deployment, index))
        assert found.json() == {"id": game["id"]}
    code = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"
    pasted = deployment.request("/api/tracks/flashcode", method="POST", json_body={"code": code, "title": "Pasted"},
                                base=worker_url(deployment, 0))
    assert pasted.status == 201, pasted.body
    track = pasted.json()["track"]["id"]
    played = deployment.request("/api/lobby", method="POST", json_body={"track": track}, base=worker_url(deployment, 1))
    assert played.status == 201 and played.json()["title"] == "Pasted"  # a track made on one worker, played on another
    assert too_large_status(deployment) == 413  # nginx's body limit (deploy/nginx.conf), before any worker reads it


def too_large_status(deployment: Deployment) -> int:
    """The answer to an upload that announces 1.2 MB (only its headers are sent)."""
    import http.client

    connection = http.client.HTTPSConnection("127.0.0.1", deployment.https_port, context=deployment.tls(), timeout=WAIT_S)
    try:
        connection.putrequest("POST", "/api/tracks/upload?name=x.yaml")
        for name, value in (("X-Timekeeper", "1"), ("Content-Type", "application/yaml"), ("Content-Length", "1200000")):
            connection.putheader(name, value)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


async def _pause_across_workers(deployment: Deployment, game_id: str) -> tuple[float, list[dict], float]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        on_a = Screen(session, worker_url(deployment, 0), game_id, "client-a")
        on_b = Screen(session, worker_url(deployment, 1), game_id, "client-b")
        proxied = Screen(session, deployment.url, game_id, "client-c", deployment.tls())
        screens = [on_a, on_b, proxied]
        for screen in screens:
            await screen.open()
            await screen.next("state")
        # every screen lists the devices connected to either worker
        listed = await on_b.next("presence", lambda m: len(m["screens"]) == 3)
        assert sorted(s["number"] for s in listed["screens"]) == [1, 2, 3]
        await on_a.send({"type": "claim"})
        started = time.monotonic()  # (the room's clock starts once the play has reached a worker)
        await on_a.send({"type": "play"})
        for screen in screens:
            await screen.next("state", lambda m: m["playback"]["status"] == "playing")
        await asyncio.sleep(1.3)
        pressed = time.monotonic()
        await on_b.send({"type": "pause"})
        paused = [await screen.next("state", lambda m: m["playback"]["status"] == "paused") for screen in screens]
        latency = time.monotonic() - pressed
        for screen in screens:
            await screen.close()
        return latency, paused, (time.monotonic() - started) * 1000


def test_a_pause_on_one_worker_reaches_screens_on_the_other(deployment):
    game = new_lobby(deployment)
    latency, paused, since_start_ms = asyncio.run(_pause_across_workers(deployment, game["id"]))
    assert latency < 1.0
    positions = {message["playback"]["position_ms"] for message in paused}
    assert len(positions) == 1 and 1300 <= positions.pop() <= since_start_ms  # one clock, the room's
    stored = deployment.redis_client().hget(f"timekeeper:game:{game['id']}", "clock")
    assert json.loads(stored)["playback"]["status"] == "paused"


async def _kill_a_worker(deployment: Deployment, game_id: str) -> dict:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        screens = [Screen(session, deployment.url, game_id, f"phone-{n}", deployment.tls()) for n in range(6)]
        for screen in screens:
            await screen.open()
            await screen.next("state")
        await screens[0].send({"type": "play"})
        for screen in screens:
            await screen.next("state", lambda m: m["playback"]["status"] == "playing")
        await asyncio.sleep(0.5)
        deployment.kill_worker(0)
        killed_at = time.monotonic()
        reconnected, back_in_sync = 0, []
        for screen in screens:
            try:
                await screen.send({"type": "ping", "t": 0})
                await screen.next("pong", timeout_s=2.0)
                continue  # on the worker that lives
            except (ConnectionError, ConnectionResetError, AssertionError, aiohttp.ClientError):
                pass
            for _attempt in range(20):  # as the page does: try again shortly, through the proxy
                try:
                    await screen.open()
                    break
                except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                    await asyncio.sleep(0.25)
            state = await screen.next("state")
            now_ms = time.time() * 1000
            back_in_sync.append((time.monotonic() - killed_at, expected_position(state["playback"], now_ms)))
            reconnected += 1
        await screens[-1].send({"type": "pause"})
        paused = [await screen.next("state", lambda m: m["playback"]["status"] == "paused") for screen in screens]
        for screen in screens:
            await screen.close()
        return {"reconnected": reconnected, "back": back_in_sync, "paused": paused, "killed_at": killed_at}


def test_a_worker_killed_mid_mission_loses_nothing(tmp_path):
    own = deploy(tmp_path)  # its own deployment: a worker dies here
    try:
        game = new_lobby(own)
        started = time.time() * 1000
        seen = asyncio.run(_kill_a_worker(own, game["id"]))
        assert seen["reconnected"] >= 1  # nginx had sent some screens to the worker that died
        for seconds, position_ms in seen["back"]:
            assert seconds < 5.0
            elapsed = time.time() * 1000 - started
            assert 400 <= position_ms <= elapsed + 100  # the mission went on while the worker was dead
        assert len({m["playback"]["position_ms"] for m in seen["paused"]}) == 1
        for index in (1,):
            assert own.request(f"/api/games/{game['id']}", base=worker_url(own, index)).status == 200
        assert own.request(f"/api/join/{game['code']}").json() == {"id": game["id"]}
        own.workers[1].stop()
        output = "".join(own.workers[1].output)
        assert "Traceback" not in output and "internal error" not in output
    finally:
        own.stop()


def test_a_mix_is_made_once_across_workers(deployment):
    async def ask_all() -> list[int]:
        import aiohttp

        body = {"track": "builtin:mission-2", "settings": {"pace": 1.25}}  # a mix no other test made
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
            async def ask(index: int) -> int:
                async with session.post(worker_url(deployment, index % 2) + "/api/games", json=body,
                                        headers={"X-Timekeeper": "1"}) as reply:
                    return reply.status

            return await asyncio.gather(*(ask(n) for n in range(12)))

    redis = deployment.redis_client()
    before = int(redis.get("timekeeper:tally:mix-made") or 0)
    assert asyncio.run(ask_all()) == [200] * 12
    assert int(redis.get("timekeeper:tally:mix-made") or 0) - before == 1


def test_a_download_made_on_one_worker_is_followed_on_the_other(deployment):
    game = new_lobby(deployment)
    started = deployment.request(f"/api/games/{game['id']}/renders", method="POST", json_body={"format": "ogg"},
                                 base=worker_url(deployment, 0))
    assert started.status == 202
    job = started.json()["id"]
    again = deployment.request(f"/api/games/{game['id']}/renders", method="POST", json_body={"format": "ogg"},
                               base=worker_url(deployment, 1))
    assert again.status == 202 and again.json()["id"] == job  # the same render, not a second one
    deadline = time.monotonic() + 120
    progress = {}
    while time.monotonic() < deadline:
        progress = deployment.request(f"/api/renders/{job}", base=worker_url(deployment, 1)).json()
        if progress.get("finished"):
            break
        time.sleep(0.5)
    assert progress.get("ready"), progress
    sound = deployment.request(f"/api/games/{game['id']}/soundtrack.ogg", base=worker_url(deployment, 1))
    assert sound.status == 200 and sound.body[:4] == b"OggS"
    assert (deployment.folder / "renders" / f"{job.rsplit('-', 1)[0]}.ogg").is_file()  # in the shared folder


def test_redis_gone_is_a_clear_503(tmp_path):
    own = deploy(tmp_path, workers=1, nginx=False)
    try:
        made = own.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1"}, base=worker_url(own, 0))
        game = made.json()
        own.redis.terminate()
        own.redis.wait(timeout=10)
        reply = own.request(f"/api/games/{game['id']}", base=worker_url(own, 0))
        assert reply.status == 503 and reply.json()["code"] == "store_unavailable"
        # the answer names what the client asked, never the backend, its address or its words
        error = reply.json()["error"]
        assert "Redis" not in error and "127.0.0.1" not in error and str(own.redis_port) not in error, error
        own.workers[0].stop()
        output = "".join(own.workers[0].output)
        assert "Traceback" not in output and "Redis cannot be reached" in output, output  # the terminal says it
    finally:
        own.stop()


def _store_game(game_id: str):
    from timekeeper.scenario.catalog import builtin_paths
    from timekeeper.serve.games.game import Game

    text = builtin_paths()["mission-1"].read_text(encoding="utf-8")
    return Game(game_id, "builtin:mission-1", "Mission 1", text, {"language": "en", "voice": None, "players": 5})


def test_two_workers_writing_one_game_lose_no_change(deployment):
    """Two stores (as two workers) on the real Redis: commands racing on one game are all carried
    out (the loser of a write carries its command out again on the winner's result), and a setup
    change made on a stale copy is refused (409), never written over the other's."""
    from timekeeper.serve.games.redis_store import RedisStore
    from timekeeper.serve.refusal import Refused

    async def race() -> None:
        one, two = RedisStore(deployment.redis_url), RedisStore(deployment.redis_url)
        await one.start()
        await two.start()
        try:
            game = await one.add(_store_game("0123456789ab"))
            other = await two.refresh(game.id)

            def bump(g):
                g.changes += 1
                return True

            await asyncio.gather(*(store.update(copy, bump) for _ in range(10) for store, copy in ((one, game), (two, other))))
            assert (await one.refresh(game.id)).changes == 20
            assert game.changes == 20  # the handler's object follows the store
            game.title = "changed on a stale copy"
            await two.update(other, bump)  # meanwhile another worker writes
            with pytest.raises(Refused) as refused:
                await one.save(game)
            assert refused.value.status == 409 and game.title == "Mission 1"
        finally:
            await one.close()
            await two.close()

    asyncio.run(race())


def test_speakers_on_both_workers_and_the_silence_the_last_one_leaves(deployment):
    """Two speakers, one on each worker: both listed everywhere; the first leaving changes nothing
    but the list; when the second leaves, the screen on the other worker hears that nobody plays
    the sound, then that the mission paused itself where it was last heard."""
    import aiohttp

    game = new_lobby(deployment, silence_pause_s=1, remote=True)  # a crew apart: every screen plays the sound
    assert deployment.request(f"/api/games/{game['id']}", base=worker_url(deployment, 1)).json()["settings"]["remote"]

    async def speakers() -> tuple[dict, dict, dict]:
        async with aiohttp.ClientSession() as session:
            first = Screen(session, worker_url(deployment, 0), game["id"], "speaker-1")
            second = Screen(session, worker_url(deployment, 1), game["id"], "speaker-2")
            screen = Screen(session, worker_url(deployment, 0), game["id"], "screen")
            for joined in (first, second, screen):
                await joined.open()
                await joined.next("state")
            await first.send({"type": "claim"})
            await second.send({"type": "claim"})
            listed = await screen.next("presence", lambda m: sum(s["sound"] for s in m["screens"]) == 2)
            await first.send({"type": "play"})
            both = await screen.next("state", lambda m: m["playback"]["status"] == "playing")
            await second.send({"type": "report", "at_ms": 300, "playing": True})
            await asyncio.sleep(0.3)
            await second.send({"type": "report", "at_ms": 600, "playing": True})  # its sound advances
            await first.close()
            await screen.next("state", lambda m: m["playback"]["speakers"] == ["speaker-2"])
            await second.close()  # its worker is the other one
            silent = await screen.next("state", lambda m: m["playback"]["silent_since_ms"] is not None)
            paused = await screen.next("state", lambda m: m["playback"]["status"] == "paused")
            await screen.close()
            return listed | both, silent["playback"], paused["playback"]

    both, silent, paused = asyncio.run(speakers())
    assert sorted(both["playback"]["speakers"]) == ["speaker-1", "speaker-2"]
    assert silent["status"] == "playing" and silent["speakers"] == []
    assert paused["reason"] == "silent" and paused["position_ms"] == 600 and paused["notes"][0]["kind"] == "silent"
    seen = deployment.request(f"/api/games/{game['id']}", base=worker_url(deployment, 1)).json()["playback"]
    assert seen["status"] == "paused" and seen["reason"] == "silent"


def test_a_report_moves_no_clock_on_any_worker(deployment):
    """Every speaker follows the room's clock: a speaker's report far from it (its sound started
    late) moves it nowhere, so a worker that reads the game afterwards has the room's clock."""
    import aiohttp

    game = new_lobby(deployment)

    async def play_and_report() -> None:
        async with aiohttp.ClientSession() as session:
            sound = Screen(session, worker_url(deployment, 0), game["id"], "device")
            await sound.open()
            await sound.next("state")
            await sound.send({"type": "claim"})
            await sound.send({"type": "play"})
            await sound.next("state", lambda m: m["playback"]["status"] == "playing")
            read = time.time() * 1000
            for at_ms in (4000, 8000, 8005):
                await sound.send({"type": "report", "at_ms": at_ms, "playing": True, "read_ms": read})
                await asyncio.sleep(0.25)
            await sound.send({"type": "ping", "t": 1})
            await sound.next("pong")  # (the worker answers a screen's messages in order)
            await sound.close()

    asyncio.run(play_and_report())
    seen = deployment.request(f"/api/games/{game['id']}", base=worker_url(deployment, 1)).json()["playback"]
    assert seen["status"] == "playing" and expected_position(seen, seen["server_ms"]) < 3000


def test_hosted_rooms_on_redis_expire_after_their_idle_time(tmp_path):
    """`--public --redis`: a crew's room made through nginx is known to both workers, and it lives in
    Redis for the rooms' idle time (refreshed while it is used), not the default two days."""
    own = deploy(tmp_path, extra=("--public", "--room-idle", "120"))
    try:
        made = own.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1"})
        assert made.status == 201, made.body
        game = made.json()
        assert game["join_url"] == f"{own.url}/g/{game['id']}"
        for index in range(2):
            assert own.request(f"/api/join/{game['code']}", base=worker_url(own, index)).json() == {"id": game["id"]}
        left_ms = own.redis_client().pttl(f"timekeeper:game:{game['id']}")
        assert 100_000 < left_ms <= 120_000
    finally:
        own.stop()


# --- what a screen joining costs a worker (issue 37): a copy kept current, one presence list for all ---
AFTER = {"play": "playing", "pause": "paused"}  # a game's status after a command


def redis_calls(deployment: Deployment, command: str) -> int:
    """How often Redis has carried out `command` (INFO commandstats; commands inside scripts too)."""
    return int(deployment.redis_client().info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


def read_on(deployment: Deployment, game_id: str, index: int) -> dict:
    """The game as worker `index` answers it (so that worker has read it)."""
    reply = deployment.request(f"/api/games/{game_id}", base=worker_url(deployment, index))
    assert reply.status == 200, reply.body
    return reply.json()


def command_on(deployment: Deployment, game_id: str, index: int, kind: str) -> None:
    reply = deployment.request(f"/api/games/{game_id}/command", method="POST", json_body={"type": kind},
                               base=worker_url(deployment, index))
    assert reply.status == 200, reply.body


def test_a_screen_joining_a_game_its_worker_follows_is_sent_what_another_worker_wrote(deployment):
    """A worker whose screens follow a game keeps its copy current from pub/sub (every state carries
    the clock), so a screen that joins it there is sent the state another worker wrote without a
    read from Redis."""
    import aiohttp

    game = new_lobby(deployment)
    read_on(deployment, game["id"], 1)

    async def join() -> tuple[dict, int]:
        async with aiohttp.ClientSession() as session:
            following = Screen(session, worker_url(deployment, 1), game["id"], "following")
            await following.open()
            await following.next("state")
            command_on(deployment, game["id"], 0, "play")
            command_on(deployment, game["id"], 0, "pause")
            await following.next("state", lambda m: m["playback"]["status"] == "paused")
            reads = redis_calls(deployment, "hmget")
            joining = Screen(session, worker_url(deployment, 1), game["id"], "joining")
            await joining.open()
            first = await joining.next("state")
            read = redis_calls(deployment, "hmget") - reads
            for screen in (following, joining):
                await screen.close()
            return first, read

    first, read = asyncio.run(join())
    assert first["playback"]["status"] == "paused" and first["playback"]["changes"] == 2
    assert read == 0  # the game was not read from Redis for it


def test_a_worker_whose_listener_lost_redis_reads_the_game_again(deployment):
    """Messages published while a worker's subscription is broken are lost to it (redis-py connects
    again by itself): a screen that joins afterwards is sent the game as Redis has it, read again;
    and the worker listens again on one connection (the broken one is closed, not left to fill up)."""
    import aiohttp

    game = new_lobby(deployment)
    read_on(deployment, game["id"], 1)
    redis = deployment.redis_client()

    def listening() -> list[int]:
        return sorted(int(c["id"]) for c in redis.client_list() if c.get("sub") == "1")

    async def join_after_a_break() -> tuple[int, int, list[int]]:
        async with aiohttp.ClientSession() as session:
            following = Screen(session, worker_url(deployment, 1), game["id"], "following")
            await following.open()
            await following.next("state")
            before = max(int(c["id"]) for c in redis.client_list())
            redis.client_kill_filter(_type="pubsub")
            deadline = time.monotonic() + WAIT_S
            while sum(1 for n in listening() if n > before) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # (connected again)
            reads = redis_calls(deployment, "hmget")
            joining = Screen(session, worker_url(deployment, 1), game["id"], "joining")
            await joining.open()
            await joining.next("state")
            read = redis_calls(deployment, "hmget") - reads
            heard = 0  # a change on the other worker reaches both screens again (once it listens again)
            for kind in ("play", "pause", "play", "pause", "play", "pause") * 5:
                command_on(deployment, game["id"], 0, kind)
                try:
                    for screen in (following, joining):
                        await screen.next("state", lambda m, kind=kind: m["playback"]["status"] == AFTER[kind], timeout_s=0.5)
                    heard += 1
                except AssertionError:
                    heard = 0
                if heard == 2:
                    break
            await asyncio.sleep(1.0)
            subscribed = listening()
            for screen in (following, joining):
                await screen.close()
            return read, heard, subscribed

    read, heard, subscribed = asyncio.run(join_after_a_break())
    assert read >= 1 and heard == 2
    assert len(subscribed) == 2  # one subscription a worker


def test_a_setup_changed_on_another_worker_reaches_a_screen_joining_a_followed_game(deployment):
    """A copy kept current by the states' clocks does not hold the track and settings: their change
    on another worker makes this one read the game whole before a screen joins it."""
    import aiohttp

    game = new_lobby(deployment, silence_pause_s=1)
    read_on(deployment, game["id"], 1)

    async def change_then_join() -> dict:
        async with aiohttp.ClientSession() as session:
            following = Screen(session, worker_url(deployment, 1), game["id"], "following")
            await following.open()
            await following.next("state")
            changed = deployment.request(f"/api/games/{game['id']}/setup", method="POST", base=worker_url(deployment, 0),
                                         json_body={"track": "builtin:mission-1", "settings": {"silence_pause_s": 7}})
            assert changed.status == 200, changed.body
            await following.next("setup")
            joining = Screen(session, worker_url(deployment, 1), game["id"], "joining")
            await joining.open()
            first = await joining.next("state")
            for screen in (following, joining):
                await screen.close()
            return first

    assert asyncio.run(change_then_join())["playback"]["silence_pause_ms"] == 7000


def test_who_is_connected_is_read_once_for_every_worker(deployment):
    """A screen that says hello has every screen of its game, on every worker, sent who is connected,
    marked where it is "me" and where it plays the sound: read and published by one script, not
    read again by each worker."""
    import aiohttp

    game = new_lobby(deployment)

    async def arrive() -> tuple[list[dict], int]:
        async with aiohttp.ClientSession() as session:
            device = Screen(session, worker_url(deployment, 0), game["id"], "device")
            phone = Screen(session, worker_url(deployment, 1), game["id"], "phone")
            for screen in (device, phone):
                await screen.open()
                await screen.next("state")
            await device.send({"type": "claim"})
            for screen in (device, phone):
                await screen.next("presence", lambda m: len(m["screens"]) == 2 and any(s["sound"] for s in m["screens"]))
            await asyncio.sleep(1.0)  # (no list is due any more)
            reads = redis_calls(deployment, "hgetall")
            late = Screen(session, worker_url(deployment, 0), game["id"], "late")
            await late.open()
            told = [await screen.next("presence", lambda m: len(m["screens"]) == 3) for screen in (device, phone, late)]
            read = redis_calls(deployment, "hgetall") - reads
            for screen in (device, phone, late):
                await screen.close()
            return told, read

    told, read = asyncio.run(arrive())
    for listed in told:  # the device that plays the sound first
        assert [s["sound"] for s in listed["screens"]] == [True, False, False]
        assert sorted(s["number"] for s in listed["screens"]) == [1, 2, 3] and sum(s["me"] for s in listed["screens"]) == 1
    assert [listed["screens"][0]["me"] for listed in told] == [True, False, False]
    assert read == 1  # who is connected (here:ID) read once for both workers


async def _presence_asked_by_an_older_worker(deployment: Deployment, game_id: str) -> list[dict]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        screens = [Screen(session, worker_url(deployment, n), game_id, f"phone-{n}") for n in (0, 1)]
        for screen in screens:
            await screen.open()
        for screen in screens:
            await screen.next("presence", lambda m: len(m["screens"]) == 2)
        await asyncio.sleep(1.0)  # (no list is due any more)
        for screen in screens:  # (those sent meanwhile: read)
            with pytest.raises(AssertionError):
                await screen.next("none", timeout_s=0.2)
        # a worker from before issue 37 asks every worker to read the list itself (the envelope it publishes)
        deployment.redis_client().publish("timekeeper:screens", json.dumps({"w": "older-worker", "g": game_id, "p": 1}))
        told = [await screen.next("presence") for screen in screens]
        print("TOLD", time.monotonic(), told, [s.messages[-4:] for s in screens])
        for screen in screens:
            await screen.close()
        return told


def test_a_worker_of_an_older_version_asking_for_the_presence_list_gets_it_told(deployment):
    """In a rolling upgrade old and new workers run side by side: an old one's request that every
    worker read who is connected is answered with the list, sent to every screen."""
    game = new_lobby(deployment)
    for listed in asyncio.run(_presence_asked_by_an_older_worker(deployment, game["id"])):
        assert sorted((s["kind"], s["number"]) for s in listed["screens"]) == [("phone", 1), ("phone", 2)]
        assert sum(1 for s in listed["screens"] if s["me"]) == 1


def test_hellos_at_once_are_seated_together_up_to_the_limit(deployment):
    """Screens that say hello at the same moment (a dead worker's, reconnecting) are seated in one
    round trip, each seat still checked on its own: a game lists MAX_SEATS devices, the rest are
    refused in words."""
    import aiohttp

    from timekeeper.serve.games.lobby import MAX_SEATS

    game = new_lobby(deployment)

    async def crowd() -> list[dict]:
        async with aiohttp.ClientSession() as session:
            screens = [Screen(session, worker_url(deployment, 0), game["id"], f"first-{n}") for n in range(3)]
            for screen in screens:
                await screen.open()
                await screen.next("state")
            hellos = [screen.send({"type": "hello", "client": f"device-{n}-{k}", "kind": "phone"})
                      for n, screen in enumerate(screens) for k in range(MAX_SEATS // 3 + 1)]
            await asyncio.gather(*hellos)
            refused = []
            for screen in screens:
                await screen.send({"type": "ping", "t": 1})
                await screen.next("pong")  # (every hello before it answered)
                refused += [m for m in screen.messages if m.get("type") == "error"]
            for screen in screens:
                await screen.close()
            return refused

    refused = asyncio.run(crowd())
    seated = deployment.redis_client().hlen(f"timekeeper:seats:{game['id']}")
    assert seated == MAX_SEATS
    assert len(refused) == 3 + 3 * (MAX_SEATS // 3 + 1) - MAX_SEATS
    assert all(m["code"] == "too_busy" and f"lists {MAX_SEATS} devices" in m["error"] for m in refused)
