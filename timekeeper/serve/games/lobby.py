"""The lobby of a game: short codes to type on another phone, and who is connected.

A game exists (status ready) as soon as the crew has picked a track on the set-up screen; phones
join it by link, QR code or a short code, and every screen is told who else is there and which
device plays the sound. Kept in memory: after a restart screens say hello again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

CODE_LETTERS = "ACDEFHJKMNPRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B: easy to read aloud and type
CODE_LENGTH = 5
KINDS = ("phone", "screen")  # how a screen is named in the list: "Phone 2", "Screen 1"



def normal_code(text: str) -> str:
    """A typed code as the lobby keeps it (upper case, spaces and dashes dropped)."""
    return "".join(ch for ch in text.upper() if ch not in " -")[: CODE_LENGTH + 2]


@dataclass
class Seat:
    """One device's place in a game's list: its kind and number stay while the server runs."""

    kind: str
    number: int
    sockets: set = field(default_factory=set)


@dataclass
class Lobby:
    codes: dict[str, str] = field(default_factory=dict)  # short code -> game id
    code_of: dict[str, str] = field(default_factory=dict)  # game id -> short code
    seats: dict[str, dict[str, Seat]] = field(default_factory=dict)  # game id -> client id -> seat

    def code(self, game_id: str) -> str:
        """The game's short code (made the first time it is asked for)."""
        known = self.code_of.get(game_id)
        if known is not None:
            return known
        while True:
            made = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if made not in self.codes:
                break
        self.codes[made] = game_id
        self.code_of[game_id] = made
        return made

    def game_of(self, code: str) -> str | None:
        return self.codes.get(normal_code(code))

    def forget(self, known_games: set[str]) -> None:
        """Drop the codes and seats of games the store no longer keeps."""
        for game_id in [g for g in self.code_of if g not in known_games]:
            self.codes.pop(self.code_of.pop(game_id), None)
            self.seats.pop(game_id, None)

    def arrive(self, game_id: str, client: str, kind: str, socket: object) -> None:
        seats = self.seats.setdefault(game_id, {})
        seat = seats.get(client)
        if seat is None:
            kind = kind if kind in KINDS else "screen"
            number = 1 + sum(1 for s in seats.values() if s.kind == kind)
            seat = seats[client] = Seat(kind, number)
        seat.sockets.add(socket)

    def leave(self, game_id: str, socket: object) -> None:
        for seat in self.seats.get(game_id, {}).values():
            seat.sockets.discard(socket)

    def present(self, game_id: str, holder: str | None, socket: object) -> list[dict]:
        """The connected devices of a game as `socket`'s screen lists them."""
        listed = []
        for client, seat in self.seats.get(game_id, {}).items():
            if seat.sockets:
                listed.append({"kind": seat.kind, "number": seat.number, "sound": client == holder,
                               "me": socket in seat.sockets})
        return sorted(listed, key=lambda s: (not s["sound"], s["kind"], s["number"]))
