"""The `timekeeper` program (and `python -m timekeeper`): cli.main on the command line, whose
status the process exits with; after a stop (Ctrl-C, SIGTERM, SIGHUP) it leaves at once
(files/stopping.py: without waiting for background threads or freeing its memory)."""

from __future__ import annotations

import signal
from typing import NoReturn


def run() -> NoReturn:
    from timekeeper.files import stopping  # first: a stop is handled from here on, while the rest loads

    with stopping.handling():
        try:
            from timekeeper.cli import main

            status = main()
        except KeyboardInterrupt:  # a stop while the program was still loading: nothing was made yet
            status = stopping.status_of(stopping.requested() or signal.SIGINT)
        if stopping.requested() is not None:
            stopping.leave(status)
    raise SystemExit(status)


if __name__ == "__main__":  # not when a child process (serve's renders) imports this module
    run()
