"""The server's slow work, kept away from the threads that answer the page: soundtrack encodes
(mp3, ogg), mix preparation (synthesizing the phrases of a game) and other slow answers
(generating missions, card and log PDFs) each run on their own few threads, behind a bounded queue. A request that finds the queue full is refused at once (503,
`queue_full`, with Retry-After) instead of stalling everyone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from timekeeper.serve.refusal import Refused

RENDER_THREADS = 1  # soundtrack encodes at once
RENDERS_WAITING = 6  # encodes waiting behind them
MIX_THREADS = 2  # mixes prepared at once
MIXES_WAITING = 8  # mixes waiting behind them
SLOW_THREADS = 2  # other slow answers at once: generating missions, card and log PDFs
SLOW_WAITING = 8
RETRY_AFTER_S = 20
CLIENT_OWNER = "client:"  # an owner that is a client address (serve/server.py's `owners`)

T = TypeVar("T")


class WorkQueue:
    """`threads` threads of their own, at most `waiting` jobs queued behind them; jobs by key, in
    the order they came. With `per_owner` (hosted mode), each of a job's owners (its crew, its
    client address: serve/server.py's `owners`) may have at most that many unfinished jobs, so
    neither one crew nor one address with many crews can fill the queue: more is refused with 429."""

    def __init__(self, name: str, threads: int, waiting: int, per_owner: int | None = None) -> None:
        self.name, self.threads, self.waiting, self.per_owner = name, threads, waiting, per_owner
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix=f"timekeeper-{name}")
        self.keys: list[str] = []  # unfinished jobs, oldest first
        self.owners: dict[str, list[str]] = {}  # owner -> its unfinished jobs' keys

    def position(self, key: str) -> int:
        """0 while the job runs (or has finished), else how many jobs are ahead of it."""
        if key not in self.keys:
            return 0
        return max(0, self.keys.index(key) - self.threads + 1)

    def _admit(self, key: str, owners: tuple[str, ...]) -> None:
        if len(self.keys) >= self.threads + self.waiting:
            raise Refused(f"the server is busy ({len(self.keys)} {self.name} jobs queued); try again in "
                          f"{RETRY_AFTER_S} s", status=503, code="queue_full", retry_after_s=RETRY_AFTER_S)
        if self.per_owner is not None:
            for owner in owners:
                mine = self.owners.get(owner, [])
                if len(mine) >= self.per_owner:
                    whose = "this address" if owner.startswith(CLIENT_OWNER) else "your crew"
                    raise Refused(f"{whose} already has {len(mine)} {self.name} jobs queued; try again when one is "
                                  f"done (in about {RETRY_AFTER_S} s)", status=429, code="rate_limited",
                                  retry_after_s=RETRY_AFTER_S)
            for owner in owners:
                self.owners.setdefault(owner, []).append(key)
        self.keys.append(key)

    def start(self, key: str, work: Callable[[], object], owners: tuple[str, ...] = ()) -> asyncio.Future:
        """Queue `work` for `owners` (Refused when the queue, or an owner's share of it, is full); its future."""
        self._admit(key, owners)
        future = asyncio.get_running_loop().run_in_executor(self.executor, work)
        future.add_done_callback(lambda _f: self._done(key, owners))
        return future

    async def run(self, key: str, work: Callable[[], T], owners: tuple[str, ...] = ()) -> T:
        """Queue `work` and wait for its result."""
        return await self.start(key, work, owners)

    def _done(self, key: str, owners: tuple[str, ...] = ()) -> None:
        if key in self.keys:
            self.keys.remove(key)
        for owner in owners:
            mine = self.owners.get(owner)
            if mine is not None:
                if key in mine:
                    mine.remove(key)
                if not mine:
                    del self.owners[owner]

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
