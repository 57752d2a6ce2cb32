"""Hosted mode's per-client limits counted in Redis (serve/guards/redis_rates.py), so they hold across
workers: a real `redis-server` on loopback, two RedisRates as two workers would hold them, and
two real `timekeeper serve --public --redis` workers (tests/scaleout.py)."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realparts import needs
from scaleout import deploy, start_redis, stop_process

from timekeeper.serve.games.redis_store import RedisStore
from timekeeper.serve.guards.redis_rates import LEASE_S, Lease, RedisRates
from timekeeper.serve.refusal import Refused

pytestmark = needs("redis-server")


async def two_workers(url: str, per_minute: dict[str, int]) -> tuple[list[RedisStore], list[RedisRates]]:
    stores = [RedisStore(url), RedisStore(url)]
    for store in stores:
        await store.start()
    return stores, [RedisRates(store, per_minute) for store in stores]


async def close(stores: list[RedisStore]) -> None:
    for store in stores:
        await store.close()


def test_a_clients_rooms_are_counted_once_across_two_workers(redis_url):
    async def run():
        stores, (a, b) = await two_workers(redis_url, {"rooms": 5})
        try:
            answers = [await (a if n % 2 else b).allow("198.51.100.1", "rooms") for n in range(5)]
            refused = [await a.allow("198.51.100.1", "rooms"), await b.allow("198.51.100.1", "rooms")]
            other = await b.allow("198.51.100.2", "rooms")
            trips = a.round_trips
            again = await a.allow("198.51.100.1", "rooms")  # the refusal is remembered: no round trip
            return answers, refused, other, trips, again, a.round_trips
        finally:
            await close(stores)

    answers, refused, other, trips, again, trips_after = asyncio.run(run())
    assert answers == [0] * 5
    assert all(11 <= wait <= 12 for wait in refused)  # 5 a minute: one back in 12 s
    assert other == 0
    assert again >= 11 and trips_after == trips


def test_leased_messages_stay_within_the_limit_across_workers_with_few_round_trips(redis_url):
    limit = 600  # 10 a second
    refill_per_s = limit / 60

    async def run():
        stores, workers = await two_workers(redis_url, {"messages": limit})
        try:
            started = time.monotonic()
            allowed = [await workers[n % 2].allow("198.51.100.3", "messages") == 0 for n in range(1500)]
            elapsed = time.monotonic() - started
            return allowed, elapsed, sum(w.round_trips for w in workers)
        finally:
            await close(stores)

    allowed, elapsed, trips = asyncio.run(run())
    assert elapsed < 5.0, elapsed
    spent = sum(allowed)
    assert spent <= limit + elapsed * refill_per_s  # never beyond the limit's own bucket, two workers or not
    most_stranded = 2 * int(limit * LEASE_S / 60)  # at most a lease left unspent on each worker
    assert spent >= limit * (1 - LEASE_S / 60) - most_stranded
    assert trips < spent / 5  # a round trip per batch, not per message


def test_a_lease_follows_the_clients_pace():
    rates = RedisRates(None, {"messages": 1200})  # type: ignore[arg-type]  # no Redis asked here
    assert rates._batch("messages", None) == 20  # a second of the limit at first
    assert rates._batch("messages", Lease(20, 14, 0.0)) == 12  # spent 6 (a screen's message a second)
    assert rates._batch("messages", Lease(40, 0, 0.0)) == 80  # spent it all: twice as many
    assert rates._batch("messages", Lease(100, 0, 0.0)) == 120  # at most LEASE_S seconds of the limit
    assert rates._batch("messages", Lease(20, 20, 0.0)) == 1


def test_redis_unreachable_is_a_clear_503(tmp_path):
    process, port = start_redis(tmp_path)

    async def run():
        store = RedisStore(f"redis://127.0.0.1:{port}/0")
        await store.start()
        rates = RedisRates(store)
        try:
            assert await rates.allow("198.51.100.4", "rooms") == 0
            stop_process(process, signal.SIGKILL)
            with pytest.raises(Refused) as refused:
                await rates.allow("198.51.100.4", "rooms")
            return refused.value
        finally:
            await store.close()

    error = asyncio.run(run())
    assert error.status == 503 and error.code == "store_unavailable"
    assert "Redis" not in error.message and str(port) not in error.message  # no backend named to a client


def ping(base: str, game_id: str, headers: dict) -> str:
    """The type of a worker's answer to a WebSocket ping of `game_id` (its first message, the state, skipped)."""
    import aiohttp

    async def run() -> str:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            async with session.ws_connect(f"{base.replace('http', 'ws')}/api/games/{game_id}/ws", headers=headers) as socket:
                assert (await socket.receive_json(timeout=10))["type"] == "state"
                await socket.send_json({"type": "ping", "t": 1})
                return (await socket.receive_json(timeout=10))["type"]

    return asyncio.run(run())


def test_two_real_workers_give_a_client_its_rooms_limit_not_twice_it(tmp_path):
    """Rooms asked alternately of two `--public --redis` workers: exactly the limit (10 a minute),
    then 429 with Retry-After on either; another client is not affected."""
    own = deploy(tmp_path, workers=2, nginx=False, extra=("--public",))
    try:
        bases = [f"http://127.0.0.1:{port}" for port in own.worker_ports]
        client = {"X-Forwarded-For": "203.0.113.9"}  # the workers are behind a proxy on loopback

        def new_room(index: int, headers: dict = client):
            return own.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1"},
                               base=bases[index % 2], headers=headers)

        started = time.monotonic()
        replies = [new_room(n) for n in range(14)]
        back = int((time.monotonic() - started) / 6)  # rooms back meanwhile (one every 6 s; none on a quick run)
        made = [reply.status for reply in replies]
        if back == 0:
            assert made == [201] * 10 + [429] * 4  # refused by either worker
        assert made[:10] == [201] * 10 and made.count(201) <= 10 + back, made
        for reply in (reply for reply in replies if reply.status != 201):
            assert reply.status == 429 and reply.json()["code"] == "rate_limited"
            assert "too many new rooms" in reply.json()["error"]
            assert 1 <= int(reply.headers["Retry-After"]) <= 6
        other = new_room(1, {"X-Forwarded-For": "203.0.113.10"})
        assert other.status == 201
        assert [ping(base, other.json()["id"], client) for base in bases] == ["pong", "pong"]  # messages counted too
        for worker in own.workers:
            worker.stop()
            assert "Traceback" not in "".join(worker.output)
    finally:
        own.stop()
