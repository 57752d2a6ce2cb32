"""Keep chatty libraries quiet: what C code or a library writes to a file descriptor goes to
/dev/null for the length of a block (ALSA's device messages, pyttsx3's "Audio saved to ...")."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def silenced(fd: int) -> Iterator[None]:
    """Send whatever is written to file descriptor `fd` (1 or 2) to /dev/null inside the block;
    where the descriptor cannot be duplicated, nothing changes."""
    (sys.stdout if fd == 1 else sys.stderr).flush()
    try:
        saved = os.dup(fd)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
