"""Rooms of hosted mode: a room is a game (its lobby, its mission, its screens), reached by its
link, QR code or short code. A room nobody uses is forgotten: when no screen has been connected
and no request has named it for `--room-idle` seconds (default 2 hours), its game, short code
and saved file go. docs/serve.md#hosted-mode.
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

from timekeeper.serve.games.game import wall_ms
from timekeeper.serve.quiet import unexpected
from timekeeper.serve.server import ServerState

SWEEP_EVERY_S = 30.0  # how often idle rooms are looked for (more often when the idle time is short)


class Rooms:
    """When each room was last used (wall ms), to forget those idle too long."""

    def __init__(self, idle_s: float) -> None:
        self.idle_ms = idle_s * 1000.0
        self.seen: dict[str, float] = {}

    def touch(self, game_id: str) -> None:
        self.seen[game_id] = wall_ms()

    def idle(self, state: ServerState, now: float | None = None) -> list[str]:
        """The rooms to forget: no screen connected, not used for the idle time."""
        now = wall_ms() if now is None else now
        gone = []
        for game in state.kept_games():
            game_id = game.id
            if state.screens.get(game_id):
                self.seen[game_id] = now  # a connected screen keeps its room
                continue
            last = self.seen.get(game_id) or max(game.created_ms, game.playback.at_ms)
            if now - last >= self.idle_ms:
                gone.append(game_id)
        return gone

    def forget(self, app: web.Application, state: ServerState, game_ids: list[str]) -> None:
        state.forget_games(game_ids)  # (their short codes and seats with them)
        kept = {game.id for game in state.kept_games()}
        for game_id in [g for g in self.seen if g not in kept]:
            del self.seen[game_id]


ROOMS = web.AppKey("rooms", Rooms)


def touch(request: web.Request, state: ServerState) -> None:
    """A request that names a room keeps it (hosted mode; with --redis, in Redis)."""
    rooms = request.app.get(ROOMS)
    game_id = request.match_info.get("game")
    if rooms is not None and game_id:
        rooms.touch(game_id)
        state.store.touch(game_id)


def keep_rooms(state: ServerState):
    """The cleanup context that forgets idle rooms while the server runs (hosted mode)."""

    async def context(app: web.Application):
        rooms = app[ROOMS]
        every = max(0.2, min(SWEEP_EVERY_S, state.config.room_idle_s / 4))

        async def loop() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    rooms.forget(app, state, rooms.idle(state))
                except Exception as error:  # a bug: named in one line; the next sweep goes on
                    unexpected("forgetting idle rooms", error)

        task = asyncio.create_task(loop())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    return context
