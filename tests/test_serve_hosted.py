"""Hosted mode (`timekeeper serve --public`) on a real server on loopback: crews see only their
own tracks and ship's log, nothing of the machine is offered, rooms expire, per-client limits
answer 429 with Retry-After (real clients counted through a trusted proxy only), and the slow-work
queues are shared fairly between crews."""

from __future__ import annotations

import asyncio
import secrets
import threading
import time

import pytest
from running import timekeeper
from serving import start_server
from waiting import asked_until_refused, read_timed, wait_until

from timekeeper.serve.guards.crews import COOKIE
from timekeeper.serve.guards.rates import PER_MINUTE, ClientRates

VALUES = {"crew": "Ann:captain, Bob:co, Cid:sc, Dee", "survived": "4", "destroyed": "10", "damage_red": "2"}
CODE = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"


def crew_key() -> str:
    return secrets.token_urlsafe(18)


class Crew:
    """One browser of one crew behind the proxy: its crew cookie and its client address."""

    def __init__(self, server, address: str, key: str | None = None) -> None:
        self.server, self.address, self.key = server, address, key or crew_key()

    def __call__(self, path: str, method: str = "GET", body: object = None, data: bytes | None = None,
                 headers: dict | None = None):
        sent = {"Cookie": f"{COOKIE}={self.key}", "X-Forwarded-For": f"198.51.100.77, {self.address}",
                "X-Timekeeper": "1", **(headers or {})}
        return self.server.request(path, method=method, json_body=body, data=data, headers=sent)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory, log_data):
    folder = tmp_path_factory.mktemp("hosted")
    machine_log = log_data / "shiplog.sqlite3"
    before = machine_log.stat().st_mtime_ns if machine_log.exists() else None
    running = start_server(folder / "state", "--public", "--trust-proxy", "127.0.0.1")
    running.folder = folder
    yield running
    assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)
    after = machine_log.stat().st_mtime_ns if machine_log.exists() else None
    assert after == before, "hosted mode touched the machine's ship's log"


def test_public_refuses_the_machines_folders_and_log_with_a_clear_error(tmp_path):
    for extra in (["--scenarios", str(tmp_path)], ["--music", str(tmp_path)], ["--log", str(tmp_path / "l.sqlite3")],
                  ["--lan"]):
        done = timekeeper("serve", "--public", "--port", "0", "--state", str(tmp_path / "s"), *extra, timeout=30)
        assert done.returncode == 2, done.stderr
        assert "--public" in done.stderr and extra[0] in done.stderr and "Traceback" not in done.stderr
    done = timekeeper("serve", "--trust-proxy", "127.0.0.1", "--room-idle", "5", timeout=30)
    assert done.returncode == 2 and "--trust-proxy, --room-idle go only with --public" in done.stderr
    done = timekeeper("serve", "--public", "--trust-proxy", "proxy.example", timeout=30)
    assert done.returncode == 2 and "expected an IP address" in done.stderr
    helped = timekeeper("serve", "--help", timeout=30)
    assert "timekeeper serve --public" in helped.stdout and "--trust-proxy" in helped.stdout


def test_a_new_browser_gets_a_crew_and_nothing_of_the_machine(hosted):
    reply = hosted.request("/api/info")
    assert reply.status == 200 and COOKIE in reply.headers.get("Set-Cookie", "")
    info = reply.json()
    assert info["public"] is True and info["lan"] is True  # the QR code is shown: phones reach the server
    assert info["music"] == [] and info["install"] == []
    groups = {track["group"] for track in hosted.request("/api/tracks").json()["tracks"]}
    assert "folder" not in groups and "added" not in groups
    installing = hosted.request("/api/voices/install", method="POST", json_body={"language": "de"})
    assert installing.status == 403  # loopback is the proxy here: never the machine's own browser


