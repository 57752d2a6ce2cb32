"""`timekeeper serve`'s application in the test's own process, through aiohttp's test client on
loopback (the app that serve/web/app.py builds, its middleware and every kind of route), the voice a
MeasuredVoice (tests/measuredvoice.py): the fast tier's view of the server. The real process, its
limits and the browser are the full tier's (test_serve_*.py)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import wave
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from app_client import served
from measuredvoice import speak_measured

from timekeeper.serve.server import ServeConfig

POST = {"X-Timekeeper": "1"}  # the page's header on every POST




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
            assert message["playback"]["speakers"] == ["phone-a"]

    served(config, check)


@contextlib.asynccontextmanager
async def sound_and_screen(client: TestClient, **settings: object):
    """A new game playing: its speaker's socket, another screen's, and the playing state the
    screen was sent (position_ms was true at at_ms, on the server's clock)."""
    game = await new_game(client, **settings)
    async with client.ws_connect(f"/api/games/{game['id']}/ws") as sound, \
            client.ws_connect(f"/api/games/{game['id']}/ws") as screen:
        await sound.receive_json(timeout=10)
        await screen.receive_json(timeout=10)
        await sound.send_json({"type": "hello", "client": "phone-a"})
        await screen.send_json({"type": "hello", "client": "screen-b"})
        await sound.send_json({"type": "claim"})
        await sound.send_json({"type": "play"})
        while (message := await screen.receive_json(timeout=10))["type"] != "state" or \
                message["playback"]["status"] != "playing":
            pass
        yield sound, screen, message["playback"]


async def next_state(screen, test=lambda playback: True) -> dict:
    """The next state message's playback that passes `test` (others, and other messages, skipped)."""
    while (message := await screen.receive_json(timeout=10))["type"] != "state" or not test(message["playback"]):
        pass
    return message["playback"]


async def next_presence(screen, test) -> list:
    while (message := await screen.receive_json(timeout=10))["type"] != "presence" or not test(message["screens"]):
        pass
    return message["screens"]


def test_a_report_never_moves_the_rooms_clock(config: ServeConfig) -> None:
    """Every speaker follows the room's clock: a report far from it (a speaker whose sound
    started late) moves no screen's clock and is not passed on."""
    async def check(client: TestClient) -> None:
        async with sound_and_screen(client) as (sound, screen, played):
            await sound.send_json({"type": "report", "at_ms": 50_000, "playing": True, "read_ms": played["server_ms"]})
            await screen.send_json({"type": "pause"})
            paused = await next_state(screen)  # the pause's state is the next the screen hears
            assert paused["status"] == "paused" and paused["position_ms"] < 5000

    served(config, check)


def test_many_speakers_one_closed_the_mission_plays_on(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        async with sound_and_screen(client) as (sound, screen, played):
            await screen.send_json({"type": "claim", "late_ms": 120})  # the other screen plays the sound too
            both = await next_state(screen, lambda p: len(p["speakers"]) == 2)
            assert both["speakers"] == ["phone-a", "screen-b"] and both["silent_since_ms"] is None
            listed = await next_presence(screen, lambda screens: all(s["sound"] for s in screens))
            assert len(listed) == 2
            await sound.close()
            left = await next_state(screen, lambda p: p["speakers"] == ["screen-b"])
            assert left["status"] == "playing" and left["silent_since_ms"] is None

    served(config, check)


def test_a_mission_whose_last_speaker_closed_says_so_then_pauses_itself_where_it_was_heard(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        async with sound_and_screen(client, silence_pause_s=0.5) as (sound, screen, played):
            await sound.send_json({"type": "report", "at_ms": 100, "playing": True})
            await asyncio.sleep(0.3)
            await sound.send_json({"type": "report", "at_ms": 300, "playing": True})  # its sound plays on (ahead: no matter)
            await sound.close()
            silent = await next_state(screen, lambda p: p["silent_since_ms"] is not None)
            assert silent["status"] == "playing" and silent["speakers"] == [] and silent["silence_pause_ms"] == 500
            assert not any(s["sound"] for s in await next_presence(screen, lambda screens: len(screens) == 1))
            paused = await next_state(screen, lambda p: p["status"] == "paused")
            assert paused["reason"] == "silent" and paused["position_ms"] == 300  # where the sound was last heard
            assert paused["notes"] == [{"kind": "silent", "position_ms": 300, "at_ms": paused["at_ms"]}]

    served(config, check)


def test_a_speaker_whose_sound_stands_still_is_lost(config: ServeConfig) -> None:
    """Its clock has not advanced for 1.5 s (a stall): the room is silent, though its screen is there."""
    from timekeeper.serve.games.speakers import SILENT_AFTER_MS

    async def check(client: TestClient) -> None:
        async with sound_and_screen(client, silence_pause_s=0) as (sound, screen, played):
            loop = asyncio.get_running_loop()
            started = loop.time()
            while loop.time() - started < SILENT_AFTER_MS / 1000 + 1:
                await sound.send_json({"type": "report", "at_ms": 1000, "playing": True})  # stuck at 1 s
                await asyncio.sleep(0.3)
            silent = await next_state(screen, lambda p: p["silent_since_ms"] is not None)
            assert silent["status"] == "playing" and silent["speakers"] == []  # 0: it never pauses itself
            await sound.send_json({"type": "report", "at_ms": 9000, "playing": True})  # it plays again
            heard = await next_state(screen, lambda p: p["silent_since_ms"] is None)
            assert heard["speakers"] == ["phone-a"]

    served(config, check)


def test_a_speaker_no_live_worker_watches_is_lost_unless_its_page_comes_back(config: ServeConfig, monkeypatch) -> None:
    """A speaker heard when the server stopped (or its worker died) is watched by no one: its page
    claims the sound again as it reconnects; one that does not is lost after UNWATCHED_MS."""
    from timekeeper.serve.games import speakers
    from timekeeper.serve.games.speakers import Speaker
    from timekeeper.serve.web.routes import STATE

    monkeypatch.setattr(speakers, "UNWATCHED_MS", 800.0)

    async def check(client: TestClient) -> None:
        async with sound_and_screen(client, silence_pause_s=0) as (sound, screen, played):
            store = client.server.app[STATE].store
            (game,) = store.games.games.values()  # this test's one game
            assert game.speakers["phone-a"].by == store.worker  # this worker watches the speaker it holds
            game.speakers = {**game.speakers, "gone": Speaker(True, 0, None, "local-restarted")}
            started = asyncio.get_running_loop().time()
            lost = await next_state(screen, lambda p: "gone" not in p["speakers"])
            assert lost["speakers"] == ["phone-a"] and asyncio.get_running_loop().time() - started >= 0.7

    served(config, check)


def test_the_new_settings_and_a_speakers_offset_are_checked_like_every_setting(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        for settings, field in (({"remote": "yes"}, "settings.remote"), ({"silence_pause_s": 61}, "settings.silence_pause_s"),
                                ({"silence_pause_s": -1}, "settings.silence_pause_s")):
            reply = await client.post("/api/games", json={"track": "builtin:test-run-1", "settings": settings}, headers=POST)
            assert reply.status == 400 and (await reply.json())["field"] == field
        remote = await new_game(client, remote=True, silence_pause_s=10)
        assert remote["settings"]["remote"] is True and remote["playback"]["silence_pause_ms"] == 10_000
        alone = await new_game(client)
        assert remote["sound"]["url"].rsplit("/", 1)[1] == alone["sound"]["url"].rsplit("/", 1)[1]  # one sound file
        async with client.ws_connect(f"/api/games/{remote['id']}/ws") as socket:
            await socket.receive_json(timeout=10)
            await socket.send_json({"type": "hello", "client": "phone-a"})
            await socket.send_json({"type": "claim", "late_ms": 501})
            while (message := await socket.receive_json(timeout=10))["type"] != "error":
                pass
            assert message["field"] == "late_ms" and "500" in message["error"]

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
