"""`timekeeper serve`'s application in the test's own process, through aiohttp's test client on
loopback (the app that serve/web/app.py builds, its middleware and every kind of route), the voice a
MeasuredVoice (tests/measuredvoice.py): the fast tier's view of the server. The real process, its
limits and the browser are the full tier's (test_serve_*.py)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from measuredvoice import speak_measured

from timekeeper.serve.server import ServeConfig
from timekeeper.serve.web.app import make_app

POST = {"X-Timekeeper": "1"}  # the page's header on every POST


def served(config: ServeConfig, check: Callable[[TestClient], Awaitable[None]]) -> None:
    """Run `check` against the app of `config`, served on 127.0.0.1 for the test."""

    async def session() -> None:
        client = TestClient(TestServer(make_app(config), host="127.0.0.1"))
        await client.start_server()
        try:
            await asyncio.wait_for(check(client), timeout=120)
        finally:
            await client.close()

    asyncio.run(session())


async def new_game(client: TestClient, track: str = "builtin:test-run-1", **settings: object) -> dict:
    reply = await client.post("/api/games", json={"track": track, "settings": settings}, headers=POST)
    assert reply.status == 200, await reply.text()
    return await reply.json()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ServeConfig:
    speak_measured(monkeypatch)
    return ServeConfig(state=tmp_path / "state", sound_cache=tmp_path / "sound", renders=tmp_path / "renders",
                       log=tmp_path / "log.sqlite3", port=0, encode_in_child=False)  # (the fake voice is this process's)


def test_page_info_and_tracks(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        page = await client.get("/")
        assert page.status == 200 and "<html" in (await page.text()).lower()
        info = await (await client.get("/api/info")).json()
        assert "generate" in info and info["generate"]["options"]
        tracks = (await (await client.get("/api/tracks")).json())["tracks"]
        assert any(track["id"] == "builtin:mission-1" for track in tracks)
        worker = await client.get("/sw.js")
        assert worker.status == 200 and "javascript" in worker.headers["Content-Type"]
        messages = await client.get("/api/messages/de")
        assert messages.status == 200 and (await messages.json())

    served(config, check)


def test_the_guard_refuses_other_hosts_and_posts_without_the_header(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        rebound = await client.get("/api/info", headers={"Host": "evil.example"})
        assert rebound.status == 403
        forged = await client.post("/api/games", json={"track": "builtin:mission-1"})
        assert forged.status == 403 and "error" in await forged.json()
        missing = await client.post("/api/games", json={"track": "builtin:../../etc/passwd"}, headers=POST)
        assert missing.status == 404 and "no such track" in (await missing.json())["error"]

    served(config, check)


def test_a_game_its_downloads_and_its_clock(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        game = await new_game(client)
        base = f"/api/games/{game['id']}"
        assert (await (await client.get(base)).json())["id"] == game["id"]
        assert "title: " in await (await client.get(base + "/track.yaml")).text()
        assert (await (await client.get(base + "/track.txt")).text()).strip().endswith("PE2")
        assert "<svg" in await (await client.get(base + "/qr.svg")).text()
        card = await client.get(base + "/card.html")
        assert card.status == 200 and "First Test Run" in await card.text()
        playing = await client.post(base + "/command", json={"type": "play"}, headers=POST)
        assert (await playing.json())["status"] == "playing"
        paused = await (await client.post(base + "/command", json={"type": "pause"}, headers=POST)).json()
        assert paused["status"] == "paused" and paused["position_ms"] >= 0
        early = await client.post(base + "/command", json={"type": "end"}, headers=POST)
        assert early.status == 409

    served(config, check)


def test_an_ended_action_round_can_be_taken_back_within_its_seconds_only(config: ServeConfig,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The undo window on the game's clock, an injected one here: the test waits no five seconds."""
    from timekeeper.serve.games import game as games

    now_ms = [1_700_000_000_000.0]
    monkeypatch.setattr(games, "wall_ms", lambda: now_ms[0])

    async def command(client: TestClient, path: str, kind: str, **more: object) -> tuple[int, dict]:
        reply = await client.post(path, json={"type": kind, **more}, headers=POST)
        return reply.status, await reply.json()

    async def check(client: TestClient) -> None:
        path = f"/api/games/{(await new_game(client, 'builtin:mission-1'))['id']}/command"
        await command(client, path, "seek", at_ms=451_000)
        await command(client, path, "play")
        _, ended = await command(client, path, "end")
        assert ended["status"] == "ended" and ended["undo_until_ms"] == now_ms[0] + games.UNDO_MS == ended["at_ms"] + 5000
        now_ms[0] += games.UNDO_MS  # the last moment
        status, back = await command(client, path, "undo")
        assert status == 200 and back["status"] == "playing" and back["position_ms"] == ended["position_ms"]
        await command(client, path, "end")
        now_ms[0] += games.UNDO_MS + 1
        status, late = await command(client, path, "undo")
        assert status == 409 and "no longer" in late["error"]
        now_ms[0] += 60_000
        _, shown = await command(client, path, "pause")  # (an ended game stays as it ended)
        assert shown["status"] == "ended" and shown["position_ms"] == ended["position_ms"]

    served(config, check)


