"""One joined screen's way out: every message to a screen (a game's state, who is connected, an
answer to its own ping) is put in its outbox at once, and one task of its own sends them in order,
each within SEND_S. Nobody awaits a screen: the loops that tell every screen of a game (one
worker's, or every worker's over Redis) and every loop over all games go on at once, and one
phone that stops reading never holds up another screen, another game, or a command.

A message that tells the whole of something (the game's state, who is connected: SUPERSEDING)
replaces any of its kind still waiting: a screen behind a burst of commands gets the latest state,
not every one. A screen that does not take what it is sent is dropped: its connection is closed at
once (without a close frame, which would only wait behind what it does not read) when one message
waited longer than SEND_S, or when more than BACKLOG messages (BACKLOG_BYTES) wait for it. The
page joins again by itself, and gets the game's state afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections import deque
from collections.abc import Collection, Iterable

from timekeeper.serve.quiet import say, unexpected

SEND_S = 10.0  # a message must be taken by the screen's connection within this, else it is dropped
WATCH_EVERY_S = 0.5  # how often the screens are looked at for one that takes nothing
BACKLOG = 64  # messages waiting for one screen at most (a screen gets a few a second) ...
BACKLOG_BYTES = 256 * 1024  # ... and bytes
HEARTBEAT_S = 20.0  # a screen is pinged this often (aiohttp's heartbeat; nginx drops a socket silent for long)
WRITER_LIMIT = 16 * 1024  # aiohttp's writer waits for a full connection after this many bytes (its own: 64 KB)
CLOSE_S = 1.0  # at shutdown, a screen's close is sent within this, else its connection is cut
GOING_AWAY = 1001  # the WebSocket close code of a server that stops
SUPERSEDING = frozenset({"state", "presence"})  # kinds of message whose newest tells all there is


class Screen:
    """A joined screen: its WebSocket `socket` (aiohttp's, or anything with send_str, close and
    closed), the `transport` under it (cut when the screen is dropped), and the client id it said
    hello as (`client`, None before)."""

    def __init__(self, socket, transport=None) -> None:
        self.socket = socket
        self.transport = transport
        self.client: str | None = None
        self.dropped: str | None = None  # why it was dropped or closed (None while it is sent messages)
        self._closing = False  # a close is under way: nothing more is taken
        self._outbox: deque[tuple[str | None, str]] = deque()  # (kind if SUPERSEDING, text), oldest first
        self._bytes = 0
        self._ready = asyncio.Event()  # something waits in the outbox
        self._idle = asyncio.Event()  # the outbox is empty and nothing is being sent
        self._idle.set()
        self.sending_since: float | None = None  # when the message being sent was handed to the connection (loop time)
        loop = asyncio.get_running_loop()
        self._sender = loop.create_task(self._send_all())
        _watched(loop).add(self)

    @property
    def closed(self) -> bool:
        return self.dropped is not None or self.socket.closed

    def send(self, text: str, kind: str | None = None) -> bool:
        """Put `text` in the outbox (never waits), in place of any waiting message of its `kind`
        when that is one of SUPERSEDING; False when the screen is gone or closing, or is dropped
        now because too much waits for it already."""
        if self.closed or self._closing:
            return False
        kind = kind if kind in SUPERSEDING else None
        if kind is not None and any(waiting == kind for waiting, _ in self._outbox):
            kept = [(waiting, old) for waiting, old in self._outbox if waiting != kind]
            self._bytes = sum(len(old) for _, old in kept)
            self._outbox = deque(kept)
        if len(self._outbox) >= BACKLOG or self._bytes + len(text) > BACKLOG_BYTES:
            self.drop(f"{len(self._outbox)} messages waited for it")
            return False
        self._outbox.append((kind, text))
        self._bytes += len(text)
        self._idle.clear()
        self._ready.set()
        return True

    def send_json(self, message: dict) -> bool:
        return self.send(json.dumps(message), message.get("type"))

    async def _send_all(self) -> None:
        """The screen's sender: the outbox in order, each message within SEND_S."""
        try:
            while self.dropped is None:
                if not self._outbox:
                    self._idle.set()
                    self._ready.clear()
                    await self._ready.wait()
                    continue
                _kind, text = self._outbox.popleft()
                self._bytes -= len(text)
                self.sending_since = asyncio.get_running_loop().time()  # (the watchdog drops it after SEND_S)
                try:
                    await self.socket.send_str(text)
                except (ConnectionError, RuntimeError):  # it went away (or closed): nothing to report
                    self.drop("")
                    return
                finally:
                    self.sending_since = None
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug: named in one line; the screen is dropped, the server goes on
            unexpected("sending to a screen", error)
            self.drop("")
        finally:
            self._idle.set()

    def drop(self, why: str) -> None:
        """Stop sending to this screen and cut its connection at once (`why`, if said, goes to the
        terminal in one line)."""
        if self.dropped is not None:
            return
        self.dropped = why or "gone"
        self._outbox.clear()
        self._bytes = 0
        if why:
            say(f"dropped a screen that does not read ({why})", kind="screen-dropped")
        if self._sender is not asyncio.current_task():
            self._sender.cancel()
        self._cut()

    def _cut(self) -> None:
        if self.transport is not None:
            with contextlib.suppress(Exception):
                self.transport.abort()

    async def close(self, code: int = GOING_AWAY, message: bytes = b"") -> None:
        """What waits in the outbox, then a close (`code`), all within CLOSE_S; else the connection
        is cut. The screen takes nothing more meanwhile."""
        if self._closing or self.dropped is not None:
            return
        self._closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLOSE_S
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), CLOSE_S)  # (the screen hears why it is closed)
        if self.dropped is None:
            self.dropped = "closed"
        self._sender.cancel()
        left = deadline - loop.time()
        try:
            if left <= 0:
                raise asyncio.TimeoutError
            await asyncio.wait_for(self.socket.close(code=code, message=message), left)
        except Exception:  # (a timeout, or it went away meanwhile)
            if not self.socket.closed:
                self._cut()

    async def end(self) -> None:
        """The screen's handler is over: its sender stops (what was not sent is not sent)."""
        if self.dropped is None:
            self.dropped = "ended"
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._sender


