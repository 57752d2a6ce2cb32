"""A stop the user asks for (Ctrl-C, SIGTERM, SIGHUP), seen at once by every thread and every child
process, so a command stops within a moment however loaded the machine is, leaving nothing behind.

`handling()` (the command line's front door) handles the three signals for the length of a block
(a signal the process was started with ignored, as `nohup` ignores SIGHUP, stays ignored). At the
first one it

- notes the stop: `requested()` is the signal's number. Background threads ask it between items of
  work; an output asks it (`committing()`) before it replaces the old file, so a stop that Python
  could not raise where it landed (in a `__del__` or a callback, which print and drop an exception)
  still keeps the old output and still ends the command with the stop's exit code;
- kills every child process started with `started()`, `run_child()` or `forked()` (a speech
  engine, Piper): no thread waits for a child that would finish its work first;
- raises KeyboardInterrupt (Ctrl-C) or Terminated (SIGTERM, SIGHUP) in the main thread, whose
  unwinding runs every `finally` as before. A later signal raises again, until the front door has
  caught the stop (`settle()`), after which signals are only noted.

`leave(status)` then ends the process at once: stdout and stderr flushed and the exit handlers
run, the children ended, the temporary files and folders noted with `scratch_file()` and
`scratch_folder()` removed (no thread can make or commit one afterwards), without waiting for
background threads (a levelling worker finishing its clip) or freeing the heap (seconds on a
loaded machine).

Python runs signal handlers in the main thread only, so every thread timekeeper starts blocks the
three signals first (`signals_to_main_thread()`): the system then gives them to the main thread,
whose wait (for a worker, a child, a pipe) they interrupt. Everything else here may be called
from any thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from timekeeper.environment import current
from timekeeper.errors import ExitStatus, Terminated
from timekeeper.files.heldsignals import HELD, held_signals

_lock = threading.RLock()  # the children, the scratch paths and `_closed` (re-entrant: the handler may run inside)
_stop = threading.Event()
_signal: int | None = None  # the first stop signal
_settled = False  # the front door caught the stop: later signals are only noted
_closed = False  # leave() is sweeping: no scratch path is made and no output committed any more
_children: set[int] = set()
_scratch: dict[Path, None] = {}  # in the order they were made
_depth = 0  # nested handling() blocks (run() and then main())
_owner = 0  # the process whose handling() block this is


def requested() -> int | None:
    """The signal that asked this process to stop, or None."""
    return _signal if _stop.is_set() else None


def stop_error(signum: int) -> KeyboardInterrupt:
    """The exception the stop by `signum` raises: KeyboardInterrupt for Ctrl-C, else Terminated."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


INTERRUPT = signal.SIGINT  # Ctrl-C


def status_of(signum: int) -> ExitStatus:
    """The exit status of a command stopped by `signum`: 130 for Ctrl-C, 129 for SIGHUP, 143 for
    SIGTERM (128 + the signal's number, as a shell reports a process the signal ended)."""
    if signum == signal.SIGINT:
        return ExitStatus.INTERRUPTED
    return ExitStatus.HUNG_UP if signum == getattr(signal, "SIGHUP", None) else ExitStatus.TERMINATED


def check() -> None:
    """Raise the stop's exception if a stop was asked for."""
    signum = requested()
    if signum is not None:
        raise stop_error(signum)


def settle() -> None:
    """The front door has caught the stop: a later signal is only noted, so a second Ctrl-C cannot
    cut the last lines (the message, the clean-up) in two."""
    global _settled
    _settled = True


def signals_to_main_thread() -> None:
    """Block the stop signals in this thread (call it first in every thread timekeeper starts), so
    the system gives them to the main thread. Linux hands a process's signal to any thread that does
    not block it; given to a worker, Python notes it there, but the main thread, asleep in a lock
    or a read that waits for that worker, would sleep on until the wait ends (seconds on a loaded
    machine) before it runs the handler."""
    if threading.current_thread() is not threading.main_thread() and hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    if os.getpid() != _owner:  # a child forked with these handlers: the children noted are not its own
        raise stop_error(signum)
    note(signum)
    if not _settled:
        raise stop_error(signum)


def note(signum: int) -> None:
    """A stop by `signum` that its receiver handles itself (serve's event loop stops cleanly, then
    raises it): noted as a stop signal is (`requested()`, which background work asks, and the
    children noted are ended), without raising anything here."""
    global _signal
    with _lock:
        if not _stop.is_set():
            _signal = signum
            _stop.set()
        _kill(list(_children))


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """Handle Ctrl-C, SIGTERM and SIGHUP as a stop (see the module's docstring) inside the block,
    then put the handlers back and forget the stop (a caller in the same process, a test, starts
    afresh). Only the main thread can handle signals: elsewhere, and inside another handling()
    block, this does nothing."""
    global _depth, _owner
    if threading.current_thread() is not threading.main_thread() or _depth:
        yield
        return
    _forget()
    _owner = os.getpid()
    saved = {}
    for signum in HELD:
        if signal.getsignal(signum) not in (signal.SIG_IGN, None):  # ignored on purpose (nohup), or set outside Python
            saved[signum] = signal.signal(signum, _on_signal)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        _forget()


