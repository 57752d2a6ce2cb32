"""What the page is sent about a game: its timeline as JSON (the one announcement grammar's cues,
timed for the voice that plays), the printed words it shows, and the playback state."""

from __future__ import annotations

from pathlib import PurePath

from timekeeper.grammar.phrases import PhraseBook
from timekeeper.grammar.script import CueKind, Speech, Timeline
from timekeeper.model import CommsDown
from timekeeper.serve.games.game import PLAYING, Game, wall_ms
from timekeeper.titles import title_json

ALERT_KINDS = (CueKind.THREAT,)
PAGE_WORDS = ("phase", "comms_down", "mission_end", "time", "event", "zone", "threat", "data_transfer")


def timeline_json(timeline: Timeline) -> dict:
    """Every cue with its spoken parts (for word-by-word captions), its sounds (named in the printed
    words where the page shows them: klaxon, transfer beep), and the threat pile of a threat (shown,
    never spoken)."""
    book = timeline.phrases  # the voice's words: a pack's own, or its language's table
    cues = []
    for cue in timeline.cues:
        item: dict[str, object] = {
            "kind": cue.kind.value,
            "at_ms": cue.at_ms,
            "end_ms": cue.end_ms,
            "phase": cue.phase,
            "text": cue.text,
            "speech": [{"at_ms": p.at_ms, "duration_ms": p.duration_ms, "text": p.text} for p in cue.speech],
            "sounds": [{"key": p.key, "at_ms": p.at_ms, "duration_ms": p.duration_ms, "name": book.sound(p.key)}
                       for p in cue.parts if not isinstance(p, Speech)],
            "alert": cue.kind in ALERT_KINDS,
        }
        pile = getattr(cue.event, "pile", None)
        if pile is not None and cue.kind is CueKind.THREAT:
            item["pile"] = {"color": pile.value, "name": book.word(f"pile_{pile.value}")}
        if cue.kind is CueKind.COMMS_DOWN and isinstance(cue.event, CommsDown):
            item["until_ms"] = cue.event.until_ms
        cues.append(item)
    return {
        "duration_ms": timeline.duration_ms,
        "phase_ends_ms": list(timeline.phase_ends_ms),
        "language": timeline.language,
        "cues": cues,
    }


def page_words(book: PhraseBook) -> dict[str, str]:
    words = {key: book.word(key) for key in PAGE_WORDS}
    words["phase_end"] = book.word("phase_end", n="{n}")
    return words


def playback_json(game: Game, now_ms: float) -> dict:
    """The room's clock (`position_ms` was true at `at_ms` on the server's clock) and its sound: the
    speakers heard (client ids), since when none is (`silent_since_ms`, while it plays) and how
    long the mission then goes on before it pauses itself, why it paused itself (`reason`), and
    the game's history of such pauses (`notes`)."""
    playback = game.settled()
    return {
        "status": playback.status,
        "position_ms": playback.position_ms,
        "at_ms": playback.at_ms,
        "server_ms": now_ms,
        "can_end": game.can_end(playback.now_ms(now_ms)),
        "speakers": game.heard_speakers(),
        "silent_since_ms": game.silent_since_ms if playback.status == PLAYING else None,
        "silence_pause_ms": game.silence_pause_ms,
        "reason": playback.reason,
        "notes": game.notes,
        "changes": game.changes,
        "undo_until_ms": game.undo_until_ms(),
    }


def state_message(game: Game) -> dict:
    """What every screen is sent when a game's clock or its speakers change."""
    return {"type": "state", "playback": playback_json(game, wall_ms())}


def shown_settings(settings: dict) -> dict:
    """The sound settings as screens see them: the music by its file name, never a path."""
    music = settings.get("music")
    return {**settings, "music": PurePath(music).name if music else None}


def game_json(game: Game, timeline: Timeline, now_ms: float, join_url: str) -> dict:
    return {
        "id": game.id,
        "title": game.title,
        "title_said": title_json(game.title),
        "track_id": game.track_id,
        "settings": shown_settings(game.settings),
        "timeline": timeline_json(timeline),
        "words": page_words(timeline.phrases),
        "playback": playback_json(game, now_ms),
        "join_url": join_url,
        "mode": game.mode,
    }