def test_the_sound_is_the_measured_mix(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        game = await new_game(client)
        sound = await client.get(f"/api/games/{game['id']}/sound.wav")
        assert sound.status == 200
        with wave.open(io.BytesIO(await sound.read())) as served_wav:
            length_ms = served_wav.getnframes() * 1000 / served_wav.getframerate()
        assert length_ms == pytest.approx(game["timeline"]["duration_ms"], abs=1)

    served(config, check)


def test_a_screen_hears_the_clock_over_its_websocket(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        game = await new_game(client)
        async with client.ws_connect(f"/api/games/{game['id']}/ws") as sound, \
                client.ws_connect(f"/api/games/{game['id']}/ws") as screen:
            assert (await sound.receive_json(timeout=10))["type"] == "state"
            first = await screen.receive_json(timeout=10)
            assert first["type"] == "state" and first["playback"]["status"] != "playing"
            await sound.send_json({"type": "hello", "client": "phone-a"})
            await sound.send_json({"type": "claim"})
            await sound.send_json({"type": "play"})
            for _ in range(20):  # the next state messages, until the one that says playing
                message = await screen.receive_json(timeout=10)
                if message["type"] == "state" and message["playback"]["status"] == "playing":
                    break
            else:
                raise AssertionError("the screen never heard that the game plays")
            assert message["playback"]["holder"] == "phone-a"

    served(config, check)


@contextlib.asynccontextmanager
async def sound_and_screen(client: TestClient):
    """A new game playing: its sound device's socket, another screen's, and the playing state the
    screen was sent (position_ms was true at at_ms, on the server's clock)."""
    game = await new_game(client)
    async with client.ws_connect(f"/api/games/{game['id']}/ws") as sound, \
            client.ws_connect(f"/api/games/{game['id']}/ws") as screen:
        await sound.receive_json(timeout=10)
        await screen.receive_json(timeout=10)
        await sound.send_json({"type": "hello", "client": "phone-a"})
        await sound.send_json({"type": "claim"})
        await sound.send_json({"type": "play"})
        while (message := await screen.receive_json(timeout=10))["type"] != "state" or \
                message["playback"]["status"] != "playing":
            pass
        yield sound, screen, message["playback"]


async def next_state(screen) -> dict:
    while (message := await screen.receive_json(timeout=10))["type"] != "state":
        pass
    return message["playback"]


def test_a_report_that_agrees_with_the_clock_is_not_passed_on(config: ServeConfig) -> None:
    """The sound device reports its position every second; only a report that moves the clock
    (beyond REPORT_SAME_MS) reaches the other screens."""
    from timekeeper.serve.games.game import REPORT_SAME_MS

    async def check(client: TestClient) -> None:
        async with sound_and_screen(client) as (sound, screen, played):
            agreeing = played["position_ms"] + REPORT_SAME_MS / 2
            await sound.send_json({"type": "report", "at_ms": agreeing, "playing": True, "read_ms": played["at_ms"]})
            await sound.send_json({"type": "report", "at_ms": 5000, "playing": True, "read_ms": played["at_ms"]})
            assert (await next_state(screen))["position_ms"] == 5000  # the agreeing report was not passed on

    served(config, check)


def test_a_playing_report_read_long_ago_moves_nothing(config: ServeConfig) -> None:
    """A report read more than REPORT_LATE_MS before it is handled (a stalled network let its
    backlog through, or the server fell behind) would set every screen back by its delay: it is
    ignored, and the device's next report moves the clock."""
    from timekeeper.serve.games.game import REPORT_LATE_MS

    async def check(client: TestClient) -> None:
        async with sound_and_screen(client) as (sound, screen, played):
            stale = played["server_ms"] - REPORT_LATE_MS - 1000
            await sound.send_json({"type": "report", "at_ms": 5000, "playing": True, "read_ms": stale})
            await sound.send_json({"type": "report", "at_ms": 6000, "playing": True, "read_ms": played["server_ms"]})
            assert (await next_state(screen))["position_ms"] == 6000  # not 5000 first

    served(config, check)


def test_the_ship_log_and_the_lobby(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        listing = await client.get("/api/log")
        assert listing.status == 200 and "lines" in await listing.json()
        assert (await client.get("/api/log/999999")).status == 404
        lobby = await client.post("/api/lobby", json={"track": "builtin:test-run-1"}, headers=POST)
        assert lobby.status in (200, 201), await lobby.text()
        opened = await lobby.json()
        code = opened.get("code") or opened.get("join", {}).get("code")
        assert code
        joined = await client.get(f"/api/join/{code}")
        assert joined.status == 200

    served(config, check)


def test_hosted_mode_offers_nothing_of_the_machine(config: ServeConfig, tmp_path: Path) -> None:
    import dataclasses

    hosted = dataclasses.replace(config, public=True)

    async def check(client: TestClient) -> None:
        reply = await client.get("/api/info")
        assert reply.status == 200 and "Set-Cookie" in reply.headers  # a new browser gets a crew key
        info = await reply.json()
        assert info["public"] is True and info["music"] == [] and info["install"] == []
        groups = {track["group"] for track in (await (await client.get("/api/tracks")).json())["tracks"]}
        assert "folder" not in groups and "added" not in groups
        installing = await client.post("/api/voices/install", json={"language": "de"}, headers=POST)
        assert installing.status == 403

    served(hosted, check)


def test_the_event_loop_is_uvloop_where_installed_and_asyncio_elsewhere(monkeypatch):
    import sys

    import uvloop

    from timekeeper.serve.web import app
    assert app._event_loop_runner() is uvloop.run
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as on Windows: importing it fails
    assert app._event_loop_runner() is asyncio.run


def test_a_claim_by_the_device_that_plays_the_sound_changes_nothing(config: ServeConfig) -> None:
    """Every new socket of the sound device claims the sound again: nothing changes, nobody is told."""
    async def check(client: TestClient) -> None:
        async with sound_and_screen(client) as (sound, screen, played):
            await sound.send_json({"type": "claim"})
            await sound.send_json({"type": "pause"})
            paused = await next_state(screen)  # the pause, not a state for the claim before it
            assert paused["status"] == "paused" and paused["changes"] == played["changes"] + 1

    served(config, check)


def test_a_stopping_worker_tells_its_screens_to_move_and_hears_them_until_they_go(config: ServeConfig) -> None:
    """serve/web/drain.py: each screen is told to `move` within the window, and what it sends on its
    old socket meanwhile is carried out (the page opens its new socket before it closes this one); the
    drain ends as soon as the last screen has gone."""
    import random
    import time

    from timekeeper.serve.web.app import LIMITS
    from timekeeper.serve.web.drain import drain, move_times
    from timekeeper.serve.web.routes import STATE

    times = move_times(50, 10.0, random.Random(1))
    assert all(n * 0.2 <= at < (n + 1) * 0.2 for n, at in enumerate(times))  # one in each slot of the window

    async def check(client: TestClient) -> None:
        app = client.server.app
        app[STATE].store.shared = True  # as with --redis: there are other workers to move to
        async with sound_and_screen(client) as (sound, screen, _played):
            started = time.monotonic()
            draining = asyncio.create_task(drain(app, 1.0, app[LIMITS]))
            while (await sound.receive_json(timeout=10)) != {"type": "move"}:
                pass
            await sound.send_json({"type": "pause"})  # pressed while the page opens its new socket
            heard = []
            while {"type": "move"} not in heard or not any(m["type"] == "state" for m in heard):
                heard.append(await screen.receive_json(timeout=10))
            assert next(m for m in heard if m["type"] == "state")["playback"]["status"] == "paused"
            await sound.close()
            await screen.close()
            await asyncio.wait_for(draining, 10)
            assert time.monotonic() - started < 5.0  # not the window and its graces: every screen had gone
            assert app[STATE].stopping

    served(config, check)
