"""A game: one track with its sound settings, and the mission clock every joined screen follows.

The clock's truth is the device that plays the sound: it reports its audio element's position,
and the server passes it on. Without such a device (a human timekeeper with the prompter), the
clock runs on the server's wall clock. Every change is saved to the state folder, so a restarted
server picks the mission up at the moment it has reached.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import secrets
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

from timekeeper.errors import OutputError, TimekeeperError, Words
from timekeeper.files.atomicfile import write_atomic
from timekeeper.grammar.pace import NORMAL_PACE, stretched
from timekeeper.i18n import said
from timekeeper.model import Scenario
from timekeeper.scenario.load import load_text
from timekeeper.soundtrack.mix import MixSettings

READY, PLAYING, PAUSED, ENDED = "ready", "playing", "paused", "ended"
KEPT_GAMES = 50  # older saved games are forgotten
KEPT_TRACKS = 64  # parsed tracks kept for the games made from them (track_scenario)
UNDO_MS = 5000  # an ended action round can be taken back this long
# A playing position read longer ago than this (its Wi-Fi stalled and let a backlog through, or the
# server fell behind) says nothing reliable about where the sound is now: it is ignored, and the
# device's next report comes a second later. Taken at arrival, it would set every screen back by
# its delay (9.5 s seen while a dead worker's 2,500 screens moved to the other, bench_scaleout.py).
REPORT_LATE_MS = 2000
# A report within this of where the clock already says the sound is changes nothing, so it is not
# passed on: screens stay within it of the sound device, and the reports of a device that keeps
# time (every second, from every room) cost the server and the phones nothing. An audio clock
# drifts a few ms a minute; a stall or a seek moves it by far more.
REPORT_SAME_MS = 20.0
MODES = ("sound", "quiet")  # quiet: no sound anywhere; the server's clock runs and every screen alerts
_GAME_ID = re.compile(r"[0-9a-f]{12}")  # a game id, matched whole (fullmatch: a `$` lets a line end through)


def wall_ms() -> float:
    """Milliseconds since the epoch: the server clock that survives a restart."""
    return time.time() * 1000.0


class GameError(TimekeeperError):
    """A command the game cannot take now: `code` "game_over" (the mission has ended) or
    "too_early" (ending before the second phase is over)."""

    def __init__(self, detail: str | Words, *, code: str = "game_over") -> None:
        super().__init__(detail)
        self.code = code


@dataclass
class Playback:
    """Where the mission is: `position_ms` was true at wall time `at_ms`; it advances while playing."""

    status: str = READY
    position_ms: float = 0.0
    at_ms: float = field(default_factory=wall_ms)

    def now_ms(self, wall: float | None = None) -> float:
        if self.status != PLAYING:
            return self.position_ms
        return self.position_ms + ((wall_ms() if wall is None else wall) - self.at_ms)


@dataclass
class Game:
    id: str
    track_id: str
    title: str
    yaml_text: str
    settings: dict  # language, voice, players, solo, background (JSON-safe MixSettings fields), and the training pace
    playback: Playback = field(default_factory=Playback)
    created_ms: float = field(default_factory=wall_ms)
    duration_ms: int = 0  # the track's length with its tail, once the mix is known
    holder: str | None = None  # the client whose device plays the sound
    changes: int = 0  # counts commands (not position reports): a sound device seeks when it grows
    mode: str = "sound"
    before_end: Playback | None = None  # the playback an `end` replaced, while it can be undone
    crew: str = ""  # hosted mode: the crew that made the game (serve/guards/crews.py); "" for the machine's

    def __post_init__(self) -> None:
        scenario = track_scenario(self.yaml_text, self.title, self.pace)
        if scenario is None:
            raise GameError(said("error.track_gone", game=self.id), code="invalid_track")
        self.scenario: Scenario = scenario  # every time as the crew hears it
        self.duration_ms = self.duration_ms or self.scenario.duration_ms

    @property
    def pace(self) -> float:
        return float(self.settings.get("pace", NORMAL_PACE))

    @property
    def mix_settings(self) -> MixSettings:
        return MixSettings(**{key: value for key, value in self.settings.items() if key != "pace"})

    @property
    def mix_key(self) -> str:
        payload = json.dumps([self.yaml_text, self.settings], sort_keys=True).encode("utf-8")
        return hashlib.sha256(payload).hexdigest()[:20]

    def can_end(self, at_ms: float) -> bool:
        """The crew may end the action round once the second phase has ended."""
        ends = self.scenario.phase_ends_ms
        return len(ends) >= 2 and at_ms >= ends[-2]

    # --- commands ------------------------------------------------------------------------------
    def play(self) -> None:
        self._settle()
        if self.playback.status == ENDED:
            raise GameError(said("error.game_over"))
        if self.playback.status != PLAYING:
            self.playback = Playback(PLAYING, self.playback.position_ms, wall_ms())

    def pause(self, at_ms: float | None = None) -> None:
        self._settle()
        if self.playback.status in (PLAYING, READY, PAUSED):
            position = self.playback.now_ms() if at_ms is None else at_ms
            self.playback = Playback(PAUSED, self._clamp(position), wall_ms())

    def end(self) -> None:
        self._settle()
        now = self.playback.now_ms()
        if self.playback.status == ENDED:
            return
        if not self.can_end(now):
            raise GameError(said("error.too_early"), code="too_early")
        self.before_end = self.playback
        self.playback = Playback(ENDED, self._clamp(now), wall_ms())

    def undo_until_ms(self) -> float | None:
        """Until when (wall ms) the crew may take the ended action round back; None: it may not."""
        if self.playback.status != ENDED or self.before_end is None:
            return None
        return self.playback.at_ms + UNDO_MS

    def undo_end(self) -> None:
        """Take an `end` back within UNDO_MS: the mission goes on from where it was ended."""
        until = self.undo_until_ms()
        if until is None or wall_ms() > until or self.before_end is None:
            raise GameError(said("error.no_undo"))
        status = PLAYING if self.before_end.status == PLAYING else PAUSED
        self.playback = Playback(status, self.playback.position_ms, wall_ms())
        self.before_end = None

    def seek(self, at_ms: float) -> None:
        """Jump to `at_ms` (resume after an interruption), keeping playing or paused."""
        self._settle()
        if self.playback.status == ENDED:
            raise GameError(said("error.mission_over"))
        status = self.playback.status if self.playback.status != READY else PAUSED
        self.playback = Playback(status, self._clamp(at_ms), wall_ms())

    def report(self, at_ms: float, playing: bool, read_ms: float | None = None) -> bool:
        """The sound device's audio position `at_ms`, read at `read_ms` on the server's clock as the
        device knows it, so the time the report took to arrive does not move the clock (a moment
        ahead of now, from an offset a little off, is taken as now; without one: now). True when the
        playback changed for everyone: not when the report agrees with the clock within
        REPORT_SAME_MS, nor when a playing position was read more than REPORT_LATE_MS ago (a paused
        one stays true however late it comes)."""
        self._settle()
        status = self.playback.status
        now = wall_ms()
        position = self._clamp(at_ms)
        if status == PLAYING and playing:
            if read_ms is not None and read_ms < now - REPORT_LATE_MS:
                return False
            when = min(read_ms, now) if read_ms is not None else now
            if abs(position - self.playback.now_ms(when)) <= REPORT_SAME_MS:
                return False
            self.playback = Playback(PLAYING, position, when)
            return True
        if status == PAUSED and not playing:
            if abs(position - self.playback.position_ms) <= REPORT_SAME_MS:
                return False
            self.playback = Playback(PAUSED, position, now)
            return True
        return False  # ended, or the device is not (yet) doing what the clock says

    def _settle(self) -> None:
        """A playing mission that has run past its end has ended."""
        if self.playback.status == PLAYING and self.playback.now_ms() >= self.duration_ms:
            self.playback = Playback(ENDED, float(self.duration_ms), wall_ms())

    def settled(self) -> Playback:
        self._settle()
        return self.playback

    def _clamp(self, at_ms: float) -> float:
        return min(max(0.0, float(at_ms)), float(self.duration_ms))

    # --- saving --------------------------------------------------------------------------------
    def as_record(self) -> dict:
        return {"id": self.id, "track_id": self.track_id, "title": self.title, "yaml_text": self.yaml_text,
                "settings": self.settings, "playback": asdict(self.playback), "created_ms": self.created_ms,
                "duration_ms": self.duration_ms, "holder": self.holder, "changes": self.changes, "mode": self.mode,
                "before_end": None if self.before_end is None else asdict(self.before_end), "crew": self.crew}

    @classmethod
    def from_record(cls, record: dict) -> Game:
        before_end = record.get("before_end")
        return cls(record["id"], record["track_id"], record["title"], record["yaml_text"], dict(record["settings"]),
                   Playback(**record["playback"]), record["created_ms"], int(record["duration_ms"]), record.get("holder"),
                   int(record.get("changes", 0)), record.get("mode", "sound") if record.get("mode") in MODES else "sound",
                   Playback(**before_end) if isinstance(before_end, dict) else None, crew=str(record.get("crew") or ""))


@functools.lru_cache(maxsize=KEPT_TRACKS)
def track_scenario(yaml_text: str, title: str, pace: float) -> Scenario | None:
    """The scenario of a game's track at its pace (None: the text no longer loads). Kept for the
    most recent tracks: a game is rebuilt from its record whenever another worker changed it, and
    a worker's screens all reconnect to the others at once when it dies, so the same few tracks
    (most rooms play official ones) are read again and again. Scenarios are frozen: shared safely."""
    result = load_text(yaml_text, f"{title}.yaml")
    return None if result.scenario is None else stretched(result.scenario, pace)


def new_game_id() -> str:
    return secrets.token_hex(6)


class GameStore:
    """The games of one server, saved as JSON files in `folder`/games; `keep` of them (hosted mode
    keeps more: its rooms expire instead, serve/web/rooms.py)."""

    def __init__(self, folder: Path, keep: int = KEPT_GAMES) -> None:
        self.folder = folder / "games"
        self.keep = keep
        self.games: dict[str, Game] = {}
        self._load()

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        files = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in files[: self.keep]:
            try:
                game = Game.from_record(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError, TimekeeperError):
                continue  # a damaged or foreign file: that game is simply not offered again
            if _GAME_ID.fullmatch(game.id):
                self.games[game.id] = game

    def get(self, game_id: str) -> Game | None:
        return self.games.get(game_id) if _GAME_ID.fullmatch(game_id) else None

    def add(self, game: Game, in_use: Collection[str] = ()) -> Game:
        """Keep `game` once it is saved; beyond KEPT_GAMES, forget ended games first, then the
        oldest not playing, never one in `in_use` (screens joined) or playing."""
        self.save(game)
        self.games[game.id] = game
        while len(self.games) > self.keep:
            spare = [g for g in self.games.values() if g.id not in in_use and g.id != game.id and g.settled().status != PLAYING]
            if not spare:
                break
            old = min(spare, key=lambda g: (g.playback.status != ENDED, g.created_ms))
            del self.games[old.id]
            with contextlib.suppress(OSError):
                (self.folder / f"{old.id}.json").unlink(missing_ok=True)
        return game

    def remove(self, game_id: str) -> None:
        """Forget a game and its file (an expired room of hosted mode)."""
        self.games.pop(game_id, None)
        if _GAME_ID.fullmatch(game_id):
            with contextlib.suppress(OSError):
                (self.folder / f"{game_id}.json").unlink(missing_ok=True)

    def save(self, game: Game) -> None:
        """Write `game` to its file; OutputError when the state folder cannot be written."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as failure:
            raise OutputError.cannot_create(self.folder, failure, "the state folder") from failure
        write_atomic(self.folder / f"{game.id}.json", json.dumps(game.as_record()))
