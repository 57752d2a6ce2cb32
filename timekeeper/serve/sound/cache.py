"""The page's sound files: each mix encoded once (serve/sound/mp3stream.py) into a folder shared by
every game, room and worker that asks for the same mix, and served by byte range while it is
still being written.

A file is named by its sound key (the mix key: track and settings; the voice that speaks; the
program's version and the stream format). It is written as KEY.mp3.part, in order, by the one
process that holds an exclusive lock on it (flock: a worker that dies leaves it unlocked, and the
next one that asks starts it again), then renamed to KEY.mp3 when complete: a reader sees the
bytes written so far, and a complete file is never half-written. With `--redis` (workers on
several machines, the folder shared over a network file system where flock may not exclude) the
maker also holds a lock in Redis (serve/sound/maker_lock.py), renewed while it writes and expiring when
it dies. The same key makes the same bytes whoever encodes it, so the prefix a dead maker left is read as it is and written again from
the start by the next one. Files are kept across restarts; when they hold more than the folder's
limit, the least recently served are deleted. Two threads make every file under way, taking turns
a second of sound at a time, so a new file's first bytes never wait behind another's whole
encoding.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Generator
from dataclasses import dataclass
from pathlib import Path

from timekeeper import __version__
from timekeeper.errors import RenderError
from timekeeper.serve.sound import mp3stream
from timekeeper.serve.sound.maker_lock import LockUnavailable, MakerLock, SoundLocks
from timekeeper.soundtrack.mix import PreparedMix

ENCODE_THREADS = 2  # threads that encode sound files (2.6 s of CPU per 10-minute mission), taking turns
MAX_ENCODES = 16  # sound files being made at once by one server; beyond that one starts when a player asks again
READ_BYTES = 64 * 1024  # read and sent at a time
POLL_S = 0.01  # a reader waiting for bytes looks again after this, then twice as long each time ...
MAX_POLL_S = 0.08  # ... up to this
FIRST_WRITE = 4 * 1024  # the encoder writes this much at first (0.7 s of sound: play can start) ...
MAX_WRITE = 256 * 1024  # ... then twice as much each time, up to this: few writes, few thread switches
RETRY_S = 1.0  # a reader that has waited this long makes sure the file is being made
STALL_S = 30.0  # a reader that has waited this long for one byte gives up
TOUCH_EVERY_S = 60.0  # a served file's time of last use is noted at most this often
MAX_TOUCHED = 10_000  # keys whose last note is remembered (then forgotten all at once)
STALE_PART_S = 600.0  # an unlocked .part file untouched this long is deleted by the eviction
STOP_STEP_S = 2.0  # at shutdown, a worker finishes its step (a second of sound) within this
DEFAULT_LIMIT_MB = 500  # about 130 ten-minute missions


class SoundUnavailable(Exception):
    """The sound file cannot be made or read (the message says why)."""


@dataclass(frozen=True)
class SoundFile:
    """One mix's sound file: where it is (or will be), its key and its size once complete."""

    key: str
    path: Path
    size: int

    @property
    def part(self) -> Path:
        return self.path.with_name(self.path.name + ".part")

    @property
    def tail_at(self) -> int:
        """Where the fixed ID3v1 tag starts: bytes from there are known before they are written."""
        return self.size - len(mp3stream.TRAILER)


