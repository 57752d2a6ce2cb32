"""How the server's child processes (the sound files' encoder, serve/sound/encoder_child.py; the
soundtrack renders, serve/sound/render_child.py) live and end with it, quietly:

- A child is started with Ctrl-C, SIGTERM and SIGHUP blocked, so one that arrives while it is still
  starting (importing) waits until the child has said what it does with each: Ctrl-C on the
  server's terminal is the server's (the child ignores it and ends when the server tells it to),
  SIGTERM and SIGHUP end it cleanly (its temporary files removed, no traceback on the terminal).
- On Linux a child is sent SIGTERM when the server ends, however it ends (killed included): no
  child runs on after its server.
- The server stops its children with SIGTERM first (each removes its own temporary files), and
  kills the ones still running after STOP_GRACE_S.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator

from timekeeper.errors import Terminated

STOP_GRACE_S = 1.0  # a child told to stop (SIGTERM) has this long to clean up, then it is killed
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # end a child cleanly
HELD = {signal.SIGINT, *ENDING_SIGNALS}
PR_SET_PDEATHSIG = 1  # prctl(2)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Block Ctrl-C, SIGTERM and SIGHUP in this thread while the block runs (a child started meanwhile
    is born with them blocked; this thread gets those that arrived once the block ends)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start(child: multiprocessing.process.BaseProcess) -> None:
    """Start `child` with the server's stopping signals held until it has taken them over (`as_child`)."""
    with signals_held():
        child.start()


def _terminate(_signum: int, _frame: object) -> None:
    raise Terminated()


def as_child(nice: int) -> None:
    """A child's first step: Ctrl-C ignored (the server's to handle), SIGTERM and SIGHUP raise
    Terminated (cleaned up like Ctrl-C in a command), a SIGTERM sent when the server ends (Linux), a
    CPU priority `nice` lower than the server's; then the signals held since its start are let in."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in ENDING_SIGNALS:
        signal.signal(signum, _terminate)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(nice)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


def run_quietly(main: Callable[[], None]) -> None:
    """Run a child's `main`; told to stop (Terminated) it ends quietly, without a traceback."""
    with contextlib.suppress(Terminated):
        main()


def stop(children: list[multiprocessing.process.BaseProcess], grace_s: float = STOP_GRACE_S) -> None:
    """Tell `children` to stop (SIGTERM: each cleans up), wait up to `grace_s` for them together,
    then kill those still running. (Their ends are seen by their sentinels, never collected here:
    the thread that started each one collects it.)"""
    for child in children:
        with contextlib.suppress(Exception):
            child.terminate()
    running: dict[object, multiprocessing.process.BaseProcess] = {child.sentinel: child for child in children}
    deadline = time.monotonic() + grace_s
    while running and (left := deadline - time.monotonic()) > 0:
        for ended in multiprocessing.connection.wait(list(running), left):  # type: ignore[arg-type]
            running.pop(ended, None)
    for child in running.values():
        with contextlib.suppress(Exception):
            child.kill()