def test_crews_see_only_their_own_tracks_and_log(hosted):
    a, b = Crew(hosted, "203.0.113.10"), Crew(hosted, "203.0.113.11")
    mine = a("/api/tracks/flashcode", "POST", {"code": CODE, "title": "Crew A's track"})
    assert mine.status == 201, mine.body
    track = mine.json()["track"]["id"]
    from timekeeper.scenario.catalog import builtin_paths

    upload = a("/api/tracks/upload?name=m2.yaml", "POST", data=builtin_paths()["mission-2"].read_bytes())
    assert upload.status == 201
    generated = a("/api/tracks/generate", "POST", {"seed": 4711, "kind": "mission"})
    assert generated.status == 201, generated.body
    made = {track, upload.json()["track"]["id"], generated.json()["tracks"][0]["id"]}
    listed = {t["id"] for t in a("/api/tracks").json()["tracks"]}
    assert made <= listed
    assert not {t["id"] for t in b("/api/tracks").json()["tracks"]} & made
    stolen = b("/api/lobby", "POST", {"track": track})
    assert stolen.status == 404 and stolen.json()["code"] == "not_found"

    room = a("/api/lobby", "POST", {"track": track})
    assert room.status == 201, room.body
    game = room.json()
    assert game["join_url"].endswith(f"/g/{game['id']}") and len(game["code"]) == 5
    # the room's link is all a screen needs, whichever crew its browser belongs to
    assert b(f"/api/games/{game['id']}").status == 200
    assert b(f"/api/join/{game['code']}").json() == {"id": game["id"]}
    # B's screen changes the set-up: tracks come from the room's crew (A's), never B's
    other = b("/api/tracks/flashcode", "POST", {"code": CODE, "title": "Crew B's track"}).json()["track"]["id"]
    assert b(f"/api/games/{game['id']}/setup", "POST", {"track": other}).status == 404
    assert b(f"/api/games/{game['id']}/setup", "POST", {"track": track}).status == 200

    recorded = b(f"/api/games/{game['id']}/log", "POST", VALUES)  # recorded by a screen: in the room's crew's log
    assert recorded.status == 201, recorded.body
    entry = recorded.json()["id"]
    assert len(a("/api/log").json()["lines"]) == 1
    assert b("/api/log").json()["lines"] == []
    for method, body in (("GET", None), ("DELETE", None), ("PATCH", {"survived": "1"})):
        other = b(f"/api/log/{entry}", method, body)
        assert other.status == 404 and other.json()["code"] == "not_found", other.body
        # what the client asked for, never where the server keeps a crew's log
        assert not any(place in other.text for place in (str(hosted.folder), "crews", "sqlite", ":memory:")), other.text
    assert a(f"/api/log/{entry}").json()["id"] == entry
    assert b("/api/log.pdf").status == 200 and a("/api/log").json()["lines"][0]["id"] == entry


def test_the_crew_link_opens_the_crews_log_on_another_device(hosted):
    a = Crew(hosted, "203.0.113.20")
    link = a("/api/crew").json()["link"]
    assert link == f"{hosted.url.rstrip('/')}/crew/{a.key}"
    game = a("/api/lobby", "POST", {"track": "builtin:mission-3"}).json()
    assert a(f"/api/games/{game['id']}/log", "POST", VALUES).status == 201
    fresh = hosted.request(f"/crew/{a.key}", headers={"X-Forwarded-For": "203.0.113.21"})
    # urllib follows the redirect to /log (the page); the cookie came with the redirect
    assert fresh.status == 200 and "<html" in fresh.text.lower()
    phone = Crew(hosted, "203.0.113.21", key=a.key)
    assert [line["id"] for line in phone("/api/log").json()["lines"]] == [line["id"] for line in a("/api/log").json()["lines"]]
    assert hosted.request("/crew/not-a-key").status == 404


