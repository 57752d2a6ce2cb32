"""The devices that play a game's sound (its speakers) and how a worker knows they still do.

Any joined screen may play the sound; each one follows the room's clock (the game's playback) on
its own, so none of them is the clock. A speaker is *heard* while its worker sees its reports: a
playing mission's position advancing, every half second. One whose clock has not advanced for
SILENT_AFTER_MS (its sound stalled, its network gone) or whose screen closed (its tab closed or
killed, a reload) is no longer heard; one that starts (claimed, or the clock started or jumped)
while its sound loads has START_GRACE_MS to play. When no speaker of a playing mission is heard, the room is
*silent*: every screen says so, and the mission pauses itself after the game's `silence_pause_s`
(serve/games/game.py) where the sound was last heard.

Only changes are written to the store (a speaker heard again, or lost), never each report: the
reports of a speaker that keeps time cost its worker a dictionary look-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SILENT_AFTER_MS = 1500.0  # a speaker whose clock has not advanced this long is not heard
START_GRACE_MS = 10_000.0  # but one starting (after a claim, a play or a seek) whose sound is still loading: this long
REPORT_GAP_MS = 200.0  # a speaker's reports closer together than this are dropped (the page sends one every 500 ms)
REPORT_LATE_MS = 2000.0  # a report read this long before it arrives says nothing about the sound now
ADVANCE_SHARE = 0.5  # a playing speaker's position moves at least this share of the time between two reports
LATE_LIMIT_MS = 500  # a speaker's own output delay (a Bluetooth speaker), set by the crew: -500..+500 ms
MAX_SPEAKERS = 64  # speakers a game keeps (those not heard are forgotten first)
# A speaker heard whose worker is gone (a restarted server, a worker that died) is watched by no one:
# its page reconnects and claims the sound again; one that has not after this long is lost. Its
# sound plays on meanwhile (a page without its server keeps the sound as the clock), so this is long
# enough for every page of a dead worker to come back (1,000 rooms: 7.5-9.9 s at the 99th
# percentile, docs/hosting.md), or the missions would pause themselves for a server's fault.
UNWATCHED_MS = 15_000.0
# A worker that falls behind (its event loop held up: thousands of screens rejoining at once, a
# starved CPU) has its screens' reports waiting unread: the silence it would see is its own. The
# watch that comes this much later than its period judges no speaker until SILENT_AFTER_MS have
# passed with the worker keeping up; but not for longer than BEHIND_AT_MOST_MS in a row (a worker
# overloaded for good still notices a silent mission, as long after as a dead worker's pages take).
BEHIND_MS = 500.0
BEHIND_AT_MOST_MS = UNWATCHED_MS


@dataclass(frozen=True)
class Speaker:
    """One device that plays the sound. `heard` while its clock is known to follow the room's;
    `late_ms` its output delay as the crew set it (it plays that much ahead); `heard_to_ms` the
    mission position where it was last heard, once it is not; `by` the worker that watches it."""

    heard: bool = True
    late_ms: int = 0
    heard_to_ms: float | None = None
    by: str = ""

    def as_json(self) -> dict:
        return {"heard": self.heard, "late_ms": self.late_ms, "heard_to_ms": self.heard_to_ms, "by": self.by}

    @classmethod
    def from_json(cls, data: object) -> Speaker:
        if not isinstance(data, dict):
            return cls()
        heard_to = data.get("heard_to_ms")
        return cls(bool(data.get("heard", True)), int(data.get("late_ms") or 0),
                   float(heard_to) if isinstance(heard_to, (int, float)) else None, str(data.get("by") or ""))


def kept_speakers(speakers: dict[str, Speaker]) -> dict[str, Speaker]:
    """At most MAX_SPEAKERS, those not heard forgotten first (the oldest of each kind first)."""
    if len(speakers) <= MAX_SPEAKERS:
        return speakers
    order = [c for c, s in speakers.items() if not s.heard] + [c for c, s in speakers.items() if s.heard]
    dropped = set(order[: len(speakers) - MAX_SPEAKERS])
    return {client: speaker for client, speaker in speakers.items() if client not in dropped}


@dataclass
class Seen:
    """What one worker saw of one speaker: its sockets here, and its last reports (wall ms)."""

    sockets: set = field(default_factory=set)
    asked_ms: float = 0.0  # when it claimed the sound (and so starts)
    heard_ms: float = float("-inf")  # its last report that showed it following the clock
    loading: bool = True  # its last report said its sound waits for data (or none came yet)
    position_ms: float | None = None  # its last reported position, read at read_ms (server clock)
    read_ms: float = 0.0
    arrived_ms: float = -REPORT_GAP_MS  # when its last report was handled (the rate bound)
    heard_to_ms: float = 0.0  # the mission position at its last good report


@dataclass(frozen=True)
class Report:
    """A speaker's position report: `at_ms` of the mission, `playing` or not, read at `read_ms` on
    the server's clock as the device knows it (None: on arrival); `loading` while its sound waits
    for data (after a start or a seek)."""

    at_ms: float
    playing: bool
    read_ms: float | None = None
    loading: bool = False


class SpeakerWatch:
    """The speakers whose screens this worker holds, by (game id, client id); times are wall ms."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], Seen] = {}
        self.orphans: dict[tuple[str, str], float] = {}  # heard speakers no live worker watches: since when (wall ms)
        self.orphans_checked_ms = 0.0
        self.watched_ms: float | None = None  # when the watch last ran
        self.behind_until_ms = float("-inf")  # no speaker is judged until then: the worker fell behind
        self.behind_since_ms: float | None = None  # since when it has been behind without a break

    def keeping_up(self, now_ms: float, every_ms: float) -> bool:
        """Whether the speakers may be judged at `now_ms`: the watch, due every `every_ms`, has come
        on time (within BEHIND_MS) for SILENT_AFTER_MS, or it has been behind for BEHIND_AT_MOST_MS."""
        if self.watched_ms is not None and now_ms - self.watched_ms > every_ms + BEHIND_MS:
            self.behind_until_ms = now_ms + SILENT_AFTER_MS
            if self.behind_since_ms is None:
                self.behind_since_ms = now_ms
        elif now_ms >= self.behind_until_ms:
            self.behind_since_ms = None
        self.watched_ms = now_ms
        if self.behind_since_ms is not None and now_ms - self.behind_since_ms >= BEHIND_AT_MOST_MS:
            return True
        return now_ms >= self.behind_until_ms

    def claimed(self, game_id: str, client: str, socket: object, now_ms: float, position_ms: float) -> None:
        """A speaker claimed the sound on `socket`: it starts."""
        seen = self.seen.setdefault((game_id, client), Seen())
        self.orphans.pop((game_id, client), None)
        seen.sockets.add(socket)
        seen.asked_ms, seen.loading, seen.position_ms, seen.heard_to_ms = now_ms, True, None, position_ms

    def released(self, game_id: str, client: str) -> None:
        self.seen.pop((game_id, client), None)

    def report(self, game_id: str, client: str, report: Report, now_ms: float, *, mission_playing: bool) -> bool | None:
        """Whether the report shows the speaker following the clock: a paused mission's speaker that
        reports, a playing one's whose position advanced since its last report. None when it says
        nothing (not a speaker here, too soon after its last report, or read too long ago)."""
        seen = self.seen.get((game_id, client))
        if seen is None or now_ms - seen.arrived_ms < REPORT_GAP_MS:
            return None
        seen.arrived_ms = now_ms
        read_ms = now_ms if report.read_ms is None else min(report.read_ms, now_ms)
        if now_ms - read_ms > REPORT_LATE_MS:
            return None
        before, before_read = seen.position_ms, seen.read_ms
        seen.position_ms, seen.read_ms, seen.loading = report.at_ms, read_ms, report.loading
        if not mission_playing:
            seen.heard_ms = now_ms
            return True
        advanced = before is not None and report.at_ms - before >= ADVANCE_SHARE * (read_ms - before_read) > 0
        if not (report.playing and advanced):
            return False
        seen.heard_ms, seen.heard_to_ms = now_ms, report.at_ms
        return True

    def closed(self, game_id: str, socket: object) -> list[tuple[str, float]]:
        """`socket` closed: the speakers (client, position last heard) it was the last socket here of."""
        gone = []
        for (game, client), seen in list(self.seen.items()):
            if game != game_id or socket not in seen.sockets:
                continue
            seen.sockets.discard(socket)
            if not seen.sockets:
                del self.seen[(game, client)]
                gone.append((client, seen.heard_to_ms))
        return gone

    def lost(self, now_ms: float, playing_since) -> list[tuple[str, str, float]]:
        """(game id, client, position last heard) of every speaker here that a playing mission has not
        heard for SILENT_AFTER_MS: since its last good report, or since it started (then, while its
        sound loads, for START_GRACE_MS). `playing_since(game_id)` is the wall ms the game's clock
        last started or jumped, or None when it does not play."""
        lost = []
        for (game_id, client), seen in self.seen.items():
            since = playing_since(game_id)
            if since is None:
                continue
            started = max(since, seen.asked_ms)
            if seen.heard_ms >= started:
                quiet, allowed = now_ms - seen.heard_ms, SILENT_AFTER_MS
            else:
                quiet, allowed = now_ms - started, START_GRACE_MS if seen.loading else SILENT_AFTER_MS
            if quiet > allowed:
                lost.append((game_id, client, seen.heard_to_ms))
        return lost

    def orphaned(self, game_id: str, clients: list[str], now_ms: float) -> list[str]:
        """Of `clients`, heard speakers of a playing game that no live worker watches, those that have
        been so for UNWATCHED_MS (each is noted the first time it is seen so)."""
        for key in [key for key in self.orphans if key[0] == game_id and key[1] not in clients]:
            del self.orphans[key]
        since = {client: self.orphans.setdefault((game_id, client), now_ms) for client in clients}
        return [client for client, noticed in since.items() if now_ms - noticed >= UNWATCHED_MS]

    def forget(self, game_ids: set[str]) -> None:
        """Forget the speakers of games no longer kept here."""
        for key in [key for key in self.seen if key[0] in game_ids]:
            del self.seen[key]
        for key in [key for key in self.orphans if key[0] in game_ids]:
            del self.orphans[key]
