"""Work done once across workers: a mix prepared (its phrases synthesized into the clip cache)
and a soundtrack rendered once, whichever worker is asked, the others waiting for it and then
reading the result from the folders every worker shares (the clip cache, `--sound-cache`, `--renders`).

One process needs no lock (Store.claim always grants it); with Redis the lock is a key set only
if absent, naming the worker that holds it: a worker that dies while holding it (its beat gone for
6 s) blocks nobody, as the waiting workers let go of its lock; the expiry is a last resort.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from timekeeper.serve.games.store import Store
from timekeeper.serve.quiet import unexpected
from timekeeper.serve.refusal import Refused
from timekeeper.serve.sound.mixes import RenderJob

MIX_LOCK_S = 180.0  # the longest a mix may take to prepare before another worker tries
RENDER_LOCK_S = 900.0  # ... a soundtrack to encode
WAIT_STEP_S = 0.05
NOTE_EVERY_S = 0.5  # a render's progress is written for the other workers this often
NOTE_TTL_S = 3600
MADE_TTL_S = 7 * 24 * 3600  # how long made work is taken to be in the shared folders


@contextlib.asynccontextmanager
async def once(store: Store, name: str, ttl_s: float = MIX_LOCK_S) -> AsyncIterator[bool]:
    """Run the body as the one worker that makes `name` (True: it holds the lock; made work is
    marked for MADE_TTL_S), or, when another worker has made it or is making it, once that one has
    finished or its lock expired (False: the result is in the shared folders)."""
    if await store.read_note("made:" + name) is not None:
        yield False
        return
    token = await store.claim(name, ttl_s)
    if token is None:
        deadline = time.monotonic() + ttl_s
        while time.monotonic() < deadline and await store.held(name):
            await asyncio.sleep(WAIT_STEP_S)
        yield False
        return
    try:
        await store.tally(name.split(":", 1)[0] + "-made")
        yield True
        await store.note("made:" + name, {"by": "lock"}, MADE_TTL_S)
    finally:
        await store.release(name, token)


async def claim_render(store: Store, job_id: str) -> str | None:
    """The render lock of `job_id` (its token), or None when another (live) worker renders it; a
    render whose worker died is taken over here (Store.held lets go of a dead worker's lock)."""
    token = await store.claim("render:" + job_id, RENDER_LOCK_S)
    if token is None and not await store.held("render:" + job_id):
        token = await store.claim("render:" + job_id, RENDER_LOCK_S)
    return token


def _noted(job: RenderJob) -> dict:
    """What the other workers read of a render: its progress, or that it was left unfinished (and
    the game it renders, so the next worker asked renders it)."""
    if job.left:
        return {"id": job.id, "done": 0, "total": job.total, "finished": False, "error": None, "left": True,
                "game": job.game_id}
    return job.as_json()


async def note_left(store: Store, job: RenderJob) -> None:
    """Tell the other workers that `job` was left unfinished here (its lock is not held)."""
    await store.note("render:" + job.id, _noted(job), NOTE_TTL_S)


async def mirror_render(store: Store, job: RenderJob, future: asyncio.Future, token: str) -> None:
    """Write `job`'s progress where every worker reads it until it has finished (or was left by a
    worker that stops); then let go of its lock."""
    try:
        while not future.done():
            await _note_quietly(store, job)
            await asyncio.wait([future], timeout=NOTE_EVERY_S)
        await _note_quietly(store, job)
    finally:
        await store.release("render:" + job.id, token)


async def _note_quietly(store: Store, job: RenderJob) -> None:
    """Note `job`'s progress; the store unreachable (said on the terminal) is tried again at the next note."""
    try:
        await store.note("render:" + job.id, _noted(job), NOTE_TTL_S)
    except Refused:
        pass
    except Exception as error:  # a bug: named in one line, the render goes on
        unexpected("noting a render's progress", error)


async def render_seen(store: Store, job_id: str, job: RenderJob) -> RenderJob | None:
    """The progress of a render another worker runs, as it last wrote it (None: nobody does; `left`
    set: its worker stopped before it finished, and `game_id` names the game to render it from)."""
    fields = await store.read_note("render:" + job_id)
    if fields is None:
        return None
    job.done, job.total = int(fields.get("done", 0)), max(1, int(fields.get("total", 1)))
    job.finished, job.error = bool(fields.get("finished")), fields.get("error")
    job.left, job.game_id = bool(fields.get("left")), str(fields.get("game") or "")
    return job
