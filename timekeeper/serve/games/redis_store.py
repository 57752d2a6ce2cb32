"""The store of several workers (`timekeeper serve --redis URL`): games, their clocks, short codes
and seats live in Redis, and messages to screens travel over one Redis pub/sub channel to every
worker, which passes them to its own WebSockets. A worker may die at any moment: nothing of a
game lives only in it, so its screens reconnect (through the proxy) to another worker and carry on.

Keys (all under `timekeeper:`, expiring GAME_TTL_S (hosted mode: the rooms' idle time) after a game's last
change, or while screens follow it):
- `game:ID`, a hash: `setup` (the record of serve/games/game.py without the clock fields, JSON),
  `clock` (playback, speakers, changes, the playback an `end` replaced, length, silence and the
  history of pauses: game.py's CLOCK_FIELDS; JSON), `v` (counts
  every write; a command is written only if `v` is still what it read, else it is carried out
  again on the new state) and `sv` (counts setup writes: a worker parses a track only when it changes).
- `games`, a sorted set of game ids by last change; `code:CODE` -> game id.
- `seats:ID` (client -> "kind:number"), `here:ID` (worker/socket -> client): who is connected.
- `worker:NAME`, refreshed every WORKER_BEAT_S while a worker lives: sockets of a dead worker
  are not listed as connected.
- `lock:NAME` and `made:NAME`: work done once across workers (serve/sound/once.py).
- `lock:sound:KEY`: the maker of a page sound file (serve/sound/maker_lock.py); `rate:KIND:CLIENT`:
  a client's per-minute limits in hosted mode (serve/guards/redis_rates.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Collection
from typing import Any

from timekeeper.serve.games.game import _GAME_ID, CLOCK_FIELDS, Game, Playback, wall_ms
from timekeeper.serve.games.lobby import CODE_LENGTH, CODE_LETTERS, KINDS, MAX_SEATS, normal_code, too_many_seats
from timekeeper.serve.games.screens import Screen
from timekeeper.serve.games.store import Change, Store, Tell, gone_refusal
from timekeeper.serve.quiet import say, unexpected
from timekeeper.serve.refusal import Refused

PREFIX = "timekeeper:"
CHANNEL = PREFIX + "screens"
GAME_TTL_S = 2 * 24 * 3600  # a game nobody changed for two days is forgotten
MAX_GAMES = 100_000  # games kept at once
WORKER_BEAT_S = 2.0
WORKER_TTL_MS = 6000  # a worker silent this long is taken for dead
KEEP_EVERY_S = 30.0  # the games a worker's screens follow are kept from expiring this often (a quarter
# of their time to live when that is shorter: hosted mode's --room-idle may be seconds)
UPDATE_TRIES = 20  # a command is carried out again at most this often when other workers' commands win
CACHED_GAMES = 5000  # games a worker keeps parsed beyond those its screens follow
REDIS_TIMEOUT_S = 5.0
CLOSE_WAIT_S = 2.0  # the longest close() waits for the background loops
REDIS_CONNECTIONS = 32  # connections a worker opens to Redis at most (and one for pub/sub)
PRESENCE_DELAY_S = 0.1  # arrivals within this are told in one presence list

# Write a command's clock if nobody wrote the game since it was read (v unchanged), and publish
# what the screens are told in the same step (so they hear the states in the order they were written).
_CAS = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'clock', ARGV[2], 'v', tonumber(ARGV[1]) + 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local code = redis.call('HGET', KEYS[1], 'code')
if code then redis.call('PEXPIRE', ARGV[8] .. code, ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[6]) end
return 1
"""
# Write the whole game (a new one, or its track and settings changed): both versions move on. A
# change (ARGV[6], the version it read) is written only if nobody wrote the game since.
_SAVE = """
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], 'v') ~= ARGV[6] then return false end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
local sv = redis.call('HINCRBY', KEYS[1], 'sv', 1)
redis.call('HSET', KEYS[1], 'setup', ARGV[1], 'clock', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local code = redis.call('HGET', KEYS[1], 'code')
if code then redis.call('PEXPIRE', ARGV[7] .. code, ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
return {v, sv}
"""
# Keep games from expiring (followed by screens, or named by a request): each game that still
# exists (KEYS), its seats, who is connected and its short code live `ARGV[1]` ms more. ARGV[2]:
# now (wall ms, the games' order), ARGV[3]: the key prefix; ARGV[4..]: the games' ids.
_KEEP = """
for i, key in ipairs(KEYS) do
  local id = ARGV[i + 3]
  if redis.call('PEXPIRE', key, ARGV[1]) == 1 then
    redis.call('PEXPIRE', ARGV[3] .. 'seats:' .. id, ARGV[1])
    redis.call('PEXPIRE', ARGV[3] .. 'here:' .. id, ARGV[1])
    local code = redis.call('HGET', key, 'code')
    if code then redis.call('PEXPIRE', ARGV[3] .. 'code:' .. code, ARGV[1]) end
    redis.call('ZADD', ARGV[3] .. 'games', ARGV[2], id)
  end
end
return 0
"""
# A device arrives: its seat in the game's list (its kind and the next number of that kind, kept
# while the game is), and its socket among those connected (KEYS[2]: worker/socket -> client, so a
# socket is one device). -1: the game has ARGV[5] seats already (none is given).
_SEAT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[4], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = 1
for _, seat in ipairs(redis.call('HVALS', KEYS[1])) do
  if string.sub(seat, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ':' then n = n + 1 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. n)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return n
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def checked_url(url: str) -> str:
    """A Redis URL as `--redis` takes it (redis://, rediss:// or unix://), else a usage error."""
    import click
    from redis.connection import parse_url

    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise click.BadParameter(f"{url!r}: expected a Redis URL such as redis://127.0.0.1:6379/0", param_hint="--redis")
    try:
        parse_url(url)
    except ValueError as error:
        raise click.BadParameter(f"{url!r}: {error}", param_hint="--redis") from None
    return url