def _forget() -> None:
    global _signal, _settled, _closed
    with _lock:
        _stop.clear()
        _signal, _settled, _closed = None, False, False
        _children.clear()
        _scratch.clear()


# -- children --------------------------------------------------------------------------------------

_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)  # (Windows has no SIGKILL)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):  # (it ended meanwhile; it stays a zombie until reaped, so the pid is its own)
            os.kill(pid, _KILL)


def _until_ended(pid: int) -> None:
    """Wait until child `pid` has ended, without reaping it (where the system can: not on Windows)."""
    if hasattr(os, "waitid"):
        with contextlib.suppress(ChildProcessError):  # reaped already by its own code
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


@contextlib.contextmanager
def started(command: list[str], **options: Any) -> Iterator[subprocess.Popen[Any]]:
    """subprocess.Popen(command, **options) as a child process for the block, noted meanwhile: a
    stop kills it, as does leaving the block by an exception; the block's end waits for it and
    reaps it (its returncode is set). Raises the stop's exception instead once a stop is asked for."""
    process: subprocess.Popen[Any] | None = None
    failed = True
    try:
        with held_signals(), _lock:  # noted before any signal can land
            check()
            process = subprocess.Popen(command, **options)
            _children.add(process.pid)
        yield process
        failed = False
    finally:
        if process is not None:
            if failed:
                _kill([process.pid])
            _ended(process.pid)
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            process.wait()


def run_child(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """subprocess.run(command) capturing its text output, as a child process a stop kills."""
    with started(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                 env=env) as process:
        out, err = process.communicate()
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def forked() -> int:
    """os.fork(): 0 in the child; in this process the child's pid, noted until waited(pid) (a stop
    kills it). Raises the stop's exception instead once a stop is asked for."""
    pid = 0
    try:
        with held_signals(), _lock:
            check()
            pid = os.fork()
            if pid:
                _children.add(pid)
    except BaseException:  # a signal held meanwhile, delivered here: the child is ended and reaped
        if pid:
            with contextlib.suppress(BaseException):
                _kill([pid])
                waited(pid)
        raise
    return pid


def waited(pid: int) -> int:
    """Wait for the child `pid` of forked() (a stop kills it), reap it, and return its exit code
    (negative: ended by that signal)."""
    try:
        _ended(pid)
    except BaseException:
        _kill([pid])
        raise
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _ended(pid: int) -> None:
    """Wait until child `pid` has ended (not reaped: its pid stays its own), then forget it."""
    _until_ended(pid)
    with _lock:
        _children.discard(pid)


# -- temporary files and folders -------------------------------------------------------------------

def scratch_file(folder: Path | str | None = None, prefix: str | None = None, suffix: str | None = None) -> Path:
    """A new empty temporary file (tempfile.mkstemp's arguments; None: Python's temporary folder),
    noted until `forget(path)`: if the process leaves after a stop first, leave() removes it.
    Raises the stop's exception instead once a stop is asked for."""
    path: Path | None = None
    try:
        with held_signals(), _lock:
            check()
            handle, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=suffix)
            os.close(handle)
            path = Path(name)
            _scratch[path] = None
    except BaseException:  # (a signal held meanwhile, delivered here: the file is not handed out)
        if path is not None:
            _remove(path)
        raise
    return path


@contextlib.contextmanager
def scratch_folder(folder: Path | str | None = None, prefix: str | None = None) -> Iterator[Path]:
    """A new temporary folder for the block (in `folder`, else Python's temporary folder), removed
    with what it holds when the block ends, or by leave() if the process leaves after a stop first."""
    path: Path | None = None
    try:
        with held_signals(), _lock:
            check()
            path = Path(tempfile.mkdtemp(dir=folder, prefix=prefix))
            _scratch[path] = None
        yield path
    finally:
        if path is not None:
            _remove(path)


def _remove(path: Path) -> None:
    """Remove the scratch file or folder `path` and forget it."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
    forget(path)


def forget(path: Path) -> None:
    """`path` (from scratch_file or scratch_folder) was removed or became an output: leave() need
    not remove it."""
    with _lock:
        _scratch.pop(path, None)


@contextlib.contextmanager
def committing() -> Iterator[None]:
    """The block makes an output final (os.replace of its temporary file): run only if no stop was
    asked for (else the stop's exception), and not cut by a signal half-way."""
    with held_signals(), _lock:
        if _closed:
            raise stop_error(requested() or signal.SIGTERM)
        check()
        yield


# -- leaving ---------------------------------------------------------------------------------------

def leave(status: int) -> NoReturn:
    """End the process with `status` at once after a stop (see the module's docstring)."""
    global _closed
    streams = current().streams
    for stream in (streams.stdout, streams.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()  # what the program asked to run at exit (logging's flush, finalizers)
    with _lock:  # held to the end: no thread makes a scratch file or commits an output any more
        _closed = True
        children = list(_children)
        _kill(children)
        for pid in children:  # ended before their files are removed: none writes one afterwards
            _until_ended(pid)
        for path in reversed(list(_scratch)):
            _remove(path)
        os._exit(status)
