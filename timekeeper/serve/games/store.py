"""Where a server keeps its games, their short codes and who is connected, and how a message
reaches every screen of a game: behind one small interface with two implementations.

- `LocalStore`: one process. Games are saved in the state folder (serve/games/game.py), codes and
  seats kept in memory (serve/games/lobby.py), messages sent straight to this process's WebSockets.
- `RedisStore` (serve/games/redis_store.py, `timekeeper serve --redis URL`): several worker processes,
  on one machine or many. Games, their clocks, codes and seats live in Redis; messages travel
  over Redis pub/sub to every worker, which sends them to its own WebSockets.

Every worker keeps the WebSockets it holds in `screens` (game id -> sockets); the `Game`
objects it has met are cached in `games` and refreshed from the store before each use
(`refresh`), so a handler can read `state.game(id)` without waiting.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Collection
from typing import TypeVar

from timekeeper.serve.games.game import KEPT_GAMES, Game, GameStore
from timekeeper.serve.games.lobby import Lobby
from timekeeper.serve.games.screens import Screen, presence_list, send_to
from timekeeper.serve.refusal import Refused

T = TypeVar("T")
Change = Callable[[Game], T]  # a command carried out on a game; None: nothing changed (nothing saved or sent)
MAX_LOCAL_GAMES = 4 * KEPT_GAMES  # games one process keeps when none can be forgotten (all played or watched)
Tell = Callable[[Game], dict]  # the message every screen is sent about a changed game


def gone_refusal() -> Refused:
    """A change of a game that is no longer kept (an expired room): refused, never written again."""
    return Refused("no such game (it may have been forgotten); start a new one", status=404, code="not_found")


class Store:
    """The interface. `screens` holds this worker's joined screens by game id."""

    max_games: int = 0

    def __init__(self) -> None:
        self.screens: dict[str, set[Screen]] = {}
        self.tallies: dict[str, int] = {}

    # --- games ---------------------------------------------------------------------------------
    def get(self, game_id: str) -> Game | None:
        """The game as this worker last knew it (`refresh` first to be sure it is current)."""
        raise NotImplementedError

    async def refresh(self, game_id: str) -> Game | None:
        """The game as the store has it now."""
        raise NotImplementedError

    def follows(self, game_id: str) -> bool:
        """This worker's copy of the game is as the store has it, without asking (a screen may join
        without a read): with Redis while pub/sub keeps it so; False: `refresh` first."""
        return False

    async def count(self) -> int:
        """How many games are kept."""
        raise NotImplementedError

    async def add(self, game: Game) -> Game:
        """Keep a new game (saved first); may forget old ones that no screen follows."""
        raise NotImplementedError

    async def save(self, game: Game) -> None:
        """Save the whole game (its track and settings changed); OutputError when it cannot be."""
        raise NotImplementedError

    async def update(self, game: Game, change: Change, *, tell: Tell | None = None, skip: object = None) -> object:
        """Carry out `change` on the game as the store has it now, save the result and send every
        screen (but `skip`) the message `tell` makes of it, as one step that no other worker's
        command interleaves with (so screens get the states in the order they were saved).
        `change`'s result (None: nothing saved or sent)."""
        raise NotImplementedError

    def local_games(self) -> list[Game]:
        """The games this worker looks after (ends them when their sound runs out)."""
        raise NotImplementedError

    def kept_games(self) -> list[Game]:
        """The games hosted mode looks for idle rooms among (serve/web/rooms.py); none with Redis,
        where a room expires by itself when nobody changes or joins it for its idle time."""
        return []

    def forget_games(self, game_ids: list[str]) -> None:
        """Forget games (expired rooms): their records, codes, seats and this worker's screens."""

    def touch(self, game_id: str) -> None:
        """A request named the game: it is in use (hosted mode keeps it from expiring)."""

    # --- messages to screens -------------------------------------------------------------------
    async def publish(self, game_id: str, message: dict, skip: object = None, game: Game | None = None) -> None:
        """Send `message` to every screen of the game on every worker (but the socket `skip`).
        `game` is given with a `state` message: its clock travels along (other workers' caches)."""
        raise NotImplementedError

    def send_here(self, game_id: str, text: str, skip: object = None, kind: str | None = None) -> None:
        """Send `text` (a message of `kind`) to this worker's screens of the game (but `skip`, a
        screen or its id()): put in each one's outbox (serve/games/screens.py), never waiting for any."""
        for gone in send_to(self.screens.get(game_id, ()), text, skip, kind):
            self.part(game_id, gone)

    def tell_here(self, game_id: str, connected: dict[str, tuple[str, int]], heard: Collection[str]) -> None:
        """Send this worker's screens of the game who is connected (`connected`: client -> its
        device's kind and number) and which of them play the sound (`heard`), each screen marked
        where it is "me"."""
        for screen in list(self.screens.get(game_id, ())):
            if not screen.send_json({"type": "presence", "screens": presence_list(connected, heard, screen.client)}):
                self.part(game_id, screen)

    def join(self, game_id: str, screen: Screen) -> int:
        """A screen of this worker follows the game; how many this worker holds for it."""
        joined = self.screens.setdefault(game_id, set())
        joined.add(screen)
        return len(joined)

    def part(self, game_id: str, screen: Screen) -> None:
        joined = self.screens.get(game_id)
        if joined is not None:
            joined.discard(screen)
            if not joined:
                del self.screens[game_id]

    # --- the lobby: short codes and who is connected -------------------------------------------
    async def code(self, game_id: str) -> str:
        """The game's short code (made the first time it is asked for)."""
        raise NotImplementedError

    async def game_of(self, code: str) -> str | None:
        """The game a typed short code names, if it is kept."""
        raise NotImplementedError

    async def arrive(self, game_id: str, client: str, kind: str, screen: Screen) -> None:
        """A screen said hello as `client`: its device gets a seat (kind and number) in the game's list."""
        raise NotImplementedError

    async def leave(self, game_id: str, screen: Screen) -> None:
        raise NotImplementedError

    async def tell_presence(self, game_id: str) -> None:
        """Send every screen of the game the list of connected devices (each marked where it is "me")."""
        raise NotImplementedError

    # --- work done once across workers (serve/sound/once.py); one process needs no lock -------------
    shared = False  # True: other workers share this store (and the --renders folder)
    worker = ""  # this worker's name (a speaker's record names the worker that watches it)

    async def alive(self, workers: Collection[str]) -> set[str]:
        """Those of `workers` that live (this one, in one process: a name from before a restart is gone)."""
        return {name for name in workers if name == self.worker}

    async def claim(self, name: str, ttl_s: float) -> str | None:
        """A lock on `name` for at most `ttl_s` (its token), or None when another worker holds it."""
        return "local"

    async def release(self, name: str, token: str) -> None:
        """Give the lock back (only its holder, by its token, can)."""

    async def held(self, name: str) -> bool:
        return False

    async def note(self, name: str, fields: dict, ttl_s: float) -> None:
        """Keep `fields` under `name` for every worker to read (a job's progress)."""

    async def read_note(self, name: str) -> dict | None:
        return None

    async def tally(self, name: str) -> int:
        """Count one more of `name` (mixes made, renders run): the benchmarks read these."""
        self.tallies[name] = self.tallies.get(name, 0) + 1
        return self.tallies[name]

    # --- life ----------------------------------------------------------------------------------
    async def start(self) -> None:
        """Connect (the server calls it once its event loop runs)."""

    async def close(self) -> None:
        """Disconnect, leaving everything stored for the other workers."""


