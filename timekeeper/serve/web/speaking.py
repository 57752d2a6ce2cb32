"""The speakers of the games whose screens this worker holds (serve/games/speakers.py): their
claims, position reports and closed screens, and the silence they leave. A speaker heard again or
lost is written to the store and told to every screen of the game (on every worker), with the list
of who is connected; a playing mission no speaker is heard of pauses itself after the game's
`silence_pause_s`, noted in its history."""

from __future__ import annotations

from functools import partial

from timekeeper.errors import TimekeeperError
from timekeeper.serve.games.game import PLAYING, Game, wall_ms
from timekeeper.serve.games.speakers import Report
from timekeeper.serve.server import ServerState
from timekeeper.serve.web.views import state_message

ORPHANS_EVERY_MS = 1000.0  # how often speakers no live worker watches are looked for


def claimed(state: ServerState, game: Game, client: str, socket: object) -> None:
    """`client` claimed the sound on `socket` (its claim is stored): this worker watches it."""
    if client in game.speakers:
        state.watch.claimed(game.id, client, socket, wall_ms(), game.playback.now_ms())


def released(state: ServerState, game: Game, client: str) -> None:
    state.watch.released(game.id, client)


async def reported(state: ServerState, game: Game, client: str, report: Report) -> None:
    """A speaker's position report: written only when it shows a speaker heard again that the
    game had lost (a stall that ended, a claim another worker's closed socket undid)."""
    speaker = game.speakers.get(client)
    if speaker is None:
        state.watch.released(game.id, client)  # released, or forgotten: no longer watched
        return
    playing = game.settled().status == PLAYING
    if state.watch.report(game.id, client, report, wall_ms(), mission_playing=playing) and not speaker.heard:
        await _hear(state, game, client, True, None)


async def closed(state: ServerState, game: Game, socket: object) -> None:
    """`socket` closed: a speaker it was the last screen of here is no longer heard (its tab closed or
    was killed, or it reloads and waits for its tap). Not so when this worker stops: the pages
    reconnect to the next one (serve/web/app.py sets `closing`)."""
    gone = state.watch.closed(game.id, socket)
    if state.closing:
        return
    for client, heard_to_ms in gone:
        await _hear(state, game, client, False, heard_to_ms)


async def watch_speakers(state: ServerState, every_ms: float) -> None:
    """Every `every_ms`: speakers here not heard for SILENT_AFTER_MS are lost, and so are those
    no live worker watches (a restart, a worker that died) once their pages have had UNWATCHED_MS to
    come back; missions silent for their pause time pause themselves (on the worker that first sees
    it). Not while this worker falls behind: the reports it has not read yet are no silence."""
    if state.closing:  # (its screens' reports stop as it stops: the next worker watches their speakers)
        return
    now = wall_ms()
    if not state.watch.keeping_up(now, every_ms):
        return
    if now - state.watch.orphans_checked_ms >= ORPHANS_EVERY_MS:
        state.watch.orphans_checked_ms = now
        await _orphans(state, now)

    def playing_since(game_id: str) -> float | None:
        game = state.store.get(game_id)
        return game.playback.at_ms if game is not None and game.settled().status == PLAYING else None

    for game_id, client, heard_to_ms in state.watch.lost(now, playing_since):
        game = state.store.get(game_id)
        speaker = game.speakers.get(client) if game is not None else None
        if game is not None and speaker is not None and speaker.heard:
            await _hear(state, game, client, False, heard_to_ms)
    for game in state.store.local_games():
        due = game.silent_since_ms is not None and game.silence_pause_ms > 0 and \
            now >= game.silent_since_ms + game.silence_pause_ms
        if due and game.settled().status == PLAYING:
            await state.update(game, _pause_if_silent, tell=state_message)


async def _orphans(state: ServerState, now: float) -> None:
    """Speakers no live worker watches, in every game here (whether their workers live: asked once
    for all games, so a dead worker's screens rejoining this one cost one question a pass)."""
    unwatched: list[tuple[Game, dict[str, str]]] = []
    for game in state.store.local_games():
        if game.settled().status != PLAYING:
            state.watch.orphaned(game.id, [], now)
            continue
        unwatched.append((game, {client: speaker.by for client, speaker in game.speakers.items()
                                 if speaker.heard and (game.id, client) not in state.watch.seen}))
    workers = {by for _, speakers in unwatched for by in speakers.values()} - {state.store.worker}
    alive = await state.store.alive(workers) if workers else set()
    for game, speakers in unwatched:
        gone = [client for client, by in speakers.items() if by not in alive]
        for client in state.watch.orphaned(game.id, gone, now):
            await _hear(state, game, client, False, None)


def _pause_if_silent(game: Game) -> bool | None:
    return game.pause_if_silent() or None


def _heard(game: Game, client: str, heard: bool, heard_to_ms: float | None) -> bool | None:
    return game.hear(client, heard, heard_to_ms) or None


async def _hear(state: ServerState, game: Game, client: str, heard: bool, heard_to_ms: float | None) -> None:
    """Store that `client` is heard (or not) and tell every screen; a store that cannot be reached
    is asked again by the next report or watch."""
    try:
        changed = await state.update(game, partial(_heard, client=client, heard=heard, heard_to_ms=heard_to_ms),
                                     tell=state_message)
        if changed:
            await state.store.tell_presence(game.id)
    except TimekeeperError:
        pass