def sound_key(mix_key: str, mix: PreparedMix) -> str:
    """The key of a mix's sound file: the same for every game with the same track, settings and
    voice on the same version of timekeeper."""
    text = "\n".join((mp3stream.FORMAT, __version__, mix_key, mix.voice_name))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class SoundCache:
    """The sound files in `folder` (at most `limit_bytes` of complete files kept); `locks`: the
    makers' locks in Redis (several machines), else flock alone decides who makes a file."""

    def __init__(self, folder: Path, limit_bytes: int = DEFAULT_LIMIT_MB * 1_000_000,
                 locks: SoundLocks | None = None) -> None:
        self.folder = folder
        self.limit_bytes = limit_bytes
        self.locks = locks
        self._jobs: deque[tuple[SoundFile, Generator[None, None, bool]]] = deque()  # being made, in turn
        self._running: set[str] = set()
        self._failed: dict[str, str] = {}
        self._touched: dict[str, float] = {}
        self._guard = threading.Lock()
        self._wake = threading.Condition(self._guard)
        self._workers: list[threading.Thread] = []
        self._stopping = threading.Event()

    def file(self, mix_key: str, mix: PreparedMix) -> SoundFile:
        key = sound_key(mix_key, mix)
        return SoundFile(key, self.folder / f"{key}.mp3", mp3stream.stream_size(mix.n_samples))

    def start(self, mix_key: str, mix: PreparedMix) -> SoundFile:
        """The mix's sound file, its encoding started in the background unless it is complete or
        being made (here or by another process)."""
        sound = self.file(mix_key, mix)
        self._ensure(sound, mix)
        return sound

    def warm_up(self) -> None:
        """Get ready to make files at once (threads start when needed: nothing to do)."""

    def making(self, key: str) -> bool:
        """Whether the sound file of `key` is being made by this cache now."""
        with self._guard:
            return key in self._running

    def _claim(self, sound: SoundFile) -> bool:
        """(The guard held.) Note `sound` as being made unless it is complete, being made, too many
        are, or the cache is stopping; True if it is this caller's to start."""
        if sound.path.is_file() or sound.key in self._running or len(self._running) >= MAX_ENCODES or self._stopping.is_set():
            return False
        self._running.add(sound.key)
        self._failed.pop(sound.key, None)
        return True

    def _ensure(self, sound: SoundFile, mix: PreparedMix) -> None:
        """Start making `sound` on this cache's threads unless it is complete, being made, or too many are."""
        with self._wake:
            if not self._claim(sound):
                return
            self._jobs.append((sound, self._writing(sound, mix)))
            while len(self._workers) < ENCODE_THREADS:
                worker = threading.Thread(target=self._work, name="timekeeper-sound", daemon=True)
                worker.start()
                self._workers.append(worker)
            self._wake.notify()

    def _work(self) -> None:
        """A worker: one step (a second of sound) of the oldest job at a time, then the job goes
        to the back of the line, so every sound being made moves on and a new one's first bytes
        come at once, however many others are being made."""
        while True:
            with self._wake:
                while not self._jobs and not self._stopping.is_set():
                    self._wake.wait()
                if self._stopping.is_set():
                    return
                sound, steps = self._jobs.popleft()
            finished = self._step(sound, steps)
            with self._wake:
                if not finished:
                    self._jobs.append((sound, steps))
                    self._wake.notify()
                    continue
                self._running.discard(sound.key)
                failed = self._failed.get(sound.key)
            self._over(sound.key, failed)

    def _over(self, key: str, failed: str | None) -> None:
        """A job ended: made, left to another process, or failed (`failed` says why)."""

    def _step(self, sound: SoundFile, steps: Generator[None, None, bool]) -> bool:
        """One step of a job; True when it is over (made, left to another process, or failed)."""
        failed = None
        try:
            next(steps)
            return False
        except StopIteration as done:
            if done.value:
                self.evict()
            return True
        except OSError as error:
            from timekeeper.serve.quiet import say

            say(f"cannot write the sound file in {self.folder}: {error.strerror or type(error).__name__}", kind="sound-unwritable")
            failed = f"its file cannot be written ({error.strerror or type(error).__name__})"
        except RenderError as error:
            failed = error.detail
        except LockUnavailable as error:
            failed = str(error)
        except Exception as error:  # a bug: named on the terminal in one line, the job ends
            from timekeeper.serve.quiet import say

            say(f"the sound file {sound.key} could not be made ({type(error).__name__}: {error})")
            failed = "internal error; the server's terminal names it"
        with self._guard:
            self._failed[sound.key] = failed
        return True

    def _write(self, sound: SoundFile, mix: PreparedMix) -> bool:
        """Encode `sound` here and now (see `_writing`); True when written."""
        steps = self._writing(sound, mix)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return bool(done.value)

    def _writing(self, sound: SoundFile, mix: PreparedMix) -> Generator[None, None, bool]:
        """Encode `sound` unless it exists or another process holds its lock, a step (a second of
        sound) at each next(); returns True when written."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if sound.path.is_file():
            return False
        maker = None
        if self.locks is not None:
            maker = self.locks.take(sound.key)
            if maker is None:
                return False  # another worker, perhaps on another machine, is making it
        try:
            return (yield from self._locked_writing(sound, mix, maker))
        finally:
            if maker is not None:
                maker.release()

    def _locked_writing(self, sound: SoundFile, mix: PreparedMix, maker: MakerLock | None) -> Generator[None, None, bool]:
        """(See _writing.) With the .part file's flock taken, the file written while `maker` (the
        Redis lock, if any) is held; False as soon as it lapses."""
        fd = os.open(sound.part, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # another worker is making it
            try:
                if os.stat(sound.part).st_ino != os.fstat(fd).st_ino:
                    return False  # made (and renamed) while this one opened it
            except FileNotFoundError:
                return False
            if sound.path.is_file():  # made just before this one created an empty .part: remove that
                sound.part.unlink()
                return False
            os.ftruncate(fd, 0)
            try:
                return (yield from self._encoding(sound, mix, maker, fd))
            except BaseException:  # failed, or stopped (the server stops): what it wrote goes
                _remove_own(sound.part, fd)
                raise
        finally:
            os.close(fd)

    def _encoding(self, sound: SoundFile, mix: PreparedMix, maker: MakerLock | None, fd: int) -> Generator[None, None, bool]:
        """(See _locked_writing.) Encode into the locked .part file `fd`, renamed when complete."""
        pending, batch = bytearray(), FIRST_WRITE
        for piece in mp3stream.encoded(mix.pcm(ceiling_dbfs=mp3stream.CEILING_DBFS), mix.n_samples):
            pending += piece
            if len(pending) >= batch:
                if maker is not None and not maker.keep():
                    return False  # stalled beyond the lock's expiry: another maker has it now
                _write_all(fd, pending)
                pending, batch = bytearray(), min(batch * 2, MAX_WRITE)
            yield
        if maker is not None and not maker.keep():
            return False
        _write_all(fd, pending)
        if os.fstat(fd).st_size != sound.size:
            raise RenderError(f"the sound file has {os.fstat(fd).st_size} bytes, not {sound.size}")
        os.fsync(fd)
        os.replace(sound.part, sound.path)
        return True

    def failure(self, key: str) -> str | None:
        """Why this server could not make the sound file of `key` (None if it did not fail)."""
        with self._guard:
            return self._failed.get(key)

    def touch(self, sound: SoundFile) -> None:
        """Note that `sound` was served now (the least recently served are evicted first)."""
        now = time.time()
        if now - self._touched.get(sound.key, 0.0) < TOUCH_EVERY_S:
            return
        if len(self._touched) > MAX_TOUCHED:
            self._touched.clear()
        self._touched[sound.key] = now
        with contextlib.suppress(OSError):
            os.utime(sound.path, (now, now))

    def evict(self) -> list[Path]:
        """Delete the least recently served complete files beyond the limit, and .part files no
        process is writing that were left long ago; the deleted paths."""
        deleted: list[Path] = []
        try:
            entries = [(entry.stat().st_mtime, entry.stat().st_size, Path(entry.path)) for entry in os.scandir(self.folder)
                       if entry.is_file()]
        except OSError:
            return deleted
        complete = sorted((e for e in entries if e[2].suffix == ".mp3"), reverse=True)
        kept = 0
        for _mtime, size, path in complete:  # the most recently served first
            kept += size
            if kept > self.limit_bytes:
                with contextlib.suppress(OSError):
                    path.unlink()
                    deleted.append(path)
        for mtime, _size, path in entries:
            if (path.name.endswith(".mp3.part") and time.time() - mtime > STALE_PART_S
                    and not self._made_elsewhere(path.name.removesuffix(".mp3.part")) and remove_abandoned(path)):
                deleted.append(path)
        return deleted

    def _made_elsewhere(self, key: str) -> bool:
        """Whether a maker holds the Redis lock of `key` (flock may not see one on another machine)."""
        if self.locks is None:
            return False
        try:
            return self.locks.held(key)
        except LockUnavailable:
            return True  # not known: left alone

    async def read(self, sound: SoundFile, mix: PreparedMix, first: int, last: int) -> AsyncGenerator[bytes, None]:
        """Bytes `first`..`last` (inclusive) of `sound`, each as soon as it is written (its making
        started again if no process is making it). SoundUnavailable when it cannot be made, or
        nothing new was written for STALL_S."""
        self.touch(sound)
        handle: int | None = None
        position, waited, pause, checked = first, 0.0, POLL_S, -RETRY_S
        try:
            while position <= last:
                if position >= sound.tail_at:
                    yield mp3stream.TRAILER[position - sound.tail_at : last + 1 - sound.tail_at]
                    return
                if handle is None:
                    handle = _open_either(sound)
                if handle is not None:
                    end = min(last + 1, sound.tail_at, position + READ_BYTES, os.fstat(handle).st_size)
                    if end > position:
                        data = os.pread(handle, end - position, position)
                        position += len(data)
                        waited, pause, checked = 0.0, POLL_S, -RETRY_S
                        yield data
                        continue
                failed = self.failure(sound.key)
                if failed is not None:
                    raise SoundUnavailable(failed)
                if waited >= STALL_S:
                    raise SoundUnavailable(f"no new bytes of the sound for {STALL_S:.0f} s")
                if waited - checked >= RETRY_S:
                    self._ensure(sound, mix)  # not complete and nobody here is making it: start it
                    if handle is not None and checked >= 0.0:  # the file may have been made anew meanwhile
                        os.close(handle)
                        handle = None
                    checked = waited
                await asyncio.sleep(pause)
                waited += pause
                pause = min(pause * 2, MAX_POLL_S)  # fewer wake-ups while the encoder works
        finally:
            if handle is not None:
                os.close(handle)

    def shutdown(self) -> None:
        """Stop the workers after their current step; the files they left unfinished are removed
        (each is made again when asked)."""
        with self._wake:
            self._stopping.set()
            self._wake.notify_all()
            workers = list(self._workers)
        for worker in workers:
            if worker is not threading.current_thread():
                worker.join(STOP_STEP_S)
        with self._wake:
            unfinished = list(self._jobs)
            self._jobs.clear()
        for _sound, steps in unfinished:
            with contextlib.suppress(Exception):
                steps.close()  # (its .part removed: _locked_writing)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _open_either(sound: SoundFile) -> int | None:
    """A read handle on the complete file, else on the one being written; None if neither is there."""
    for path in (sound.path, sound.part):
        with contextlib.suppress(OSError):  # not there (yet), or the folder is not one
            return os.open(path, os.O_RDONLY)
    return None


def _remove_own(path: Path, fd: int) -> None:
    """Remove the .part file at `path` this maker holds open (and locked) as `fd`, if it is still that file."""
    with contextlib.suppress(OSError):
        if os.stat(path).st_ino == os.fstat(fd).st_ino:
            path.unlink()


def remove_abandoned(path: Path) -> bool:
    """Delete a .part file no process is writing (its lock held meanwhile); True if deleted."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino != os.fstat(fd).st_ino:
            return False
        path.unlink()
        return True
    except OSError:  # locked by its maker (BlockingIOError), or gone
        return False
    finally:
        os.close(fd)
