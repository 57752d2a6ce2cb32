"""The page's sound files encoded in a child process of the server's own, at a lower CPU priority.

Encoding a 10-minute mission is seconds of CPU, much of it holding Python's global lock: on the
serving process's threads it delays every answer and WebSocket message while a crew's sound is
made. A ChildSoundCache serves and reads the files as SoundCache does (serve/sound/cache.py), but
hands their making to one child process (started with "spawn" when the first file is asked for,
and kept), which prepares the mix again from its recipe (the track and settings; the phrases come
from the clip cache) and encodes it with a SoundCache of its own, under the same file and Redis
locks, at nice +5. The child tells when each file is over and why it failed, if it did. A child
that dies (killed, out of memory) is started again when a file is next asked for; a file whose
making killed it twice fails with one readable message. The child ends with the server: it is
stopped at shutdown, and stops by itself when its orders' pipe closes because the server died.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections import OrderedDict
from multiprocessing.connection import Connection
from pathlib import Path

from timekeeper.environment import Environment, current, process_wide
from timekeeper.model import Scenario
from timekeeper.serve.sound import children
from timekeeper.serve.sound.cache import MAX_ENCODES, SoundCache, SoundFile, remove_abandoned
from timekeeper.serve.sound.maker_lock import SoundLocks
from timekeeper.soundtrack.mix import MixSettings, PreparedMix

# How much lower than the server's the encoder's CPU priority is (Unix niceness): below the event
# loop's, yet not starved: with both cores busy its first bytes came after about 1 s at +10 (a
# player waits for them), 0.33 s at +5, 0.2 s at 0.
ENCODER_NICE = 5
MAX_DEATHS = 2  # a file whose making stopped the child this often fails instead of starting it again
KEPT_MIXES = 4  # mixes the child keeps prepared (the files most recently asked for)
STOP_WAIT_S = 2.0  # at shutdown, the child finishes its current step within this, else it is killed


class ChildSoundCache(SoundCache):
    """A SoundCache whose files are made by a child process (see the module's notes)."""

    def __init__(self, folder: Path, limit_bytes: int, locks: SoundLocks | None = None) -> None:
        super().__init__(folder, limit_bytes, locks)
        self._child: multiprocessing.process.BaseProcess | None = None
        self._listener: threading.Thread | None = None  # the thread reading the current child's reports
        # One thread at a time collects a child's exit status: when two call waitpid at once, the
        # one that finds it collected already takes the child for alive (and would kill its pid).
        self._reaping = threading.Lock()
        self._orders: Connection | None = None
        self._send_guard = threading.Lock()
        self._deaths: dict[str, int] = {}
        self._maker: dict[str, multiprocessing.process.BaseProcess] = {}  # key being made -> by which child

    def warm_up(self) -> None:
        """Start the child now (the server starts): a second of imports not paid by the first file."""
        with self._guard:
            if self._child is None and not self._stopping.is_set():
                self._start_child()

    def _ensure(self, sound: SoundFile, mix: PreparedMix) -> None:
        scenario = mix.timeline.scenario
        with self._wake:
            if scenario is None:  # (a mix is always prepared from a scenario; named if not)
                self._failed[sound.key] = "internal error: the mix does not name its scenario"
                return
            if not self._claim(sound):
                return
            if self._child is None or not self._alive(self._child):
                self._start_child()
            assert self._child is not None and self._orders is not None
            orders, self._maker[sound.key] = self._orders, self._child
        try:
            with self._send_guard:
                orders.send(("make", sound, scenario, mix.settings, mix.voice_name))
        except (OSError, ValueError):  # the child just died: its reader forgets the job, the next ask starts one
            pass

    def _start_child(self) -> None:
        """Start the encoder (the guard held) and the thread that reads what it tells."""
        context = multiprocessing.get_context("spawn")
        orders, ordering = context.Pipe(duplex=False)  # (one way each: closing the orders' end ends the child
        reports, reporting = context.Pipe(duplex=False)  # while a thread here still waits for its reports)
        locks = (self.locks.url, self.locks.ttl_s) if self.locks is not None else None
        child = context.Process(target=_child_main, args=(orders, reporting, str(self.folder), self.limit_bytes, locks, current()),
                                name="timekeeper-sound-encoder", daemon=True)
        children.start(child)
        orders.close()  # the child holds these ends: EOF on the reports once it has ended
        reporting.close()
        self._child, self._orders = child, ordering
        self._listener = threading.Thread(target=self._listen, args=(child, reports), name="timekeeper-sound-listener",
                                          daemon=True)
        self._listener.start()

    def _alive(self, child: multiprocessing.process.BaseProcess) -> bool:
        with self._reaping:
            return child.is_alive()

    def _reap(self, child: multiprocessing.process.BaseProcess, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for `child` to end and collect its exit status; True while it lives."""
        ended = multiprocessing.connection.wait([child.sentinel], timeout_s)  # (waiting collects nothing)
        with self._reaping:
            if ended:
                child.join()  # its pipes are closed: it is gone, or going, in a moment
            return child.is_alive()

    def _listen(self, child: multiprocessing.process.BaseProcess, reports: Connection) -> None:
        """Note each file the child is over with, until it ends; then forget (or fail) its jobs."""
        while True:
            try:
                kind, key, failed = reports.recv()
            except (EOFError, OSError):
                break
            if kind == "over":
                with self._guard:
                    if self._maker.get(key) is child:
                        self._running.discard(key)
                        del self._maker[key]
                    self._deaths.pop(key, None)
                    if failed is not None:
                        self._failed[key] = failed
        reports.close()
        self._reap(child, STOP_WAIT_S)
        with self._guard:
            if self._child is child:
                self._child = None
            if self._stopping.is_set():
                return
            for key in [key for key, maker in self._maker.items() if maker is child]:
                del self._maker[key]  # asked again, it starts again in a new child, unless it died twice
                self._running.discard(key)
                self._deaths[key] = self._deaths.get(key, 0) + 1
                if self._deaths[key] >= MAX_DEATHS:
                    self._failed[key] = f"its encoder process stopped (exit code {child.exitcode})"
            if len(self._deaths) > MAX_ENCODES * 4:
                self._deaths.clear()

    def shutdown(self) -> None:
        """Stop the child after its current step: it removes the files it left unfinished (each is
        made again when asked); one killed leaves them, removed here if no other process makes them."""
        with self._wake:
            self._stopping.set()
            child, orders, listener = self._child, self._orders, self._listener
            making = [key for key, maker in self._maker.items() if maker is child]
        if orders is not None:
            with contextlib.suppress(OSError):
                orders.close()  # the child's loop ends: it stops its threads and exits
        if child is not None and self._reap(child, STOP_WAIT_S):
            child.kill()
            self._reap(child, STOP_WAIT_S)
            for key in making:
                remove_abandoned(self.folder / f"{key}.mp3.part")
        if listener is not None:
            listener.join(STOP_WAIT_S)  # it has read the child's last report: nothing touches the child after this


class _ReportingCache(SoundCache):
    """The child's cache: tells the server when each file is over."""

    def __init__(self, folder: Path, limit_bytes: int, locks: SoundLocks | None, tell) -> None:
        super().__init__(folder, limit_bytes, locks)
        self._tell = tell

    def _over(self, key: str, failed: str | None) -> None:
        self._tell(key, failed)


def _child_main(orders: Connection, reports: Connection, folder: str, limit_bytes: int,
                locks: tuple[str, float] | None, environment: Environment) -> None:
    """The encoder: make each file asked for until its orders' pipe closes (or SIGTERM, SIGHUP);
    then the files it left unfinished are removed. Ctrl-C on the server's terminal is the server's
    to handle, not the child's (serve/sound/children.py)."""
    children.as_child(ENCODER_NICE)
    children.run_quietly(lambda: _encode(orders, reports, folder, limit_bytes, locks, environment))


def _encode(orders: Connection, reports: Connection, folder: str, limit_bytes: int,
            locks: tuple[str, float] | None, environment: Environment) -> None:
    told = threading.Lock()

    def tell(key: str, failed: str | None) -> None:
        with told, contextlib.suppress(OSError, ValueError):  # the server went away: nobody is waiting
            reports.send(("over", key, failed))

    with process_wide(environment):  # (the mix levels clips on threads of its own)
        cache = _ReportingCache(Path(folder), limit_bytes, SoundLocks(*locks) if locks else None, tell)
        prepared: OrderedDict[str, PreparedMix] = OrderedDict()  # sound key -> its mix, the last few
        try:
            while True:
                try:
                    _kind, sound, scenario, settings, voice_name = orders.recv()
                except (EOFError, OSError):
                    break
                failed = _make(cache, prepared, sound, scenario, settings, voice_name)
                if failed is not None or not cache.making(sound.key):
                    tell(sound.key, failed)
        finally:
            cache.shutdown()


def _make(cache: SoundCache, prepared: OrderedDict[str, PreparedMix], sound: SoundFile, scenario: Scenario,
          settings: MixSettings, voice_name: str) -> str | None:
    """Start making `sound` from its mix (prepared unless among the last few: a file another
    process makes is asked for again every second while players wait); why not, if it cannot be."""
    from timekeeper.errors import TimekeeperError
    from timekeeper.soundtrack.mix import prepare_mix

    if sound.path.is_file():
        return None
    mix = prepared.get(sound.key)
    if mix is None:
        try:
            mix = prepare_mix(scenario, settings, background=True)
        except TimekeeperError as problem:
            return problem.detail
        except Exception as problem:  # a bug: one line for the page, never a traceback on the server's terminal
            return f"internal error: the sound's mix could not be prepared ({type(problem).__name__})"
        if mix.voice_name != voice_name:
            return f"the encoder's voice is {mix.voice_name}, not the server's {voice_name}"
        prepared[sound.key] = mix
        while len(prepared) > KEPT_MIXES:
            prepared.popitem(last=False)
    prepared.move_to_end(sound.key)
    cache._ensure(sound, mix)
    return None
