"""Per-client limits counted in Redis (`timekeeper serve --public --redis URL`): a client gets its
limit across all the workers, not once per worker. The limits, the kinds and the 429 with
Retry-After are those of serve/guards/rates.py; this only counts them where every worker sees the count.

Each client and kind has a token bucket in Redis (`timekeeper:rate:KIND:CLIENT`, a hash of its
tokens and when they were counted, in ms of Redis's own clock, so workers on several machines need
not agree on the time), taken from atomically by one Lua script. The key expires once the bucket
would be full again: an idle client costs Redis nothing.

Two ways of taking, by how often a kind comes:
- rooms, renders, uploads, joins (a few a minute): one token per request, one round trip each.
- messages and requests (up to 1,200 and 2,400 a minute; every screen sends a message a second):
  a worker leases a batch of tokens from the client's bucket and spends them itself, so it asks
  Redis about once per batch, not once per message. A lease must be spent within LEASE_S of being
  taken, else its rest is dropped (never given back). Its size follows the client's pace on this
  worker: twice what the last lease spent, from 1 up to LEASE_S seconds of the limit; a screen
  sending one message a second costs one round trip per LEASE_S.
  Why this stays within the limit: every token spent was taken from the bucket at most LEASE_S
  earlier, so over any time T a client spends at most what the bucket gave over T + LEASE_S,
  that is its capacity plus (T + LEASE_S) times the refill. The bucket of a leased kind therefore
  holds LEASE_S seconds of refill less than the limit (messages: 1,080 at once instead of 1,200):
  whatever the number of workers, a client never spends more than the limit's own bucket would let
  it over any time, and its steady rate is the full limit. Leftovers dropped and leases held by
  another worker only ever make it less.

A refusal is remembered until Redis said a token comes back, so a client beyond its limit costs
no round trip either. Redis unreachable: the request is refused 503 `store_unavailable`, as every
other use of the store (serve/games/redis_store.py).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from timekeeper.serve.games.redis_store import PREFIX
from timekeeper.serve.guards.rates import MAX_CLIENTS, PER_MINUTE

if TYPE_CHECKING:
    from timekeeper.serve.games.redis_store import RedisStore

LEASED = frozenset({"messages", "requests"})  # kinds counted by leases (see the module's docstring)
LEASE_S = 6.0  # a lease's tokens are spent within this, or dropped

# KEYS[1]: the bucket. ARGV: its capacity, its refill (tokens a minute), the tokens wanted. Gives
# as many as it holds whole, up to those wanted: {tokens given, ms until one token is there (0
# when some were given)}.
_TAKE = """
local capacity, per_ms, wanted = tonumber(ARGV[1]), tonumber(ARGV[2]) / 60000, tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = capacity
if saved[1] and saved[2] then
  tokens = math.min(capacity, tonumber(saved[1]) + math.max(0, now - tonumber(saved[2])) * per_ms)
end
local given = math.min(wanted, math.floor(tokens))
tokens = tokens - given
redis.call('HSET', KEYS[1], 't', string.format('%.6f', tokens), 'at', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
if given > 0 then return {given, 0} end
return {0, math.ceil((1 - tokens) / per_ms)}
"""


@dataclass
class Lease:
    """Tokens of one client and kind this worker took from Redis and may spend until `until`
    (monotonic s); `refused_until`: Redis had none before then."""

    size: int
    left: int
    until: float
    refused_until: float = 0.0


class RedisRates:
    """The per-client limits of every worker sharing `store`'s Redis."""

    def __init__(self, store: RedisStore, per_minute: dict[str, int] | None = None,
                 max_clients: int = MAX_CLIENTS) -> None:
        self.store = store
        self.per_minute = dict(PER_MINUTE if per_minute is None else per_minute)
        self.max_clients = max_clients
        self.leases: dict[tuple[str, str], Lease] = {}  # (client, kind) -> what this worker holds
        self._script: Any = None
        self.round_trips = 0  # asked Redis (the tests and benchmarks read it)

    def capacity(self, kind: str) -> float:
        """Tokens a bucket of `kind` holds when full (see the module's docstring)."""
        limit = self.per_minute[kind]
        return limit * (1.0 - LEASE_S / 60.0) if kind in LEASED else float(limit)

    async def allow(self, client: str, kind: str) -> int:
        """0 when `client` may do one more `kind` now (it is counted), else the whole seconds to
        wait. Refused (503) when Redis cannot be reached."""
        now = time.monotonic()
        key = (client, kind)
        lease = self.leases.get(key)
        if lease is not None:
            if lease.left > 0 and now < lease.until:
                lease.left -= 1
                return 0
            if now < lease.refused_until:
                return max(1, math.ceil(lease.refused_until - now))
        wanted = self._batch(kind, lease) if kind in LEASED else 1
        given, wait_ms = await self._take(client, kind, wanted)
        if len(self.leases) >= self.max_clients and key not in self.leases:
            self._forget(now)
        if given == 0:
            self.leases[key] = Lease(0, 0, now, refused_until=now + wait_ms / 1000.0)
            return max(1, math.ceil(wait_ms / 1000.0))
        self.leases[key] = Lease(given, given - 1, now + LEASE_S)  # its time counted from before it was asked
        return 0

    def _batch(self, kind: str, lease: Lease | None) -> int:
        """Tokens to lease: twice what the last lease spent (a second of the limit at first),
        from 1 up to LEASE_S seconds of the limit."""
        most = max(1, int(self.per_minute[kind] * LEASE_S / 60.0))
        if lease is None or lease.size == 0:
            return min(most, max(1, self.per_minute[kind] // 60))
        return min(most, max(1, 2 * (lease.size - lease.left)))

    async def _take(self, client: str, kind: str, wanted: int) -> tuple[int, int]:
        """(tokens given, ms until one is there) from the client's bucket in Redis."""
        async with self.store.failures():
            if self._script is None:
                self._script = self.store.redis.register_script(_TAKE)
            self.round_trips += 1
            given, wait_ms = await self._script(keys=[f"{PREFIX}rate:{kind}:{client}"],
                                                args=[self.capacity(kind), self.per_minute[kind], wanted])
        return int(given), int(wait_ms)

    def _forget(self, now: float) -> None:
        """Drop the leases that are over (spent or too old, refusals past); then the oldest half."""
        over = [key for key, lease in self.leases.items() if lease.until <= now and lease.refused_until <= now]
        for key in over:
            del self.leases[key]
        if len(self.leases) >= self.max_clients:
            oldest = sorted(self.leases, key=lambda key: self.leases[key].until)[: len(self.leases) // 2]
            for key in oldest:
                del self.leases[key]
