"""A game: one track with its sound settings, and the mission clock every joined screen follows.

The clock is the room's: the server's playback, on its wall clock. Every device that plays the
sound (a speaker, serve/games/speakers.py) follows it on its own, and none of them moves it: a
command does (play, pause, seek, end, undo), or the mission pausing itself when no speaker has
been heard for the game's `silence_pause_s`. Every change is saved to the state folder, so a
restarted server picks the mission up at the moment it has reached.
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
from timekeeper.serve.games.speakers import Speaker, kept_speakers
from timekeeper.soundtrack.mix import MixSettings

READY, PLAYING, PAUSED, ENDED = "ready", "playing", "paused", "ended"
KEPT_GAMES = 50  # older saved games are forgotten
KEPT_TRACKS = 64  # parsed tracks kept for the games made from them (track_scenario)
UNDO_MS = 5000  # an ended action round can be taken back this long
SILENT = "silent"  # why a mission paused itself: no speaker was heard (Playback.reason)
# The game's own settings beside the sound's (serve/web/schemas.py checks them): `remote`, the crew
# apart (every joined screen plays the sound), and `silence_pause_s`, how long a playing mission
# nobody hears goes on before it pauses itself (0: it never does). Neither changes the sound.
GAME_SETTINGS = ("remote", "silence_pause_s")
SILENCE_PAUSE_S = 3.0
SILENCE_PAUSE_MAX_S = 60.0
KEPT_NOTES = 20  # the game's history: why it paused itself, the most recent kept
# The fields of a game that commands change (the rest is its setup): each is replaced, never changed in place.
CLOCK_FIELDS = ("playback", "speakers", "changes", "before_end", "duration_ms", "silent_since_ms", "notes")
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
    reason: str | None = None  # why a paused mission paused, when it paused itself (SILENT)

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
    speakers: dict[str, Speaker] = field(default_factory=dict)  # client id -> a device that plays the sound
    changes: int = 0  # counts commands (not position reports): a speaker seeks when it grows
    mode: str = "sound"
    before_end: Playback | None = None  # the playback an `end` replaced, while it can be undone
    crew: str = ""  # hosted mode: the crew that made the game (serve/guards/crews.py); "" for the machine's
    silent_since_ms: float | None = None  # wall ms since when no speaker of the playing mission is heard
    notes: list[dict] = field(default_factory=list)  # the game's history: each time it paused itself, and why

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
        return MixSettings(**{key: value for key, value in self.settings.items() if key != "pace" and key not in GAME_SETTINGS})

    @property
    def mix_key(self) -> str:
        """Names the mix: the track and the settings that change the sound (not the game's own)."""
        sound = {key: value for key, value in self.settings.items() if key not in GAME_SETTINGS}
        payload = json.dumps([self.yaml_text, sound], sort_keys=True).encode("utf-8")
        return hashlib.sha256(payload).hexdigest()[:20]

    @property
    def remote(self) -> bool:
        """A crew apart: every joined screen plays the sound."""
        return bool(self.settings.get("remote", False))

    @property
    def silence_pause_ms(self) -> float:
        """How long a playing mission no speaker is heard of goes on before it pauses itself (0: never)."""
        return 1000.0 * float(self.settings.get("silence_pause_s", SILENCE_PAUSE_S))

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
        self.watch_silence()

    def pause(self, at_ms: float | None = None) -> None:
        self._settle()
        if self.playback.status in (PLAYING, READY, PAUSED):
            position = self.playback.now_ms() if at_ms is None else at_ms
            self.playback = Playback(PAUSED, self._clamp(position), wall_ms())
        self.watch_silence()

    def end(self) -> None:
        self._settle()
        now = self.playback.now_ms()
        if self.playback.status == ENDED:
            return
        if not self.can_end(now):
            raise GameError(said("error.too_early"), code="too_early")
        self.before_end = self.playback
        self.playback = Playback(ENDED, self._clamp(now), wall_ms())
        self.watch_silence()

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
        self.watch_silence()

    def seek(self, at_ms: float) -> None:
        """Jump to `at_ms` (resume after an interruption), keeping playing or paused."""
        self._settle()
        if self.playback.status == ENDED:
            raise GameError(said("error.mission_over"))
        status = self.playback.status if self.playback.status != READY else PAUSED
        self.playback = Playback(status, self._clamp(at_ms), wall_ms())
        self.watch_silence()

    # --- speakers (serve/games/speakers.py) ----------------------------------------------------
    def claim(self, client: str, late_ms: int = 0, by: str = "") -> bool:
        """`client`'s device plays the sound too (heard from now on), `late_ms` its output delay,
        watched by the worker `by`. False when it already did so."""
        if self.speakers.get(client) == Speaker(True, late_ms, None, by):
            return False
        speakers = {c: s for c, s in self.speakers.items() if c != client}
        speakers[client] = Speaker(True, late_ms, None, by)
        self.speakers = kept_speakers(speakers)
        self.watch_silence()
        return True

    def release(self, client: str) -> bool:
        """`client`'s device no longer plays the sound, on purpose (the prompter, quiet mode, "Sound on
        this device" unticked): it is forgotten, and the last one leaves a mission nobody needs to
        hear. False when it was no speaker."""
        if client not in self.speakers:
            return False
        self.speakers = {c: s for c, s in self.speakers.items() if c != client}
        self.watch_silence()
        return True

    def hear(self, client: str, heard: bool, heard_to_ms: float | None = None) -> bool:
        """A speaker's worker saw it follow the clock again (`heard`), or lose it, its sound last heard
        at mission position `heard_to_ms`. False when that changes nothing."""
        speaker = self.speakers.get(client)
        if speaker is None or speaker.heard == heard:
            return False
        kept = None if heard else (self.playback.now_ms() if heard_to_ms is None else self._clamp(heard_to_ms))
        self.speakers = {**self.speakers, client: Speaker(heard, speaker.late_ms, kept, speaker.by)}
        self.watch_silence()
        return True

    def heard_speakers(self) -> list[str]:
        return [client for client, speaker in self.speakers.items() if speaker.heard]

    def watch_silence(self, now: float | None = None) -> None:
        """Note since when a playing mission with speakers has none heard (a mission whose last
        speaker was released on purpose, or that never had one, is not silent)."""
        self._settle()
        silent = (self.mode == "sound" and self.playback.status == PLAYING and bool(self.speakers)
                  and not any(speaker.heard for speaker in self.speakers.values()))
        if not silent:
            self.silent_since_ms = None
        elif self.silent_since_ms is None:
            self.silent_since_ms = wall_ms() if now is None else now

    def pause_if_silent(self, now: float | None = None) -> bool:
        """Pause a mission no speaker has been heard of for `silence_pause_ms`, where the sound was
        last heard, and note why in the game's history. False when it is not time."""
        now = wall_ms() if now is None else now
        self.watch_silence(now)
        wait = self.silence_pause_ms
        if self.silent_since_ms is None or wait <= 0 or now < self.silent_since_ms + wait:
            return False
        heard_to = [s.heard_to_ms for s in self.speakers.values() if s.heard_to_ms is not None]
        at_ms = self._clamp(min(max(heard_to, default=self.playback.now_ms(now)), self.playback.now_ms(now)))
        self.playback = Playback(PAUSED, at_ms, now, reason=SILENT)
        self.silent_since_ms = None
        self.notes = [*self.notes, {"kind": SILENT, "position_ms": at_ms, "at_ms": now}][-KEPT_NOTES:]
        return True

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
                "duration_ms": self.duration_ms, "speakers": {c: s.as_json() for c, s in self.speakers.items()},
                "changes": self.changes, "mode": self.mode,
                "before_end": None if self.before_end is None else asdict(self.before_end), "crew": self.crew,
                "silent_since_ms": self.silent_since_ms, "notes": self.notes}

    @classmethod
    def from_record(cls, record: dict) -> Game:
        before_end = record.get("before_end")
        game = cls(record["id"], record["track_id"], record["title"], record["yaml_text"], dict(record["settings"]),
                   Playback(**record["playback"]), record["created_ms"], int(record["duration_ms"]),
                   changes=int(record.get("changes", 0)),
                   mode=record.get("mode", "sound") if record.get("mode") in MODES else "sound",
                   before_end=Playback(**before_end) if isinstance(before_end, dict) else None,
                   crew=str(record.get("crew") or ""))
        game.take_clock(record)
        return game

    def clock(self) -> tuple:
        """The values of the clock's fields (CLOCK_FIELDS), to put back with `restore_clock`."""
        return tuple(getattr(self, name) for name in CLOCK_FIELDS)

    def restore_clock(self, values: tuple) -> None:
        for name, value in zip(CLOCK_FIELDS, values, strict=True):
            setattr(self, name, value)

    def take_clock(self, record: dict) -> None:
        """The speakers, silence and history of a saved record (one saved before speakers: its one
        sound device, `holder`)."""
        speakers = record.get("speakers")
        if isinstance(speakers, dict):
            self.speakers = {str(c): Speaker.from_json(s) for c, s in speakers.items()}
        else:
            self.speakers = {record["holder"]: Speaker()} if isinstance(record.get("holder"), str) else {}
        silent = record.get("silent_since_ms")
        self.silent_since_ms = float(silent) if isinstance(silent, (int, float)) else None
        notes = record.get("notes")
        self.notes = [note for note in notes if isinstance(note, dict)][-KEPT_NOTES:] if isinstance(notes, list) else []


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
