"""Hosted mode's promises against an attacker, in the test's own process (the app serve/web/app.py
builds, with `--public` and a trusted proxy on 127.0.0.1, so each request names its client address
in X-Forwarded-For): every limit holds for every method, slow work takes a share of the crew's and
of the client address's, a crew is never handed to strangers by a cacheable answer, a malformed
key makes no crew, answers never name the server's folders, and an expired room is never written
again. The real processes, Redis and signals are the full tier's (test_serve_hosted.py,
test_serve_hosted_redis.py, test_serve_signals.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from app_client import served
from measuredvoice import speak_measured

from timekeeper.serve.guards.crews import COOKIE
from timekeeper.serve.guards.rates import PER_MINUTE
from timekeeper.serve.server import ServeConfig

POST = {"X-Timekeeper": "1"}  # the page's header on every POST




@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ServeConfig:
    speak_measured(monkeypatch)
    return ServeConfig(state=tmp_path / "state", sound_cache=tmp_path / "sound", renders=tmp_path / "renders",
                       port=0, encode_in_child=False, public=True, trusted_proxies=("127.0.0.1",))


def by(address: str, key: str | None = None, **headers: str) -> dict:
    """Headers of a request from `address` (through the trusted proxy), with crew `key` if given."""
    sent = {"X-Forwarded-For": address, **POST, **headers}
    if key is not None:
        sent["Cookie"] = f"{COOKIE}={key}"
    return sent


def test_head_is_counted_as_the_get_it_is_answered_by(config: ServeConfig) -> None:
    """`HEAD /api/join/CODE` and `HEAD /j/CODE` answer whether a room has the code, as GET does:
    they count against the same 30 look-ups a minute."""
    limit = PER_MINUTE["joins"]

    async def check(client: TestClient) -> None:
        for path in ("/api/join/AAAAA", "/j/AAAAA"):
            address = "203.0.113.1" if path.startswith("/api") else "203.0.113.2"
            started, allowed = time.monotonic(), 0
            while (await client.head(path, headers=by(address), allow_redirects=False)).status != 429:
                allowed += 1
                assert allowed <= limit + (time.monotonic() - started) * limit / 60 + 1, "HEAD is not counted"
            assert allowed >= limit
            assert (await client.get(path, headers=by(address), allow_redirects=False)).status == 429

    served(config, check, cookies=False)


def test_a_cacheable_answer_never_hands_out_a_crew(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        words = await client.get("/api/messages/de", headers=by("203.0.113.3"))
        assert words.status == 200 and "public" in words.headers["Cache-Control"]
        assert "Set-Cookie" not in words.headers  # a proxy keeping it would give that crew to every later visitor
        page = await client.get("/", headers=by("203.0.113.3"))
        assert COOKIE in page.headers["Set-Cookie"]
        assert "private" in page.headers["Cache-Control"]  # an answer with a crew is the browser's alone
        video = await client.get("/assets/awake.webm", headers=by("203.0.113.3"))
        assert "Set-Cookie" not in video.headers or "private" in video.headers["Cache-Control"]

    served(config, check, cookies=False)


def test_a_malformed_crew_key_makes_no_crew(config: ServeConfig) -> None:
    key = "A" * 24

    async def check(client: TestClient) -> None:
        for link in (f"/crew/{key}%0A", f"/crew/{key}%20", f"/crew/{key[:-1]}", f"/crew/{key}A"):
            reply = await client.get(link, headers=by("203.0.113.4"), allow_redirects=False)
            assert reply.status == 404 and "Set-Cookie" not in reply.headers, link
        good = await client.get(f"/crew/{key}", headers=by("203.0.113.4"), allow_redirects=False)
        assert good.status == 302 and f"{COOKIE}={key}" in good.headers["Set-Cookie"]
        for cookie in (key + "=", "A" * 25, key[:-1] + "!"):  # not a key: a crew of its own
            reply = await client.get("/api/crew", headers=by("203.0.113.4", key=cookie))
            link = (await reply.json())["link"]
            assert not link.endswith(f"/crew/{key}"), cookie
        for code in ("AAAA%0A", "AAAAA%0A", "A" * 12):
            assert (await client.get(f"/api/join/{code}", headers=by("203.0.113.5"))).status == 404

    served(config, check, cookies=False)


def test_slow_work_takes_a_share_of_the_crew_and_of_the_address(config: ServeConfig, monkeypatch) -> None:
    """A card's PDF and the log's PDF wait in the slow-work queue: one crew holds at most 2 places,
    and so does one address rotating crews; another crew from another address still gets one."""
    from timekeeper.cards import pdf

    release = threading.Event()
    real = pdf.cards_pdf
    monkeypatch.setattr(pdf, "cards_pdf", lambda *args, **kwargs: (release.wait(30), real(*args, **kwargs))[1])

    async def check(client: TestClient) -> None:
        made = await client.post("/api/games", json={"track": "builtin:test-run-1"}, headers=by("203.0.113.6"))
        game = (await made.json())["id"]
        card = f"/api/games/{game}/card.pdf"

        async def ask(address: str, key: str) -> int:
            return (await client.get(card, headers=by(address, key=key))).status

        crew = "C" * 24
        waiting = [asyncio.ensure_future(ask("203.0.113.7", crew)) for _ in range(2)]
        await asyncio.sleep(0.3)
        assert await ask("203.0.113.8", crew) == 429  # the crew's share, from any address
        rotating = [asyncio.ensure_future(ask("203.0.113.9", f"{n}" * 24)) for n in range(2)]
        await asyncio.sleep(0.3)
        assert await ask("203.0.113.9", "7" * 24) == 429  # the address's share, whatever crew it shows
        printed = await client.get("/api/log.pdf", headers=by("203.0.113.9", key="8" * 24))
        assert printed.status == 429  # the log's PDF too
        other = asyncio.ensure_future(ask("203.0.113.10", "D" * 24))
        await asyncio.sleep(0.3)
        release.set()
        assert await asyncio.gather(*waiting, *rotating, other) == [200] * 5

    served(config, check, cookies=False)


def test_an_unknown_log_entry_names_no_folder_of_the_server(config: ServeConfig) -> None:
    async def check(client: TestClient) -> None:
        for method in ("GET", "DELETE"):
            reply = await client.request(method, "/api/log/7", headers=by("203.0.113.11", key="E" * 24))
            text = await reply.text()
            assert reply.status == 404 and str(config.state) not in text and "crews" not in text, text
            assert ":memory:" not in text and "sqlite" not in text, text

    served(config, check, cookies=False)


def test_a_room_that_expires_before_its_mix_is_ready_is_not_written_again(config: ServeConfig, monkeypatch) -> None:
    """The lobby prepares a room's mix in the background; the room expires meanwhile (nobody uses it):
    when the mix is ready, the room is not saved again, and a restart does not bring it back."""
    from timekeeper.serve import server as serving
    from timekeeper.serve.games.store import LocalStore

    release = threading.Event()
    prepare = serving.ServerState._prepare
    monkeypatch.setattr(serving.ServerState, "_prepare", lambda state, game: (release.wait(30), prepare(state, game))[1])
    games = config.state / "games"

    async def check(client: TestClient) -> None:
        made = await client.post("/api/lobby", json={"track": "builtin:test-run-1"}, headers=by("203.0.113.12"))
        game = (await made.json())["id"]
        assert (games / f"{game}.json").is_file()
        for _ in range(100):  # it expires (0.6 s without a screen or a request)
            await asyncio.sleep(0.1)
            if not (games / f"{game}.json").exists():
                break
        assert not (games / f"{game}.json").exists()
        release.set()
        await asyncio.sleep(1.0)  # the mix is ready: the room learns its length... and must stay gone
        assert not (games / f"{game}.json").exists()
        assert (await client.get(f"/api/games/{game}", headers=by("203.0.113.12"))).status == 404

    served(dataclasses.replace(config, room_idle_s=0.6), check, cookies=False)
    assert LocalStore(config.state, 10).kept_games() == []  # a restart finds no room
