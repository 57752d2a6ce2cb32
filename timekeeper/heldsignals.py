"""Hold back Ctrl-C, SIGTERM and SIGHUP for a few statements that must not be cut in two.

Creating a temporary file and noting it for clean-up, or starting a child process and noting it
for stopping, are each two steps; an interruption between them would leave a stray file or a
process nobody stops. Signals that arrive meanwhile are delivered as soon as the block ends.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

HELD = {signal.SIGINT, signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])}


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Run the block with the interrupting signals blocked (where the platform can block them)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: nothing to hold
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
