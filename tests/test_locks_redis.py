"""Work done once across workers (serve/sound/once.py) with the lock in a real `redis-server`: a
worker that dies holding a lock (a mix it prepared, a soundtrack it rendered) blocks nobody."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realparts import needs

from timekeeper.serve.games.redis_store import PREFIX, RedisStore
from timekeeper.serve.sound.once import MIX_LOCK_S, claim_render

pytestmark = needs("redis-server")


def test_a_lock_whose_worker_died_is_let_go_of_and_taken_over(redis_url):
    async def run() -> dict:
        living, dying = RedisStore(redis_url), RedisStore(redis_url)
        for store in (living, dying):
            await store.start()
        try:
            mixing = await dying.claim("mix:k1", MIX_LOCK_S)
            rendering = await dying.claim("render:k1-mp3", MIX_LOCK_S)
            seen = {"claimed": mixing is not None and rendering is not None,
                    "held while it lives": await living.held("mix:k1"),
                    "not claimed twice": await living.claim("mix:k1", MIX_LOCK_S) is None}
            await dying.redis.delete(PREFIX + "worker:" + dying.worker)  # its beat ran out: it died
            seen["held once it died"] = await living.held("mix:k1")
            seen["lock gone"] = await living.redis.exists(PREFIX + "lock:mix:k1") == 0
            seen["render taken over"] = await claim_render(living, "k1-mp3") is not None
            await living.redis.set(PREFIX + "lock:mix:old", "0123456789abcdef", px=60_000)  # an older version's lock
            seen["older lock held"] = await living.held("mix:old")
            return seen
        finally:
            for store in (living, dying):
                await store.close()

    assert asyncio.run(run()) == {"claimed": True, "held while it lives": True, "not claimed twice": True,
                                  "held once it died": False, "lock gone": True, "render taken over": True,
                                  "older lock held": True}
