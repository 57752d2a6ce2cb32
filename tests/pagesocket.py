"""A screen speaking the page's WebSocket protocol (timekeeper/serve/assets/connection.js and
mission.js's follow()), for the tests and benchmarks that stand in for many phones at once:

- it joins with `hello` (the sound device also with `claim` once the room has one), then measures
  its clock offset with pings 150 ms apart, the quickest answers counting (clock.js clockSync):
  five the first time, one on every later socket (the offset found before is kept);
- it follows the `state` messages (a playing mission moves on from where the server put it);
- told to `move` (its worker is stopping), it opens a new socket before it closes the old one, so
  a command sent meanwhile goes through one or the other;
- when its socket is lost it joins again after the page's wait (0.5 s, doubling to 5 s, each wait
  spread over 0.5-1.5 times itself);
- a room's sound device plays a `Sound` that follows the room's clock as a speaker's audio element
  does (serve/assets/speaker.js and sync.js: a seek when it is far off, else the playback rate within
  2 %) and reports its position every half second (its worker watches that it advances).

Times on this machine are epoch ms (`time.time()`); the server's are the same clock plus the
offset the pings measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable

PINGS, PING_EVERY_S = 5, 0.15
RETRY_FIRST_S, RETRY_MOST_S = 0.5, 5.0
REPORT_EVERY_S = 0.5  # as a speaker's page (serve/assets/speaker.js): its worker takes it for lost after 1.5 s without
SEEK_OVER_MS = 200.0  # further off the room's clock than this, the sound device seeks (sync.js SYNC.seekBeyondMs)
RATE_SPAN_MS, RATE_MOST = 1000.0, 0.02  # nearer, the rate works the error off at error/span, within 1 ± 2 %
SET_PAUSED_OVER_MS = 50.0


def now_ms() -> float:
    return time.time() * 1000


class Sound:
    """A sound device's audio element: its position, on this machine's clock."""

    def __init__(self) -> None:
        self.started_ms: float | None = None  # playing: position = now - started_ms
        self.paused_ms: float | None = None  # paused at this position (None: never played)
        self.kept_up_ms: float | None = None  # when its rate was last set (playing)

    @property
    def playing(self) -> bool:
        return self.started_ms is not None

    def position_ms(self, at_ms: float | None = None) -> float | None:
        if self.started_ms is not None:
            return (now_ms() if at_ms is None else at_ms) - self.started_ms
        return self.paused_ms

    def follow(self, playback: dict, server_now_ms: float) -> None:
        """What speaker.js follow() does with the audio element on a new state, and every half second
        (the page every 100 ms): a playing one keeps up with the room's clock."""
        here = now_ms()
        current = self.position_ms(here)
        if playback["status"] == "playing":
            target = playback["position_ms"] + (server_now_ms - playback["at_ms"])
            if not self.playing or current is None or abs(current - target) > SEEK_OVER_MS:
                self.started_ms, self.paused_ms, self.kept_up_ms = here - target, None, here
                return
            elapsed = here - (self.kept_up_ms or here)
            step = max(-RATE_MOST, min(RATE_MOST, (current - target) / RATE_SPAN_MS)) * elapsed
            self.started_ms += step  # played at 1 - error/span since the last look: that much less far
            self.kept_up_ms = here
        else:
            if self.playing:
                self.paused_ms, self.started_ms = current, None
            if self.paused_ms is None or abs(self.paused_ms - playback["position_ms"]) > SET_PAUSED_OVER_MS:
                self.paused_ms = playback["position_ms"]


