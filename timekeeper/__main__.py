"""The `timekeeper` program (and `python -m timekeeper`): cli.main on the command line, whose
status the process exits with; after a stop (Ctrl-C, SIGTERM, SIGHUP) it leaves at once
(files/stopping.py: without waiting for background threads or freeing its memory)."""

from __future__ import annotations

INTERRUPTED = 130  # errors.ExitStatus.INTERRUPTED, before anything of timekeeper is loaded


def run() -> None:  # (it never returns: the process exits)
    try:
        from timekeeper.files import stopping  # first: a stop is handled from here on, while the rest loads
    except KeyboardInterrupt:  # Ctrl-C while Python was still loading this: nothing was made
        raise SystemExit(INTERRUPTED) from None
    with stopping.handling():
        try:
            from timekeeper.cli import main

            status = main()
        except KeyboardInterrupt:  # a stop while the program was still loading: nothing was made yet
            status = stopping.status_of(stopping.requested() or stopping.INTERRUPT)
        if stopping.requested() is not None:
            stopping.leave(status)
    raise SystemExit(status)


if __name__ == "__main__":  # not when a child process (serve's renders) imports this module
    run()