def test_rooms_a_minute_per_real_client_then_429_with_retry_after(hosted):
    limit = PER_MINUTE["rooms"]
    one, two = Crew(hosted, "203.0.113.30"), Crew(hosted, "203.0.113.31")
    answers, _ = asked_until_refused(lambda: one("/api/lobby", "POST", {"track": "builtin:test-run-1"}),
                                     lambda reply: reply.status == 429, limit)
    refused = answers[-1]
    assert {reply.status for reply in answers[:-1]} == {201}
    body = refused.json()
    assert body["code"] == "rate_limited" and "new rooms" in body["error"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert two("/api/lobby", "POST", {"track": "builtin:test-run-1"}).status == 201  # another client


def test_guessing_short_codes_is_limited(hosted):
    guesser = Crew(hosted, "203.0.113.40")
    answers, _ = asked_until_refused(lambda: guesser("/api/join/AAAAA").status, lambda status: status == 429,
                                     PER_MINUTE["joins"])
    assert set(answers[:-1]) == {404}


def test_websocket_messages_a_minute_per_client(hosted):
    import aiohttp

    crew = Crew(hosted, "203.0.113.50")
    game = crew("/api/lobby", "POST", {"track": "builtin:test-run-1"}).json()
    url = hosted.url.replace("http", "ws") + f"api/games/{game['id']}/ws"
    sockets, each = 24, 60  # 1,440 messages at once: more than a minute's 1,200, within each socket's burst

    async def scenario() -> list[dict]:
        headers = {"X-Forwarded-For": crew.address}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            joined = [await session.ws_connect(url, headers=headers) for _ in range(sockets)]
            for socket in joined:
                assert (await socket.receive_json(timeout=10))["type"] == "state"
            for socket in joined:
                for n in range(each):
                    await socket.send_json({"type": "ping", "t": n})
            answers = []
            for socket in joined:
                for _ in range(each):
                    answers.append(await socket.receive_json(timeout=10))
            for socket in joined:
                await socket.close()
            return answers

    sent = read_timed(lambda: asyncio.run(asyncio.wait_for(scenario(), 90)))
    answers = sent.value
    refused = [a for a in answers if a["type"] == "error"]
    refilled = (sent.after_s - sent.before_s) * PER_MINUTE["messages"] / 60  # (the bucket refills as they are sent)
    assert len(refused) >= sockets * each - PER_MINUTE["messages"] - refilled - 1
    assert all(a["code"] == "rate_limited" and a["retry_after_s"] >= 1 for a in refused)
    assert sum(a["type"] == "pong" for a in answers) >= PER_MINUTE["messages"] - 10


def test_neither_one_crew_nor_one_address_can_fill_a_queue_of_slow_work():
    """Each job counts against its crew and its client address: one crew cannot hold more than its
    share, nor can one address rotating crew cookies (it would hold 6 of the 7 render places)."""
    from timekeeper.serve.guards.work_queues import WorkQueue
    from timekeeper.serve.refusal import Refused

    release = threading.Event()
    jobs = [("a", "1.1.1.1"), ("a", "1.1.1.2"), ("a", "1.1.1.3"),  # crew a: a third job is refused
            ("b", "2.2.2.2"), ("c", "2.2.2.2"), ("d", "2.2.2.2"),  # one address, new crews: the third refused
            ("e", "3.3.3.3")]

    async def scenario() -> tuple[list[str], str]:
        queue = WorkQueue("render", 1, 6, per_owner=2)
        outcomes = []
        futures = []
        for n, (crew, address) in enumerate(jobs):
            try:
                futures.append(queue.start(f"job{n}", release.wait, (f"crew:{crew}", f"client:{address}")))
                outcomes.append("queued")
            except Refused as error:
                outcomes.append(f"{error.status} {error.code} {error.retry_after_s}")
        try:
            queue.start("full", release.wait, ("crew:f", "client:4.4.4.4"))
            full = "queued"
        except Refused as error:
            full = f"{error.status} {error.code}"
        release.set()
        await asyncio.gather(*futures)
        assert queue.keys == [] and queue.owners == {}
        queue.start("again", lambda: None, ("crew:a", "client:2.2.2.2"))  # the shares are free again
        queue.shutdown()
        return outcomes, full

    outcomes, full = asyncio.run(scenario())
    assert outcomes == ["queued", "queued", "429 rate_limited 20", "queued", "queued", "429 rate_limited 20", "queued"]
    assert full == "queued"  # 6 places taken of 7: another crew from another address still gets one


def test_rates_refill_over_the_minute_and_forget_idle_clients():
    rates = ClientRates({"rooms": 6}, max_clients=4)
    assert [rates.take("x", "rooms", now=0.0) for _ in range(7)] == [0] * 6 + [10]
    assert rates.take("x", "rooms", now=10.0) == 0  # one room back after 10 s
    for n in range(10):
        rates.take(f"c{n}", "rooms", now=100.0)
    assert len(rates.buckets) <= 4


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("idle") / "state", "--public", "--room-idle", "1")
    yield running
    assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)


def test_idle_rooms_expire_but_not_while_a_screen_is_connected(short_lived):
    import aiohttp

    gone = short_lived.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"}).json()
    kept = short_lived.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-2"}).json()
    url = short_lived.url.replace("http", "ws") + f"api/games/{kept['id']}/ws"

    async def scenario() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            async with session.ws_connect(url) as screen:
                assert (await screen.receive_json(timeout=5))["type"] == "state"
                await asyncio.sleep(2.5)
                assert (await asyncio.to_thread(short_lived.request, f"/api/games/{kept['id']}")).status == 200

    asyncio.run(asyncio.wait_for(scenario(), 30))
    expired = wait_until(lambda: (reply := short_lived.request(f"/api/games/{gone['id']}")).status == 404 and reply, 15,
                         "the idle room to go")  # (swept every quarter of the idle time)
    assert expired.json()["code"] == "not_found"
    assert short_lived.request(f"/api/join/{gone['code']}").status == 404
    deadline = time.monotonic() + 15
    while short_lived.request(f"/api/join/{kept['code']}").status != 404 and time.monotonic() < deadline:
        time.sleep(1.0)  # the screen has left: its room goes after the idle time too (a few look-ups: not 30)
    assert short_lived.request(f"/api/games/{kept['id']}").status == 404