def _split(record: dict) -> tuple[str, str]:
    """A game's record as its setup and its clock (JSON each)."""
    clock = {key: record.get(key) for key in CLOCK_FIELDS}
    setup = {key: value for key, value in record.items() if key not in CLOCK_FIELDS}
    return json.dumps(setup), json.dumps(clock)


def _apply_clock(game: Game, clock: dict) -> None:
    game.playback = Playback(**clock["playback"])
    game.take_clock(clock)
    game.changes = int(clock.get("changes") or 0)
    before = clock.get("before_end")
    game.before_end = Playback(**before) if isinstance(before, dict) else None
    game.duration_ms = int(clock.get("duration_ms") or game.duration_ms)


def _clock_of(game: Game) -> dict:
    return {key: value for key, value in game.as_record().items() if key in CLOCK_FIELDS}


class RedisStore(Store):
    """Games, clocks and seats in Redis; messages to screens over its pub/sub."""

    max_games = MAX_GAMES
    shared = True

    def __init__(self, url: str, ttl_s: float = GAME_TTL_S) -> None:
        """`ttl_s`: a game nobody changes, and no screen follows, for this long is forgotten (hosted
        mode: the rooms' idle time)."""
        super().__init__()
        self.url = url
        self.ttl_ms = int(ttl_s * 1000)
        self.worker = f"{os.uname().nodename[:40]}-{os.getpid()}-{secrets.token_hex(3)}"
        self.cache: OrderedDict[str, Game] = OrderedDict()  # games this worker has parsed
        self.v: dict[str, int] = {}  # the version of each cached game's clock
        self.sv: dict[str, int] = {}  # ... and of its setup
        self._redis: Any = None
        self._tasks: list[asyncio.Task] = []
        self._closing = False  # set by close(): the background loops stop even if a cancellation was swallowed
        self._telling: set[str] = set()  # games whose presence list is about to be told
        self._reading_presence: set[str] = set()  # games whose presence list is being read for this worker's screens
        self._touched: dict[str, float] = {}  # game id -> when a request last kept it (monotonic s)
        self._pending: set[asyncio.Task] = set()

    # --- connection ----------------------------------------------------------------------------
    @property
    def redis(self):
        if self._redis is None:
            raise Refused("the game store is not connected yet", status=503, code="store_unavailable", retry_after_s=5)
        return self._redis

    async def start(self) -> None:
        import redis.asyncio as aioredis

        # a bounded pool: a burst of requests (a dead worker's screens arriving) waits for a connection
        # instead of opening hundreds
        pool = aioredis.BlockingConnectionPool.from_url(
            self.url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_TIMEOUT_S, decode_responses=True,
            socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S, health_check_interval=30)
        client = aioredis.Redis(connection_pool=pool)
        self._redis = client
        async with self.failures():
            await client.ping()
            await self._beat()
        self._cas = client.register_script(_CAS)
        self._save = client.register_script(_SAVE)
        self._seat = client.register_script(_SEAT)
        self._release = client.register_script(_RELEASE)
        self._keep_script = client.register_script(_KEEP)
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._beating())]

    async def close(self) -> None:
        """Stop the background loops (waiting CLOSE_WAIT_S at most: redis-py may swallow a
        cancellation while it reconnects) and the connections."""
        self._closing = True
        tasks = [*self._tasks, *self._pending]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # (retrieved: its error is not reported as never retrieved)
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.delete(PREFIX + "worker:" + self.worker)
            await self._redis.aclose(close_connection_pool=True)

    @contextlib.asynccontextmanager
    async def failures(self) -> AsyncIterator[None]:
        """Redis errors as one clear refusal (503) that names no address or backend (the terminal
        says what Redis answered, in one line), never a traceback."""
        from redis.exceptions import RedisError

        try:
            yield
        except (RedisError, OSError, asyncio.TimeoutError) as error:
            say(f"Redis cannot be reached: {type(error).__name__}: {str(error)[:160]}", kind="redis-unreachable")
            raise Refused("the game store cannot be reached now; try again in a few seconds", status=503,
                          code="store_unavailable", retry_after_s=5) from error

    async def _beat(self) -> None:
        await self.redis.set(PREFIX + "worker:" + self.worker, "1", px=WORKER_TTL_MS)

    @property
    def keep_every_s(self) -> float:
        """How often the games this worker's screens follow are kept from expiring."""
        return max(0.1, min(KEEP_EVERY_S, self.ttl_ms / 4000.0))

    async def _beating(self) -> None:
        """Mark this worker alive every WORKER_BEAT_S, and keep its screens' games every keep_every_s."""
        beaten = kept = time.monotonic()
        while not self._closing:
            await asyncio.sleep(min(WORKER_BEAT_S, self.keep_every_s))
            now = time.monotonic()
            try:
                if now - beaten >= WORKER_BEAT_S - 0.05:
                    async with self.failures():
                        await self._beat()
                    beaten = now
                if now - kept >= self.keep_every_s - 0.05:
                    await self.keep(list(self.screens))
                    kept = now
            except Refused:
                pass  # Redis unreachable (said once on the terminal): tried again at the next beat
            except Exception as error:  # a bug: named in one line, the beat goes on
                unexpected("the worker's beat", error)

    async def keep(self, game_ids: list[str]) -> None:
        """The games `game_ids` (those that still exist) live their idle time more, with their
        seats and short codes. Refused (503) when Redis cannot be reached."""
        if not game_ids:
            return
        async with self.failures():
            await self._keep_script(keys=[PREFIX + "game:" + game_id for game_id in game_ids],
                                    args=[self.ttl_ms, wall_ms(), PREFIX, *game_ids])

    def touch(self, game_id: str) -> None:
        """A request named the game: it lives its idle time more (asked of Redis at most once
        every keep_every_s per game by this worker, in the background)."""
        now = time.monotonic()
        if now - self._touched.get(game_id, -KEEP_EVERY_S) < self.keep_every_s:
            return
        if len(self._touched) >= CACHED_GAMES:
            self._touched.clear()
        self._touched[game_id] = now
        self._background(self._keep_quietly(game_id))

    async def _keep_quietly(self, game_id: str) -> None:
        with contextlib.suppress(Refused):  # Redis unreachable: said once; the next request tries again
            await self.keep([game_id])

    def forget_games(self, game_ids: list[str]) -> None:
        for game_id in game_ids:
            self._forget(game_id)

    # --- games ---------------------------------------------------------------------------------
    def get(self, game_id: str) -> Game | None:
        return self.cache.get(game_id)

    async def refresh(self, game_id: str) -> Game | None:
        if not _GAME_ID.fullmatch(game_id):
            return None
        key = PREFIX + "game:" + game_id
        async with self.failures():
            v, sv, clock = await self.redis.hmget(key, "v", "sv", "clock")
            if v is None or clock is None:
                self._forget(game_id)
                return None
            game = self.cache.get(game_id)
            if game is None or self.sv.get(game_id) != int(sv):
                setup = await self.redis.hget(key, "setup")
                if setup is None:
                    return None
                made = Game.from_record({**json.loads(setup), **json.loads(clock)})
                if game is None:
                    game = made
                else:  # the same object, so every handler holding it sees the new track
                    game.__dict__.update(made.__dict__)
                self._keep(game, int(v), int(sv))
            elif int(v) > self.v.get(game_id, -1):
                _apply_clock(game, json.loads(clock))
                self.v[game_id] = int(v)
            self.cache.move_to_end(game_id)
            return game

    def _keep(self, game: Game, v: int, sv: int) -> None:
        self.cache[game.id] = game
        self.v[game.id], self.sv[game.id] = v, sv
        if len(self.cache) > CACHED_GAMES + len(self.screens):
            for old in list(self.cache)[: len(self.cache) - CACHED_GAMES]:
                if old not in self.screens:
                    self._forget(old)

    def _forget(self, game_id: str) -> None:
        self.cache.pop(game_id, None)
        self.v.pop(game_id, None)
        self.sv.pop(game_id, None)

    async def count(self) -> int:
        async with self.failures():
            await self.redis.zremrangebyscore(PREFIX + "games", "-inf", wall_ms() - self.ttl_ms)
            return int(await self.redis.zcard(PREFIX + "games"))

    async def add(self, game: Game) -> Game:
        await self._write(game, None)
        return game

    async def save(self, game: Game) -> None:
        """(See Store.save.) Refused (409) when another worker changed the game since it was read,
        404 when it has expired meanwhile (it is not written again)."""
        read_version = self.v.get(game.id)
        if read_version is None:
            raise gone_refusal()
        await self._write(game, read_version)

    async def _write(self, game: Game, read_version: int | None) -> None:
        setup, clock = _split(game.as_record())
        async with self.failures():
            written = await self._save(keys=[PREFIX + "game:" + game.id, PREFIX + "games"],
                                       args=[setup, clock, wall_ms(), self.ttl_ms, game.id,
                                             "" if read_version is None else read_version, PREFIX + "code:"])
        if not written:
            self.sv.pop(game.id, None)  # read it whole again: every handler holding it sees what the other made
            if await self.refresh(game.id) is None:
                raise gone_refusal()
            raise Refused("the game changed on another screen meanwhile; look again and repeat the change",
                          status=409, code="conflict")
        v, sv = written
        current = self.cache.get(game.id)
        if current is not None and current is not game:
            current.__dict__.update(game.__dict__)
            game = current
        self._keep(game, int(v), int(sv))

    async def update(self, game: Game, change: Change, *, tell: Tell | None = None, skip: object = None) -> object:
        """(See Store.update.) Carried out first on a copy of this worker's game, which pub/sub
        keeps current; written only if nobody wrote the game since (else: read it, carry out again).
        The worker's game takes the result once it is written, so commands running at once in one
        worker never see each other's unwritten changes."""
        fresh = game.id not in self.v or self.cache.get(game.id) is None
        for _ in range(UPDATE_TRIES):
            current = await self.refresh(game.id) if fresh else self.cache.get(game.id)
            if current is None:
                raise gone_refusal()
            version = self.v[game.id]
            trial = copy.copy(current)  # the commands replace the clock's fields, never change them in place
            result = change(trial)
            if result is None:
                if not fresh:  # perhaps only this worker's copy says nothing changes: ask the store
                    fresh = True
                    continue
                self._same(game, current)
                return None
            clock = _clock_of(trial)
            envelope = "" if tell is None else self._envelope(game.id, tell(trial), skip, version + 1, clock)
            async with self.failures():
                written = await self._cas(keys=[PREFIX + "game:" + game.id, PREFIX + "games"],
                                          args=[version, json.dumps(clock), wall_ms(), self.ttl_ms, game.id,
                                                envelope, CHANNEL, PREFIX + "code:"])
            if written:
                if version + 1 > self.v.get(game.id, -1):  # (pub/sub may have brought it, or a newer one, already)
                    _apply_clock(current, clock)
                    self.v[game.id] = version + 1
                self._same(game, current)
                return result
            fresh = True  # another worker's command came first: again, on its result
        raise Refused("the game is changing too fast to follow; try again", status=503, code="too_busy",
                      retry_after_s=1)

    @staticmethod
    def _same(game: Game, current: Game) -> None:
        if game is not current:
            game.__dict__.update(current.__dict__)

    def local_games(self) -> list[Game]:
        return [game for game_id, game in self.cache.items() if game_id in self.screens]

    # --- messages to screens -------------------------------------------------------------------
    async def publish(self, game_id: str, message: dict, skip: object = None, game: Game | None = None) -> None:
        envelope = self._envelope(game_id, message, skip, self.v.get(game_id, 0) if game is not None else None,
                                  _clock_of(game) if game is not None else None)
        async with self.failures():
            await self.redis.publish(CHANNEL, envelope)

    def _envelope(self, game_id: str, message: dict, skip: object, version: int | None, clock: dict | None) -> str:
        """A message for every worker: the game, the text for its screens, the socket it skips (on
        this worker), and with a state the clock's version and the clock (for the workers' copies)."""
        envelope: dict[str, object] = {"w": self.worker, "g": game_id, "t": json.dumps(message), "k": message.get("type")}
        if skip is not None:
            envelope["s"] = id(skip)
        if version is not None:
            envelope["v"], envelope["c"] = version, clock
        return json.dumps(envelope)

    async def _listen(self) -> None:
        """Pass every worker's messages to this worker's screens (never waiting for one: each is
        put in the screen's outbox), listening again when Redis goes away. What nobody expected
        is said on the terminal in one line, and the next message is passed on all the same."""
        from redis.exceptions import RedisError

        lost = False
        while not self._closing:
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                await pubsub.subscribe(CHANNEL)
                if lost:
                    say("Redis is back: passing messages to screens again", kind="redis-back")
                    lost = False
                async for item in pubsub.listen():
                    if item.get("type") == "message":
                        self._deliver_safely(item["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, asyncio.TimeoutError) as error:  # Redis went away: screens resync on reconnect
                if not lost and not self._closing:
                    say(f"Redis cannot be reached ({type(error).__name__}): screens hear no other worker until it is back",
                        kind="redis-lost")
                lost = True
                await asyncio.sleep(0.5)
            except Exception as error:  # a bug: named, then listening again
                unexpected("passing messages to screens", error)
                await asyncio.sleep(0.5)

    def _deliver_safely(self, data: str) -> None:
        try:
            self._deliver(json.loads(data))
        except Exception as error:  # a message nobody expected: named in one line, the next one is passed on
            unexpected("a message for screens", error)

    def _deliver(self, envelope: dict) -> None:
        game_id = envelope.get("g")
        if not isinstance(game_id, str) or game_id not in self.screens:
            return
        if envelope.get("p"):
            self._tell_soon_here(game_id)
            return
        if "v" in envelope:
            version, game = int(envelope["v"]), self.cache.get(game_id)
            if game is not None:
                if version < self.v.get(game_id, -1):
                    return  # a newer state has been sent already
                if version > self.v.get(game_id, -1):
                    _apply_clock(game, envelope["c"])
                    self.v[game_id] = version
        skip = envelope.get("s") if envelope.get("w") == self.worker else None
        kind = envelope.get("k")
        self.send_here(game_id, envelope["t"], skip if isinstance(skip, int) else None, kind if isinstance(kind, str) else None)

    # --- the lobby -----------------------------------------------------------------------------
    async def code(self, game_id: str) -> str:
        key = PREFIX + "game:" + game_id
        async with self.failures():
            known = await self.redis.hget(key, "code")
            if known:
                return known
            for _ in range(100):
                made = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
                if await self.redis.set(PREFIX + "code:" + made, game_id, nx=True, px=self.ttl_ms):
                    if await self.redis.hsetnx(key, "code", made):
                        return made
                    await self.redis.delete(PREFIX + "code:" + made)  # another worker gave it one first
                    return await self.redis.hget(key, "code") or made
        raise Refused("no short code is free; try again", status=503, code="too_busy", retry_after_s=5)

    async def game_of(self, code: str) -> str | None:
        async with self.failures():
            game_id = await self.redis.get(PREFIX + "code:" + normal_code(code))
            if game_id is None or not await self.redis.exists(PREFIX + "game:" + game_id):
                return None
            return game_id

    async def arrive(self, game_id: str, client: str, kind: str, screen: Screen) -> None:
        async with self.failures():
            seated = await self._seat(keys=[PREFIX + "seats:" + game_id, PREFIX + "here:" + game_id],
                                      args=[client, kind if kind in KINDS else "screen", self.ttl_ms,
                                            f"{self.worker}/{id(screen)}", MAX_SEATS])
        if int(seated) < 0:
            raise too_many_seats()
        screen.client = client

    async def leave(self, game_id: str, screen: Screen) -> None:
        if screen.client is not None:
            async with self.failures():
                await self.redis.hdel(PREFIX + "here:" + game_id, f"{self.worker}/{id(screen)}")

    async def tell_presence(self, game_id: str) -> None:
        """(See Store.tell_presence.) Told PRESENCE_DELAY_S later, once for a burst of arrivals
        (a worker's screens reconnecting to the others all at once)."""
        if game_id in self._telling:
            return
        self._telling.add(game_id)
        self._background(self._tell_soon(game_id))

    def _background(self, work) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _tell_soon(self, game_id: str) -> None:
        try:
            await asyncio.sleep(PRESENCE_DELAY_S)
        finally:
            self._telling.discard(game_id)
        with contextlib.suppress(Refused):  # Redis went away (said by the listener): the next hello or change tells them
            async with self.failures():
                await self.redis.publish(CHANNEL, json.dumps({"w": self.worker, "g": game_id, "p": 1}))

    def _tell_soon_here(self, game_id: str) -> None:
        """Read who is connected from Redis, then tell this worker's screens (in the background:
        the listener passes the next message on meanwhile)."""
        if game_id in self._reading_presence:
            return
        self._reading_presence.add(game_id)
        self._background(self._tell_here(game_id))

    async def _tell_here(self, game_id: str) -> None:
        """Send this worker's screens of the game the list of connected devices."""
        try:
            async with self.failures():
                seats, here = await self.redis.hgetall(PREFIX + "seats:" + game_id), await self.redis.hgetall(PREFIX + "here:" + game_id)
                workers = sorted({name.split("/", 1)[0] for name in here})
                beats = await self.redis.mget([PREFIX + "worker:" + w for w in workers]) if workers else []
                alive = {w for w, beat in zip(workers, beats) if beat is not None}
                gone = [name for name in here if name.split("/", 1)[0] not in alive]
                if gone:
                    await self.redis.hdel(PREFIX + "here:" + game_id, *gone)
        except Refused:
            return  # Redis went away (said by the listener): the next hello or change tells them
        finally:
            self._reading_presence.discard(game_id)
        connected = {}
        for name, client in here.items():
            if name not in gone:
                kind, _, number = seats.get(client, "screen:0").partition(":")
                connected[client] = (kind, int(number) if number.isdigit() else 0)
        game = self.cache.get(game_id)
        self.tell_here(game_id, connected, set(game.heard_speakers()) if game is not None else set())

    async def alive(self, workers: Collection[str]) -> set[str]:
        """Those of `workers` whose beat is in Redis (a worker silent for WORKER_TTL_MS is dead)."""
        names = sorted(set(workers))
        if not names:
            return set()
        async with self.failures():
            beats = await self.redis.mget([PREFIX + "worker:" + name for name in names])
        return {name for name, beat in zip(names, beats, strict=True) if beat is not None}

    # --- work done once across workers ---------------------------------------------------------
    async def claim(self, name: str, ttl_s: float) -> str | None:
        """A lock on `name` for at most `ttl_s` (its token), or None when another worker holds it."""
        token = secrets.token_hex(8)
        async with self.failures():
            got = await self.redis.set(PREFIX + "lock:" + name, token, nx=True, px=int(ttl_s * 1000))
        return token if got else None

    async def release(self, name: str, token: str) -> None:
        """(See Store.release.) Redis unreachable: the lock expires by itself."""
        try:
            async with self.failures():
                await self._release(keys=[PREFIX + "lock:" + name], args=[token])
        except Refused:
            pass
        except Exception as error:  # a bug: named in one line
            unexpected("letting go of a lock", error)

    async def held(self, name: str) -> bool:
        async with self.failures():
            return bool(await self.redis.exists(PREFIX + "lock:" + name))

    async def note(self, name: str, fields: dict, ttl_s: float) -> None:
        """Keep `fields` under `name` for every worker to read (a job's progress, a count)."""
        async with self.failures():
            await self.redis.set(PREFIX + "note:" + name, json.dumps(fields), ex=int(ttl_s))

    async def read_note(self, name: str) -> dict | None:
        async with self.failures():
            text = await self.redis.get(PREFIX + "note:" + name)
        return json.loads(text) if text else None

    async def tally(self, name: str) -> int:
        """Count one more of `name` (mixes made, renders run): the benchmarks read these."""
        async with self.failures():
            return int(await self.redis.incr(PREFIX + "tally:" + name))

