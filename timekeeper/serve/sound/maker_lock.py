"""Who makes a sound file, decided in Redis (`timekeeper serve --redis URL`): workers on several
machines share the sound folder over a network file system, where `flock` (serve/sound/cache.py)
may not exclude one machine from another, so the maker also holds `timekeeper:lock:sound:KEY`.

The lock is taken with SET NX and an expiry of `ttl_s` (30 s), renewed by its maker while it
writes (at least every sixth of that), and deleted when the file is complete or given up. A maker
that dies stops renewing: the lock expires and the next process asked takes it and starts the
file again. A maker that finds its lock gone or taken (it stalled longer than the expiry) stops
writing at once. The soundcache runs in threads, so this uses redis-py's synchronous client.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

LOCK_TTL_S = 30.0  # a maker that stops renewing loses the lock after this

# KEYS[1]: the lock; ARGV[1]: its holder's token; ARGV[2]: the expiry in ms. Kept only by its holder.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class LockUnavailable(Exception):
    """Redis cannot be reached: nobody can be sure of being the only maker (the message says why)."""


class MakerLock:
    """One process's hold on a sound file's lock: renewed by `keep` while it writes."""

    def __init__(self, locks: SoundLocks, key: str, token: str) -> None:
        self.locks, self.key, self.token = locks, key, token
        self.renewed = time.monotonic()

    def keep(self) -> bool:
        """True while this process still holds the lock (renewed when due); False when it lapsed."""
        now = time.monotonic()
        if now - self.renewed < self.locks.renew_every_s:
            return True
        kept = bool(self.locks.call(self.locks.renew_script, self.key, self.token, int(self.locks.ttl_s * 1000)))
        self.renewed = now
        return kept

    def release(self) -> None:
        """Give the lock up (never another process's): the next asker need not wait for it to expire."""
        try:
            self.locks.call(self.locks.release_script, self.key, self.token)
        except LockUnavailable:
            pass  # it expires on its own


class SoundLocks:
    """The makers' locks of the sound files, in the Redis at `url`."""

    def __init__(self, url: str, ttl_s: float = LOCK_TTL_S) -> None:
        import redis

        from timekeeper.serve.games.redis_store import PREFIX, REDIS_TIMEOUT_S  # (here: the encoder child imports this module)

        self.prefix = f"{PREFIX}lock:sound:"
        self.url, self.ttl_s = url, ttl_s  # (what a child process needs to hold locks of its own)
        self.renew_every_s = ttl_s / 6
        self.client: Any = redis.Redis.from_url(url, decode_responses=True, socket_timeout=REDIS_TIMEOUT_S,
                                                socket_connect_timeout=REDIS_TIMEOUT_S)
        self.renew_script = self.client.register_script(_RENEW)
        self.release_script = self.client.register_script(_RELEASE)

    def name(self, key: str) -> str:
        return self.prefix + key

    def take(self, key: str) -> MakerLock | None:
        """The lock on the sound file `key`, or None when another process holds it."""
        token = secrets.token_hex(8)
        got = self._guarded(lambda: self.client.set(self.name(key), token, nx=True, px=int(self.ttl_s * 1000)))
        return MakerLock(self, key, token) if got else None

    def held(self, key: str) -> bool:
        """Whether some process is making the sound file `key`."""
        return bool(self._guarded(lambda: self.client.exists(self.name(key))))

    def call(self, script: Any, key: str, *args: object) -> object:
        return self._guarded(lambda: script(keys=[self.name(key)], args=list(args)))

    def _guarded(self, ask: Any) -> Any:
        from redis.exceptions import RedisError

        try:
            return ask()
        except (RedisError, OSError) as error:
            from timekeeper.serve.quiet import say

            say(f"the sound's lock (Redis) cannot be reached: {type(error).__name__}: {str(error)[:160]}",
                kind="sound-lock-unreachable")
            raise LockUnavailable("who makes it cannot be decided now (the game store cannot be reached)") from error

    def close(self) -> None:
        self.client.close()