def test_forwarded_addresses_count_only_from_a_trusted_proxy(short_lived):
    # this server trusts no proxy: X-Forwarded-For is ignored, every request is 127.0.0.1's
    addresses = (f"192.0.2.{n}" for n in range(1, 255))
    answers, _ = asked_until_refused(lambda: short_lived.request("/api/join/AAAAA", headers={"X-Forwarded-For": next(addresses)}).status,
                                     lambda status: status == 429, PER_MINUTE["joins"], fresh=False)  # (the tests before looked codes up)
    assert set(answers[:-1]) <= {404}


def test_the_proxys_https_makes_secure_cookies_and_https_links(hosted):
    behind = hosted.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"},
                            headers={"X-Forwarded-For": "203.0.113.60", "X-Forwarded-Proto": "https",
                                     "Host": "tk.example.org"})
    assert behind.status == 201
    assert behind.json()["join_url"].startswith("https://tk.example.org/g/")
    cookie = behind.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_a_forwarded_scheme_from_an_untrusted_peer_is_ignored(short_lived):
    reply = short_lived.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"},
                                headers={"X-Forwarded-Proto": "https"})
    assert reply.status == 201 and reply.json()["join_url"].startswith("http://127.0.0.1:")
    assert "Secure" not in reply.headers["Set-Cookie"]


def test_the_public_url_is_what_links_carry(tmp_path):
    running = start_server(tmp_path / "state", "--public", "--public-url", "https://crews.example.net/")
    try:
        room = running.request("/api/lobby", method="POST", json_body={"track": "builtin:test-run-1"}).json()
        assert room["join_url"] == f"https://crews.example.net/g/{room['id']}"
        qr = running.request(f"/api/games/{room['id']}/qr.svg")
        assert qr.status == 200 and qr.headers["Content-Type"] == "image/svg+xml"
    finally:
        assert running.stop() == 130
    done = timekeeper("serve", "--public", "--public-url", "ftp://x", timeout=30)
    assert done.returncode == 2 and "--public-url" in done.stderr


def test_the_client_is_the_address_the_trusted_proxy_adds():
    from timekeeper.serve.guards.clients import real_client

    proxies = frozenset({"127.0.0.1", "10.0.0.2"})
    assert real_client("127.0.0.1", "203.0.113.9", proxies) == "203.0.113.9"
    assert real_client("127.0.0.1", "1.2.3.4, 203.0.113.9", proxies) == "203.0.113.9"  # what the client wrote is left of it
    assert real_client("127.0.0.1", "203.0.113.9, 10.0.0.2", proxies) == "203.0.113.9"  # through two proxies
    assert real_client("127.0.0.1", "[2001:db8::7]", proxies) == "2001:db8::7"
    assert real_client("127.0.0.1", "not an address", proxies) == "127.0.0.1"
    assert real_client("192.0.2.5", "203.0.113.9", proxies) == "192.0.2.5"  # not a trusted proxy: ignored
    assert real_client("127.0.0.1", None, proxies) == "127.0.0.1"


def test_the_trusted_proxy_may_hold_more_connections_than_one_client(hosted):
    import socket

    idle = []
    try:
        for _ in range(150):  # one client may hold 100; the proxy carries everyone's
            idle.append(socket.create_connection(("127.0.0.1", hosted.port), timeout=5))
        assert hosted.request("/api/info").status == 200
        time.sleep(0.3)
        still = 0
        for connection in idle:
            connection.setblocking(False)
            try:
                still += connection.recv(1) != b""
            except BlockingIOError:
                still += 1
        assert still == 150
    finally:
        for connection in idle:
            connection.close()


def test_a_full_server_forgets_only_a_long_unused_crew(tmp_path, monkeypatch):
    import os

    from timekeeper.serve.guards import crews
    from timekeeper.serve.refusal import Refused
    from timekeeper.serve.tracks.library import Library

    monkeypatch.setattr(crews, "MAX_CREWS", 2)
    kept = crews.Crews(tmp_path, Library(None, tmp_path / "shared"))
    kept.claim("old")
    kept.claim("recent")
    with pytest.raises(Refused) as refused:
        kept.claim("new")  # both in use lately: a new crew waits
    assert refused.value.status == 503 and refused.value.code == "too_busy"
    long_ago = time.time() - (crews.CREW_KEEP_DAYS + 1) * 86400
    os.utime(tmp_path / "crews" / "old", (long_ago, long_ago))
    kept.claim("new")
    assert sorted(p.name for p in (tmp_path / "crews").iterdir()) == ["new", "recent"]