def _watched(loop: asyncio.AbstractEventLoop) -> weakref.WeakSet[Screen]:
    """The screens of `loop`, looked at every WATCH_EVERY_S by one watchdog task (started with the
    first screen): one whose message has waited longer than SEND_S is dropped. (One task for all
    screens: a timer per message would cost a task each.)"""
    watched = _WATCHED.get(loop)
    if watched is None:
        watched = _WATCHED[loop] = weakref.WeakSet()
        _WATCHDOGS[loop] = loop.create_task(_watch(watched))
    return watched


async def _watch(watched: weakref.WeakSet[Screen]) -> None:
    loop = asyncio.get_running_loop()
    while True:
        await asyncio.sleep(WATCH_EVERY_S)
        now = loop.time()
        for screen in list(watched):
            since = screen.sending_since
            if screen.dropped is not None:
                watched.discard(screen)
            elif since is not None and now - since > SEND_S:
                screen.drop(f"it took nothing for {SEND_S:.0f} s")
                watched.discard(screen)


_WATCHED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, weakref.WeakSet[Screen]] = weakref.WeakKeyDictionary()
_WATCHDOGS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task] = weakref.WeakKeyDictionary()


def send_to(screens: Iterable[Screen], text: str, skip: object = None, kind: str | None = None) -> list[Screen]:
    """Put `text` (a message of `kind`) in the outbox of every screen of `screens` but `skip` (a
    screen, or its id()); the screens that are gone, to forget. Never waits."""
    gone = []
    for screen in list(screens):
        if screen is skip or (isinstance(skip, int) and id(screen) == skip):
            continue
        if not screen.send(text, kind):
            gone.append(screen)
    return gone


async def close_all(screens: Iterable[Screen], code: int = GOING_AWAY, message: bytes = b"") -> None:
    """Send every screen a close at once (the server stops): within CLOSE_S, whatever they do."""
    closing = [screen.close(code, message) for screen in list(screens)]
    if closing:
        await asyncio.gather(*closing, return_exceptions=True)


def presence_list(connected: dict[str, tuple[str, int]], heard: Collection[str], me: str | None) -> list[dict]:
    """Who is connected to a game as one screen lists them: each connected client's device (its
    kind and number), which ones play the sound (the speakers `heard`), which is this screen's own;
    the speakers first."""
    listed = [{"kind": kind, "number": number, "sound": client in heard, "me": client == me}
              for client, (kind, number) in connected.items()]
    return sorted(listed, key=lambda seat: (not seat["sound"], seat["kind"], seat["number"]))
