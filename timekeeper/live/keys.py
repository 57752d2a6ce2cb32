"""Single key presses from stdin without Enter, and restoring the terminal afterwards."""

from __future__ import annotations

import os
import select
import sys
from typing import IO, Any

from timekeeper.environment import current
from timekeeper.live.clock import REAL_TIME, TimeSource

PAUSE = " "
QUIT = "q"
END = "e"
YES = "y"
CONSOLE_POLL_S = 0.02  # how often a Windows console is asked for a key (msvcrt cannot wait for one)


class Keys:
    """Reads keys from stdin: a terminal is put in cbreak mode (Ctrl-C still interrupts).

    A pipe works too (tests and scripts write keys to it); at end of input, keys stop.
    Use as a context manager so the terminal is always restored. A Windows console has no cbreak
    mode and cannot be select()ed: its keys are read one by one with msvcrt (the only code here
    that differs per system).
    """

    def __init__(self, stream: IO[Any] | None = None, source: TimeSource = REAL_TIME) -> None:
        self._stream = current().streams.stdin if stream is None else stream
        self._source = source  # waits with no input to watch go through the mission clock's source
        self._fd: int | None = None
        self._tty_fd: int | None = None
        self._saved: Any = None
        self._console = False

    def __enter__(self) -> Keys:
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            return self
        if os.isatty(fd) and sys.platform == "win32":
            self._console = True
            return self
        if os.isatty(fd):
            import termios
            import tty

            self._saved = termios.tcgetattr(fd)
            self._tty_fd = fd
            tty.setcbreak(fd)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()

    def restore(self) -> None:
        if self._saved is not None and self._tty_fd is not None:
            import termios

            termios.tcsetattr(self._tty_fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def read(self, timeout_s: float) -> str | None:
        """The next key pressed within `timeout_s`, else None (waits the whole time if no input)."""
        timeout_s = max(0.0, timeout_s)
        if self._console:
            return self._console_key(timeout_s)
        if self._fd is None:
            self._source.sleep(timeout_s)
            return None
        ready, _, _ = select.select([self._fd], [], [], timeout_s)
        if not ready:
            return None
        data = os.read(self._fd, 1)
        if not data:  # end of input: no more keys
            self._fd = None
            return None
        return data.decode("latin-1").lower()

    def _console_key(self, timeout_s: float) -> str | None:
        """The next key pressed in a Windows console within `timeout_s`, else None."""
        if sys.platform != "win32":
            return None
        import msvcrt

        end = self._source.monotonic() + timeout_s
        while not msvcrt.kbhit():
            left = end - self._source.monotonic()
            if left <= 0:
                return None
            self._source.sleep(min(CONSOLE_POLL_S, left))
        return msvcrt.getwch().lower()
