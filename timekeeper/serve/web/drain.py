"""A worker's graceful stop (SIGTERM), so that a rolling restart of the workers behind nginx goes
unnoticed by the crews (docs/hosting.md, "Upgrading: a rolling restart"):

1. the worker stops listening: nginx sends every new connection to the other workers (it skips one
   that refuses a connection); its idle keep-alive connections to this one are closed, and every
   answer from now on closes its connection;
2. the downloads waiting in its render queue are left to the next worker the page asks;
3. its joined screens are told to move (`{"type": "move"}`), one at a time, spread over the drain
   window (`--drain`, default 10 s) in a random order with jitter, so the other workers take them
   at an even pace instead of all at once. A page opens its new socket (through nginx: to another
   worker) before it closes this one, so a command pressed meanwhile goes through one or the
   other and none is lost; a screen still here MOVE_GRACE_S after it was told (a page from before
   this protocol, a socket that could not open) is closed with 1012 (service restart) and
   reconnects as after any lost connection;
4. the requests in flight finish (the sound a player is reading, a command); at the end of the
   window the renders still running are stopped and left too; what is still open FINISH_GRACE_S
   later is closed, and the worker exits 0.

Without `--redis` there is no other worker to move to: the screens are closed at once and the
server stops (they reconnect when it is back).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time

from aiohttp import WSCloseCode, web

from timekeeper.serve.games.screens import Screen
from timekeeper.serve.guards.limits import ConnectionLimits
from timekeeper.serve.quiet import say
from timekeeper.serve.server import ServerState
from timekeeper.serve.web.routes import STATE

MOVE_GRACE_S = 5.0  # a screen told to move is closed (1012) if it is still here this long after
FINISH_GRACE_S = 5.0  # requests still in flight this long after the window are cut
SETTLE_S = 2.0  # the longest the renders left are waited for (their notes and locks in Redis)
MOVE = json.dumps({"type": "move"})


class Requests:
    """The requests being handled (a joined screen counts while its socket is open)."""

    def __init__(self) -> None:
        self.count = 0
        self._none = asyncio.Event()
        self._none.set()

    def started(self) -> None:
        self.count += 1
        self._none.clear()

    def ended(self) -> None:
        self.count -= 1
        if self.count <= 0:
            self._none.set()

    async def none_left(self, timeout_s: float) -> bool:
        """Wait until no request is handled (at most `timeout_s`); True if none is."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._none.wait(), max(0.0, timeout_s))
        return self.count <= 0


REQUESTS = web.AppKey("requests", Requests)


@web.middleware
async def counted(request: web.Request, handler):
    """Count the request while it is handled (the drain waits for those in flight); once the worker
    is stopping, every answer closes its connection (the proxy opens its next one to another worker)."""
    requests = request.app[REQUESTS]
    requests.started()
    try:
        response = await handler(request)
        if request.app[STATE].stopping:
            response.force_close()
        return response
    finally:
        requests.ended()


def move_times(count: int, window_s: float, rng: random.Random) -> list[float]:
    """When each of `count` screens is told to move, seconds from now: one in each equal slot of
    the window, at a random moment of its slot (so the moves come at an even pace, never in step)."""
    if count <= 0:
        return []
    slot = window_s / count
    return [(n + rng.random()) * slot for n in range(count)]


async def drain(app: web.Application, window_s: float, limits: ConnectionLimits, *,
                rng: random.Random | None = None) -> None:
    """Move every screen of this worker to the others over `window_s`, let the requests in flight
    finish and leave the renders (see the module's text). The caller has stopped listening;
    `limits` holds the open connections."""
    state: ServerState = app[STATE]
    requests = app[REQUESTS]
    rng = rng or random.Random()
    if not state.store.shared:
        window_s = 0.0  # nowhere to move to
    started = time.monotonic()
    state.stopping = True
    limits.close_idle()  # the proxy's keep-alive connections: its next request opens one to another worker
    left = state.leave_renders(running=False)
    sockets = [screen for joined in state.screens.values() for screen in joined]
    rng.shuffle(sockets)
    say(f"stopping: moving {len(sockets)} screens to the other workers over {window_s:g} s")
    moves = [asyncio.create_task(_move(socket, at_s)) for socket, at_s in
             zip(sockets, move_times(len(sockets), window_s, rng), strict=True)]
    await requests.none_left(window_s)
    left += state.leave_renders(running=True)
    await state.renders_settled(SETTLE_S)
    await requests.none_left(window_s + FINISH_GRACE_S - (time.monotonic() - started))
    cut = requests.count  # (each is cut when the server shuts down)
    for task in moves:
        task.cancel()
    closed = sum(1 for result in await asyncio.gather(*moves, return_exceptions=True) if result is not False)
    say(f"stopped in {time.monotonic() - started:.1f} s: {len(sockets) - closed} screens moved, {closed} closed, "
        f"{cut} requests cut, {left} downloads left to the other workers")


async def _move(screen: Screen, at_s: float) -> bool:
    """Tell one screen to move at `at_s` (through its outbox: never waiting for it); close it
    MOVE_GRACE_S later if it is still here. False when the screen moved by itself."""
    try:
        await asyncio.sleep(at_s)
        if screen.closed:
            return False
        if at_s > 0:
            screen.send(MOVE)
            await asyncio.sleep(MOVE_GRACE_S)
            if screen.closed:
                return False
        await screen.close(code=WSCloseCode.SERVICE_RESTART, message=b"moving")
        return True
    except asyncio.CancelledError:  # the drain is over: what is left is closed now
        if screen.closed:
            return False
        with contextlib.suppress(Exception):
            await asyncio.shield(screen.close(code=WSCloseCode.SERVICE_RESTART, message=b"moving"))
        return True
