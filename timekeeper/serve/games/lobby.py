"""The lobby of a game: short codes to type on another phone, and who is connected.

A game exists (status ready) as soon as the crew has picked a track on the set-up screen; phones
join it by link, QR code or a short code, and every screen is told who else is there and which
devices play the sound. Kept in memory: after a restart screens say hello again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from timekeeper.serve.refusal import Refused

CODE_LETTERS = "ACDEFHJKMNPRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B: easy to read aloud and type
CODE_LENGTH = 5
KINDS = ("phone", "screen")  # how a screen is named in the list: "Phone 2", "Screen 1"
MAX_SEATS = 64  # devices one game lists at most (a screen saying hello as ever new devices gets no more)


def too_many_seats() -> Refused:
    return Refused(f"this game lists {MAX_SEATS} devices already; a device must leave first", status=503,
                   code="too_busy", retry_after_s=10)



def normal_code(text: str) -> str:
    """A typed code as the lobby keeps it (upper case, spaces and dashes dropped)."""
    return "".join(ch for ch in text.upper() if ch not in " -")[: CODE_LENGTH + 2]


def is_code(code: str) -> bool:
    """Whether a code (as normal_code makes it) can be one the lobby gave: CODE_LENGTH of CODE_LETTERS."""
    return len(code) == CODE_LENGTH and all(ch in CODE_LETTERS for ch in code)


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
        """A screen said hello as `client`: that device's seat (a new one numbered after the last of
        its kind), and no other: a screen is one device, its last hello says which. Refused (503)
        when the game has MAX_SEATS devices already and none of them has left."""
        seats = self.seats.setdefault(game_id, {})
        for other in seats.values():
            other.sockets.discard(socket)
        seat = seats.get(client)
        if seat is None:
            if len(seats) >= MAX_SEATS:
                for gone in [name for name, empty in seats.items() if not empty.sockets]:
                    del seats[gone]
            if len(seats) >= MAX_SEATS:
                raise too_many_seats()
            kind = kind if kind in KINDS else "screen"
            number = 1 + max((s.number for s in seats.values() if s.kind == kind), default=0)
            seat = seats[client] = Seat(kind, number)
        seat.sockets.add(socket)

    def leave(self, game_id: str, socket: object) -> None:
        for seat in self.seats.get(game_id, {}).values():
            seat.sockets.discard(socket)

    def connected(self, game_id: str) -> dict[str, tuple[str, int]]:
        """The devices connected to a game: client -> its kind and number."""
        return {client: (seat.kind, seat.number) for client, seat in self.seats.get(game_id, {}).items() if seat.sockets}