class LocalStore(Store):
    """One process: games in the state folder, codes and seats in memory."""

    def __init__(self, folder, keep: int | None = None) -> None:
        """`keep`: games kept at once (hosted mode keeps more: its rooms expire instead)."""
        super().__init__()
        self.worker = f"local-{secrets.token_hex(4)}"
        self.games = GameStore(folder, keep=keep or KEPT_GAMES)
        self.lobby = Lobby()
        self.max_games = keep or MAX_LOCAL_GAMES

    def get(self, game_id: str) -> Game | None:
        return self.games.get(game_id)

    async def refresh(self, game_id: str) -> Game | None:
        return self.games.get(game_id)

    async def count(self) -> int:
        return len(self.games.games)

    async def add(self, game: Game) -> Game:
        in_use: Collection[str] = {game_id for game_id, sockets in self.screens.items() if sockets}
        added = self.games.add(game, in_use)
        self.lobby.forget(set(self.games.games))
        return added

    async def save(self, game: Game) -> None:
        self._kept(game)
        self.games.save(game)

    def _kept(self, game: Game) -> None:
        """Refuse (404) to change a game this store no longer keeps: an expired room is not written again."""
        if self.games.get(game.id) is not game:
            raise gone_refusal()

    async def update(self, game: Game, change: Change, *, tell: Tell | None = None, skip: object = None) -> object:
        from timekeeper.errors import TimekeeperError

        self._kept(game)
        before = game.clock()
        result = change(game)
        if result is None:
            return None
        try:
            self.games.save(game)
        except TimekeeperError:  # not saved, so not made: every screen keeps what it has
            game.restore_clock(before)
            raise
        if tell is not None:
            await self.publish(game.id, tell(game), skip, game)
        return result

    def local_games(self) -> list[Game]:
        return list(self.games.games.values())

    def kept_games(self) -> list[Game]:
        return list(self.games.games.values())

    def forget_games(self, game_ids: list[str]) -> None:
        for game_id in game_ids:
            self.games.remove(game_id)
            self.screens.pop(game_id, None)
        self.lobby.forget(set(self.games.games))

    async def publish(self, game_id: str, message: dict, skip: object = None, game: Game | None = None) -> None:
        self.send_here(game_id, json.dumps(message), skip, message.get("type"))

    async def code(self, game_id: str) -> str:
        return self.lobby.code(game_id)

    async def game_of(self, code: str) -> str | None:
        game_id = self.lobby.game_of(code)
        return game_id if game_id is not None and self.games.get(game_id) is not None else None

    async def arrive(self, game_id: str, client: str, kind: str, screen: Screen) -> None:
        self.lobby.arrive(game_id, client, kind, screen)
        screen.client = client

    async def leave(self, game_id: str, screen: Screen) -> None:
        self.lobby.leave(game_id, screen)

    async def tell_presence(self, game_id: str) -> None:
        game = self.games.get(game_id)
        heard = set(game.heard_speakers()) if game is not None else set()
        self.tell_here(game_id, self.lobby.connected(game_id), heard)
