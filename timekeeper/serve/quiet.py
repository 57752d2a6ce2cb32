"""What the server's terminal shows of events that are normal on any network (a phone that stops
reading, a broken or hostile request, a full table of open files) and of those nobody expected (a
bug, Redis gone): one short line each, never a traceback (unless --debug), and bounded so that a
flood of bad requests cannot fill a terminal or a log:

- each line is at most LINE_CHARS characters, on one line, control characters shown as spaces;
- the same kind of line (a `kind` the caller names, else the line's words without its numbers and
  addresses) at most once every EVERY_S;
- at most LINES_PER_MINUTE lines of all kinds a minute; beyond, lines are counted and one line
  says how many were left out.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

from timekeeper.environment import current

EVERY_S = 10.0  # the same kind of line at most this often
LINES_PER_MINUTE = 30  # lines of all kinds a minute, at most
LINE_CHARS = 240  # a line is shortened to this
KINDS_KEPT = 1000  # kinds remembered (then forgotten all at once: a flood of new kinds costs no memory)
NETWORK_LOGGERS = ("aiohttp.server", "aiohttp.web", "aiohttp.access", "aiohttp.websocket", "asyncio")
_VARYING = re.compile(r"\[[0-9a-fA-F:.]+\]|[0-9a-fA-F]*[0-9][0-9a-fA-F:.]*|'[^']*'|\"[^\"]*\"")


class OneLine(logging.Handler):
    """Each record as `timekeeper serve: message (reason)` on stderr, repeated kinds dropped."""

    def emit(self, record: logging.LogRecord) -> None:
        reason = ""
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            reason = f" ({type(error).__name__}: {str(error)[:120]})"
        say(f"{record.getMessage()[:160]}{reason}", kind=f"log:{str(record.msg)[:60]}")


_last: dict[str, float] = {}
_minute = [0.0, 0, 0]  # when the current minute began (monotonic s), lines printed in it, lines left out


def kind_of(line: str) -> str:
    """What makes two lines "the same kind": their words, without numbers, addresses, ids and quoted parts."""
    return _VARYING.sub("#", line[:80])[:60]


def say(line: str, kind: str | None = None) -> bool:
    """Print `line` (one line, shortened) unless its `kind` was printed in the last EVERY_S or this
    minute's lines are used up; True if it was printed."""
    now = time.monotonic()
    kind = kind_of(line) if kind is None else kind
    if now - _last.get(kind, -EVERY_S) < EVERY_S:
        return False
    began, printed, left_out = _minute
    if now - began >= 60.0:
        if left_out:
            _print(f"{left_out} more {'line' if left_out == 1 else 'lines'} left out in the last minute (too many)")
        began, printed, left_out = now, 0, 0
    if printed >= LINES_PER_MINUTE:
        _minute[:] = [began, printed, left_out + 1]
        return False
    _minute[:] = [began, printed + 1, left_out]
    if len(_last) >= KINDS_KEPT:
        _last.clear()
    _last[kind] = now
    _print(line)
    return True


def _print(line: str) -> None:
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in line).split())[:LINE_CHARS]
    print(f"timekeeper serve: {text}", file=current().streams.stderr, flush=True)


_debug = [False]  # --debug: tracebacks are shown


def install(loop: asyncio.AbstractEventLoop, debug: bool) -> None:
    """Route aiohttp's and asyncio's loggers and the loop's exception handler to `say`."""
    _debug[0] = debug
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
        message = str(context.get("message", "network error"))
        say(f"{message}{reason}", kind=f"loop:{message[:40]}:{type(error).__name__}")

    loop.set_exception_handler(on_exception)


def unexpected(what: str, error: BaseException) -> None:
    """A failure nobody expected (a bug, most likely) in `what`: one line naming it, the same
    kind at most once every EVERY_S; its traceback only with --debug."""
    if _debug[0]:
        import traceback

        traceback.print_exception(error, file=current().streams.stderr)
    say(f"internal error in {what}: {type(error).__name__}: {str(error)[:120]}", kind=f"bug:{what}:{type(error).__name__}")
