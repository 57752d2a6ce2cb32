"""Per-client limits of hosted mode (`timekeeper serve --public`): how many rooms, renders,
uploads, code look-ups, commands and requests one client address may send a minute. Each is a
token bucket that refills evenly over the minute; a refused request is told how many seconds to
wait (429 with Retry-After). docs/serve.md#hosted-mode lists the figures.

ClientRates counts in this process (one worker, no --redis); serve/guards/redis_rates.py counts the same
limits in Redis, so they hold across every worker. Both answer `allow(client, kind)`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

PER_MINUTE = {
    "rooms": 10,  # new games (a lobby, or a game made at once)
    "renders": 6,  # soundtrack downloads asked for (mp3, ogg)
    "uploads": 20,  # uploaded files, pasted FlashPlayerCodes, generate requests
    "joins": 30,  # short codes looked up (guessing a room's code is slow)
    "messages": 1200,  # commands: WebSocket messages and command/set-up/log requests
    "requests": 2400,  # any request (the page, its assets, the sound's byte ranges)
}
WHAT = {"rooms": "new rooms", "renders": "soundtrack renders", "uploads": "uploads and generated missions",
        "joins": "code look-ups", "messages": "messages", "requests": "requests"}
MAX_CLIENTS = 50_000  # clients remembered; beyond, those whose buckets are full again are forgotten first


@dataclass
class Bucket:
    tokens: float
    at: float


class ClientRates:
    """The buckets of every client address, by kind of request."""

    def __init__(self, per_minute: dict[str, int] | None = None, max_clients: int = MAX_CLIENTS) -> None:
        self.per_minute = dict(PER_MINUTE if per_minute is None else per_minute)
        self.max_clients = max_clients
        self.buckets: dict[tuple[str, str], Bucket] = {}

    async def allow(self, client: str, kind: str) -> int:
        """0 when `client` may do one more `kind` now (it is counted), else the whole seconds to wait."""
        return self.take(client, kind)

    def take(self, client: str, kind: str, now: float | None = None) -> int:
        """0 when `client` may do one more `kind` now (it is counted), else the whole seconds to wait."""
        limit = self.per_minute[kind]
        now = time.monotonic() if now is None else now
        refill = limit / 60.0
        bucket = self.buckets.get((client, kind))
        if bucket is None:
            if len(self.buckets) >= self.max_clients:
                self._forget(now)
            bucket = self.buckets[(client, kind)] = Bucket(float(limit), now)
        bucket.tokens = min(float(limit), bucket.tokens + (now - bucket.at) * refill)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0
        return max(1, math.ceil((1.0 - bucket.tokens) / refill))

    def _forget(self, now: float) -> None:
        """Drop the buckets that have refilled (nothing to remember); then the oldest half."""
        full = [key for key, b in self.buckets.items()
                if b.tokens + (now - b.at) * self.per_minute[key[1]] / 60.0 >= self.per_minute[key[1]]]
        for key in full:
            del self.buckets[key]
        if len(self.buckets) >= self.max_clients:
            oldest = sorted(self.buckets, key=lambda key: self.buckets[key].at)[: len(self.buckets) // 2]
            for key in oldest:
                del self.buckets[key]