class PageSocket:
    """One screen of a game. `url`: the server's ws:// or wss:// address (a worker's or nginx's)."""

    def __init__(self, session, url: str, game_id: str, client: str, *, sound: Sound | None = None,
                 ssl: object = None, kind: str = "phone", same_clock: bool = False, pings_again: int = 1) -> None:
        """`same_clock`: the server runs on this machine and its clock is this one: the pings are
        sent and answered, but their offset is not used (a load generator that stands in for
        thousands of phones lags, and its round trips with it). `pings_again`: pings on every
        socket after the first (the page sends one; five before issue 37)."""
        self.session, self.url, self.game_id, self.client, self.sound, self.ssl = session, url, game_id, client, sound, ssl
        self.kind, self.same_clock, self.pings_again = kind, same_clock, pings_again
        self.socket = None
        self.offset_ms, self.best_rtt_ms = 0.0, float("inf")
        self.playback: dict | None = None
        self.changes: int | None = None
        self.claimed = False  # the device claims the sound on every socket once it has
        self.stop = asyncio.Event()
        self.pongs = 0
        self.joined = asyncio.Event()  # a socket is open and its first pings answered
        self.moves = 0  # sockets opened because the worker said `move`
        self.lost = 0  # sockets lost without a `move`
        self.closed_by_server: list[int] = []  # close codes of sockets the server closed
        self.errors: list[str] = []
        self.on_message: Callable[[PageSocket, dict], None] | None = None
        self.on_lost: Callable[[PageSocket], None] | None = None
        self.on_open: Callable[[PageSocket], None] | None = None
        self._tasks: set[asyncio.Task] = set()

    @property
    def device(self) -> bool:
        return self.sound is not None

    def server_now_ms(self, at_ms: float | None = None) -> float:
        return (now_ms() if at_ms is None else at_ms) + self.offset_ms

    def clock_ms(self, at_ms: float | None = None) -> float | None:
        """Where this screen says the mission is (None: no playing mission)."""
        playback = self.playback
        if playback is None:
            return None
        if playback["status"] != "playing":
            return playback["position_ms"]
        return playback["position_ms"] + (self.server_now_ms(at_ms) - playback["at_ms"])

    # --- the socket's life -----------------------------------------------------------------------
    async def run(self, give_up_s: float = 60.0) -> None:
        """Join, follow and join again until `stop` is set (or no socket opened for `give_up_s`)."""
        retry_s = RETRY_FIRST_S
        lost_since: float | None = None
        while not self.stop.is_set():
            if self.socket is None or self.socket.closed:
                try:
                    await self._join(await self._open())
                    retry_s, lost_since = RETRY_FIRST_S, None
                except Exception as error:  # refused, reset, timed out: as the page, wait and try again
                    self._failed(error)
                    lost_since = lost_since or time.monotonic()
                    if time.monotonic() - lost_since > give_up_s:
                        return
                    await self._wait(retry_s)
                    retry_s = min(retry_s * 2, RETRY_MOST_S)
                    continue
            socket = self.socket
            await self._listen(socket)
            if self.stop.is_set() or self.socket is not socket:
                continue  # stopped, or moved: the new socket is read next
            self.lost += 1
            if socket.close_code is not None:
                self.closed_by_server.append(socket.close_code)
            self.joined.clear()
            if self.on_lost is not None:
                self.on_lost(self)
            await self._wait(retry_s)  # (a move may finish meanwhile: its socket is then taken)
            retry_s = min(retry_s * 2, RETRY_MOST_S)

    async def _wait(self, retry_s: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stop.wait(), retry_s * (0.5 + random.random()))

    async def _open(self):
        return await asyncio.wait_for(self.session.ws_connect(f"{self.url}/api/games/{self.game_id}/ws", ssl=self.ssl,
                                                              heartbeat=None), 30.0)

    async def _join(self, socket) -> None:
        """What connection.js's onopen does: hello, the device's claim, the clock pings."""
        self.socket = socket
        self.pongs = 0
        await socket.send_str(json.dumps({"type": "hello", "client": self.client, "kind": self.kind}))
        if self.device and self.claimed:
            await socket.send_str(json.dumps({"type": "claim"}))
        self._spawn(self._ping(socket, PINGS if self.best_rtt_ms == float("inf") else self.pings_again))
        if self.on_open is not None:
            self.on_open(self)

    async def _move(self, old) -> None:
        """Told to move: a new socket first; it takes over (and the old one is closed) once open."""
        try:
            new = await self._open()
        except Exception as error:
            self._failed(error)
            return  # the old one stays until the server closes it; then as after any loss
        if self.socket is not old or self.stop.is_set():
            await new.close()
            return
        self.moves += 1
        await self._join(new)
        await old.close()

    async def _ping(self, socket, count: int) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            for n in range(count):
                if n:
                    await asyncio.sleep(PING_EVERY_S)
                if socket.closed:
                    return
                await socket.send_str(json.dumps({"type": "ping", "t": now_ms()}))

    async def _listen(self, socket) -> None:
        try:
            async for message in socket:
                if message.type.name != "TEXT":
                    break
                self._receive(socket, json.loads(message.data))
        except Exception as error:  # a reset connection
            self._failed(error)

    def _receive(self, socket, data: dict) -> None:
        kind = data.get("type")
        if socket is not self.socket and kind != "move":
            return  # (the old socket of a move: the new one says the same)
        if kind == "pong":
            rtt_ms = now_ms() - data["t"]
            if rtt_ms <= self.best_rtt_ms + 5:
                self.best_rtt_ms = min(rtt_ms, self.best_rtt_ms)
                self.offset_ms = 0.0 if self.same_clock else data["server_ms"] - (data["t"] + rtt_ms / 2)
            self.pongs += 1
            self.joined.set()
        elif kind == "move" and socket is self.socket:
            self._spawn(self._move(socket))
        elif kind == "state":
            playback = data["playback"]
            self.playback, self.changes = playback, playback.get("changes")
            if self.sound is not None:
                self.sound.follow(playback, self.server_now_ms())
        if self.on_message is not None:
            self.on_message(self, data)

    def _failed(self, error: Exception) -> None:
        status = getattr(error, "status", None)
        self.errors.append(type(error).__name__ + (f" {status}" if status else ""))

    def _spawn(self, work) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- what the screen sends -------------------------------------------------------------------
    async def send(self, message: dict) -> bool:
        """Send on the current socket; False when there is none open (the page would drop it)."""
        socket = self.socket
        if socket is None or socket.closed:
            return False
        try:
            await socket.send_str(json.dumps(message))
        except (ConnectionError, RuntimeError):
            return False
        return True

    async def claim(self) -> None:
        self.claimed = True
        await self.send({"type": "claim"})

    async def reporting(self, jitter_ms: float = 0.0) -> None:
        """The sound device's position report every half second, as the page sends it."""
        assert self.sound is not None
        await asyncio.sleep(random.random() * REPORT_EVERY_S)
        while not self.stop.is_set():
            if self.playback is not None:
                self.sound.follow(self.playback, self.server_now_ms())
            position = self.sound.position_ms()
            if position is not None and self.joined.is_set():
                await self.send({"type": "report", "at_ms": position + random.uniform(-jitter_ms, jitter_ms),
                                 "playing": self.sound.playing, "read_ms": self.server_now_ms()})
            await asyncio.sleep(REPORT_EVERY_S)

    async def close(self) -> None:
        self.stop.set()
        if self.socket is not None:
            await self.socket.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def apart_ms(screen: PageSocket, device: PageSocket) -> float | None:
    """|where `screen` says the mission is - where its sound device's audio is|, ms, now."""
    assert device.sound is not None
    at = now_ms()
    mine, sound = screen.clock_ms(at), device.sound.position_ms(at)
    return None if mine is None or sound is None else abs(mine - sound)
