"""Hold back Ctrl-C, SIGTERM and SIGHUP for a few statements that must not be cut in two.

Creating a temporary file and noting it for clean-up, or starting a child process and noting it
for stopping, are each two steps; an interruption between them would leave a stray file or a
process nobody stops. Signals that arrive meanwhile are noted and delivered as the block ends.

Python runs signal handlers in the main thread only, whichever thread the system picked, so the
signals are held by swapping the handlers (not by a per-thread signal mask, which another thread
of the process would not share). A child forked inside the block does not deliver the signals its
parent held: they were meant for the parent.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

HELD = (signal.SIGINT, signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else []))


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Run the block with the interrupting signals noted instead of handled, then handle them."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread handles signals: nothing can interrupt this thread's block
        return
    arrived: list[int] = []
    previous = {}
    holder = os.getpid()
    for signum in HELD:
        if signal.getsignal(signum) is not None:  # None: set outside Python, which could not be put back
            previous[signum] = signal.signal(signum, lambda number, _frame: arrived.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(arrived if os.getpid() == holder else []):
            signal.raise_signal(number)  # now handled as usual: KeyboardInterrupt, Terminated ...
