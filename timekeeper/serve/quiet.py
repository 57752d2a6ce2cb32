"""What the server's terminal shows of events that are normal on any network (a phone that stops
reading, a broken or hostile request, a full table of open files): one short line, at most one per
kind every few seconds, never a traceback (unless --debug)."""

from __future__ import annotations

import asyncio
import logging
import time

from timekeeper.environment import current

EVERY_S = 10.0  # the same kind of line at most this often
NETWORK_LOGGERS = ("aiohttp.server", "aiohttp.web", "aiohttp.access", "aiohttp.websocket", "asyncio")


class OneLine(logging.Handler):
    """Each record as `timekeeper serve: message (reason)` on stderr, repeated kinds dropped."""

    def emit(self, record: logging.LogRecord) -> None:
        reason = ""
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            reason = f" ({type(error).__name__}: {str(error)[:120]})"
        say(f"{record.getMessage()[:160]}{reason}")


_last: dict[str, float] = {}


def say(line: str) -> None:
    """Print `line` (one line, shortened) unless the same kind was printed in the last EVERY_S."""
    kind = line[:40]
    now = time.monotonic()
    if now - _last.get(kind, -EVERY_S) < EVERY_S:
        return
    _last[kind] = now
    text = " ".join(line.split())[:240]
    print(f"timekeeper serve: {text}", file=current().streams.stderr, flush=True)


def install(loop: asyncio.AbstractEventLoop, debug: bool) -> None:
    """Route aiohttp's and asyncio's loggers and the loop's exception handler to `say`."""
    if debug:
        return
    handler = OneLine(logging.WARNING)
    for name in NETWORK_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)

    def on_exception(_loop: asyncio.AbstractEventLoop, context: dict) -> None:
        error = context.get("exception")
        reason = f" ({type(error).__name__}: {str(error)[:120]})" if error is not None else ""
        say(f"{context.get('message', 'network error')}{reason}")

    loop.set_exception_handler(on_exception)
