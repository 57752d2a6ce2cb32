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

Every write is one Lua script (serve/games/redis_scripts.py). What a screen that joins costs a
worker (benchmarks/bench_rejoin.py: a dead worker's screens all joining another at once): its seat
(one script) and a share of its game's presence list, which one script reads and publishes for
every worker (`PRESENCE`, arrivals within PRESENCE_DELAY_S told together). Every state message
carries the clock, which each worker copies into the games it has read, so a worker whose screens
follow a game sends a joining screen its state without reading Redis (`follows`); a change of the
game's track or settings, or a gap in the worker's subscription, makes it read the game again.
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

from timekeeper.serve.games import redis_scripts
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
PRESENCE_DELAY_S = 0.4  # a game's presence list is told once no screen arrived for this long ...
ARRIVALS_BATCH_S = 0.005  # the seats of screens that say hello within this are written in one round trip
PRESENCE_WAIT_S = 1.0  # ... or this long after the first arrival it tells (a burst: told in one list)

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
        self._telling: dict[str, tuple[float, float]] = {}  # games whose presence list is about to be
        # told: when it was first and last asked for (loop time, s)
        # Games whose copy here pub/sub keeps current: read again since the listener last subscribed,
        # their setup unchanged since (a screen of one this worker's screens follow joins without a read)
        self.current: set[str] = set()
        self._epoch: int | None = None  # the listener's subscription (counted); None while it is not subscribed
        self._subscriptions = 0
        self._arrivals: list[tuple[list, list, asyncio.Future]] = []  # seats to write in the next batch
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
        self._cas = client.register_script(redis_scripts.CAS)
        self._save = client.register_script(redis_scripts.SAVE)
        self._seat = client.register_script(redis_scripts.SEAT)
        self._presence = client.register_script(redis_scripts.PRESENCE)
        self._release = client.register_script(redis_scripts.RELEASE)
        self._keep_script = client.register_script(redis_scripts.KEEP)
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

    def follows(self, game_id: str) -> bool:
        """(See Store.follows.) This worker's screens follow the game, and pub/sub has kept its copy
        current since it was last read."""
        return game_id in self.current and game_id in self.screens and game_id in self.cache

    async def refresh(self, game_id: str) -> Game | None:
        if not _GAME_ID.fullmatch(game_id):
            return None
        key = PREFIX + "game:" + game_id
        epoch, known = self._epoch, game_id in self.cache  # (what pub/sub brings meanwhile reaches a known copy)
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
            else:
                if int(v) > self.v.get(game_id, -1):
                    _apply_clock(game, json.loads(clock))
                    self.v[game_id] = int(v)
                if known and epoch is not None and epoch == self._epoch:  # subscribed all along: from
                    self.current.add(game_id)  # now on pub/sub keeps this copy current
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
        self.current.discard(game_id)
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
                    fresh = True  # (even when pub/sub keeps it current: another worker's change may be under way)
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
            pubsub = None
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                await pubsub.subscribe(CHANNEL)
                self._subscribed()
                # (redis-py connects again by itself after a short break: what was published meanwhile is lost)
                pubsub.connection.register_connect_callback(self._subscribed_again)
                if lost:
                    say("Redis is back: passing messages to screens again", kind="redis-back")
                    lost = False
                async for item in pubsub.listen():
                    if item.get("type") == "message":
                        self._deliver_safely(item["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, asyncio.TimeoutError) as error:  # Redis went away: screens resync on reconnect
                self._unsubscribed()
                if not lost and not self._closing:
                    say(f"Redis cannot be reached ({type(error).__name__}): screens hear no other worker until it is back",
                        kind="redis-lost")
                lost = True
                await self._let_go(pubsub)
                await asyncio.sleep(0.5)
            except Exception as error:  # a bug: named, then listening again
                self._unsubscribed()
                unexpected("passing messages to screens", error)
                await self._let_go(pubsub)
                await asyncio.sleep(0.5)

    @staticmethod
    async def _let_go(pubsub) -> None:
        """Close a broken subscription (redis-py may have connected it again by itself: left open,
        it would hold a connection that nobody reads, its messages piling up in Redis)."""
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), CLOSE_WAIT_S)

    def _subscribed(self) -> None:
        """The listener (again) hears every message from now on: copies read from now on are kept
        current; those read before may have missed some and are read again when next asked for."""
        self._subscriptions += 1
        self._epoch = self._subscriptions
        self.current.clear()

    async def _subscribed_again(self, _connection) -> None:
        self._subscribed()

    def _unsubscribed(self) -> None:
        self._epoch = None
        self.current.clear()

    def _deliver_safely(self, data: str) -> None:
        try:
            self._deliver(json.loads(data))
        except Exception as error:  # a message nobody expected: named in one line, the next one is passed on
            unexpected("a message for screens", error)

    def _deliver(self, envelope: dict) -> None:
        game_id = envelope.get("g")
        if not isinstance(game_id, str):
            return
        if "v" in envelope and not self._take_clock(game_id, int(envelope["v"]), envelope["c"]):
            return  # a newer state has been sent already
        kind = envelope.get("k")
        if kind == "setup":
            self._setup_changed(game_id)
        if game_id not in self.screens:
            return
        if "l" in envelope:
            self._tell_listed(game_id, envelope["l"])
            return
        if envelope.get("p"):  # a worker from before issue 37 asks every worker to read the list: told once for all
            self._tell_later(game_id)
            return
        skip = envelope.get("s") if envelope.get("w") == self.worker else None
        self.send_here(game_id, envelope["t"], skip if isinstance(skip, int) else None, kind if isinstance(kind, str) else None)

    def _take_clock(self, game_id: str, version: int, clock: dict) -> bool:
        """A state's clock (its `version`) into this worker's copy of the game (any game it has read:
        a screen may join it); False when the copy is newer already."""
        game = self.cache.get(game_id)
        if game is None:
            return True
        known = self.v.get(game_id, -1)
        if version < known:
            return False
        if version > known:
            _apply_clock(game, clock)
            self.v[game_id] = version
        return True

    def _setup_changed(self, game_id: str) -> None:
        """Another worker changed the game's track or settings: it is read whole when next asked for."""
        self.current.discard(game_id)
        self.sv.pop(game_id, None)

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
        seated = await self._seated([PREFIX + "seats:" + game_id, PREFIX + "here:" + game_id],
                                    [client, kind if kind in KINDS else "screen", self.ttl_ms,
                                     f"{self.worker}/{id(screen)}", MAX_SEATS])
        if int(seated) < 0:
            raise too_many_seats()
        screen.client = client

    async def _seated(self, keys: list, args: list) -> int:
        """The SEAT script's answer, written with the other seats asked for within ARRIVALS_BATCH_S
        (a burst of screens reconnecting: one round trip a batch). Refused (503) without Redis."""
        future = asyncio.get_running_loop().create_future()
        self._arrivals.append((keys, args, future))
        if len(self._arrivals) == 1:
            self._background(self._seat_all())
        return await future

    async def _seat_all(self) -> None:
        from redis.exceptions import NoScriptError

        batch: list[tuple[list, list, asyncio.Future]] = []
        try:
            try:
                await asyncio.sleep(ARRIVALS_BATCH_S)
            finally:
                batch, self._arrivals = self._arrivals, []
            async with self.failures():
                async with self.redis.pipeline(transaction=False) as pipe:
                    for keys, args, _ in batch:
                        pipe.evalsha(self._seat.sha, len(keys), *keys, *args)
                    results = await pipe.execute(raise_on_error=False)
                for (keys, args, future), result in zip(batch, results, strict=True):
                    if isinstance(result, NoScriptError):  # (Redis restarted: the script is loaded again)
                        result = await self._seat(keys=keys, args=args)
                    if not future.done():
                        if isinstance(result, Exception):
                            future.set_exception(Refused("the seat could not be written; try again", status=503,
                                                         code="store_unavailable", retry_after_s=5))
                        else:
                            future.set_result(result)
        except Refused as error:  # Redis unreachable (said once on the terminal)
            self._refuse_seats(batch, error)
        except Exception as error:  # a bug: named in one line, those screens refused
            unexpected("seating screens", error)
            self._refuse_seats(batch, Refused("the seat could not be written; try again", status=503,
                                              code="store_unavailable", retry_after_s=5))
        except BaseException:  # the store closes
            self._refuse_seats(batch, Refused("the game store is closing", status=503, code="store_unavailable",
                                              retry_after_s=5))
            raise

    @staticmethod
    def _refuse_seats(batch: list[tuple[list, list, asyncio.Future]], refusal: Refused) -> None:
        for _, _, future in batch:
            if not future.done():
                future.set_exception(refusal)

    async def leave(self, game_id: str, screen: Screen) -> None:
        if screen.client is not None:
            async with self.failures():
                await self.redis.hdel(PREFIX + "here:" + game_id, f"{self.worker}/{id(screen)}")

    async def tell_presence(self, game_id: str) -> None:
        """(See Store.tell_presence.) Told once for a burst of arrivals (a worker's screens
        reconnecting to the others all at once): PRESENCE_DELAY_S after the last, PRESENCE_WAIT_S
        after the first at most."""
        self._tell_later(game_id)

    def _tell_later(self, game_id: str) -> None:
        now = asyncio.get_running_loop().time()
        asked = self._telling.get(game_id)
        self._telling[game_id] = (now if asked is None else asked[0], now)
        if asked is None:
            self._background(self._tell_soon(game_id))

    def _background(self, work) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _tell_soon(self, game_id: str) -> None:
        """Who is connected, read and published to every worker by one script (PRESENCE). Its
        envelope also asks a worker of an older version to read the list itself ("p")."""
        loop = asyncio.get_running_loop()
        try:
            while (wait := min(self._telling[game_id][1] + PRESENCE_DELAY_S,
                               self._telling[game_id][0] + PRESENCE_WAIT_S) - loop.time()) > 0:
                await asyncio.sleep(wait)
        finally:
            self._telling.pop(game_id, None)
        head = json.dumps({"w": self.worker, "g": game_id, "p": 1})[:-1] + ', "l": '
        with contextlib.suppress(Refused):  # Redis went away (said by the listener): the next hello or change tells them
            async with self.failures():
                await self._presence(keys=[PREFIX + "seats:" + game_id, PREFIX + "here:" + game_id],
                                     args=[PREFIX + "worker:", CHANNEL, head])

    def _tell_listed(self, game_id: str, listed: object) -> None:
        """Tell this worker's screens of the game who is connected (`listed`: [client, "kind:number"]
        pairs, as PRESENCE publishes them) and which of them its copy of the game says are heard."""
        connected = {}
        for entry in listed if isinstance(listed, list) else ():
            if isinstance(entry, list) and len(entry) == 2 and all(isinstance(part, str) for part in entry):
                kind, _, number = entry[1].partition(":")
                connected[entry[0]] = (kind, int(number) if number.isdigit() else 0)
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
        """A lock on `name` for at most `ttl_s` (its token: this worker's name and a random part, so
        the others can tell when its holder died), or None when another worker holds it."""
        token = f"{self.worker}/{secrets.token_hex(8)}"
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
        """Whether a live worker holds the lock on `name`. One held by a worker that died (silent for
        WORKER_TTL_MS) is let go of here: its work would never be finished (a worker killed while it
        prepared a mix kept every other worker's requests for that mix waiting MIX_LOCK_S, 3 minutes)."""
        async with self.failures():
            token = await self.redis.get(PREFIX + "lock:" + name)
        if token is None:
            return False
        holder = token.split("/", 1)[0] if "/" in token else None  # (a lock of an older version names none)
        if holder is None or holder == self.worker or holder in await self.alive({holder}):
            return True
        async with self.failures():
            await self._release(keys=[PREFIX + "lock:" + name], args=[token])  # (only if it is still that one)
        return False

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

