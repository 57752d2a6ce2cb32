"""Byte ranges (RFC 9110, section 14), one way for every answer that streams bytes: the sound the
page plays (its mp3, made while it is served), the game's WAV mix, soundtrack downloads and the
page's assets (a video is played by Safari only from a server that answers ranges).

- `bytes=a-b` is the bytes a to b, `bytes=a-` from a to the end, `bytes=-n` the last n; a range
  reaching past the end is clamped to it (`bytes=0-99999999999999999999` is the whole file, 206).
- A range of another unit is ignored (the whole file, 200), as RFC 9110 wants.
- A range that cannot be served (starting at or past the end, `bytes=-0`, last before first, not
  digits, or several ranges at once) is answered 416 with `Content-Range: bytes */SIZE`.
- `If-Range` naming another version (an ETag this answer does not have) asks for the whole file.
- Each piece is handed to the connection within SEND_TIMEOUT_S; a player that stops reading is
  disconnected (it asks again with a range when it plays on), one that goes away is no error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path

from aiohttp import web

from timekeeper.serve.guards.limits import SEND_TIMEOUT_S

READ_BYTES = 256 * 1024  # a file is read and sent this much at a time
MAX_DIGITS = 100  # a position with more digits is taken as "past any end" (never parsed)
_SPEC = re.compile(r"([0-9]*)-([0-9]*)")

Pieces = Callable[[int, int], AsyncGenerator[bytes, None]]  # the bytes first..last (inclusive), a piece at a time


class Unsatisfiable(ValueError):
    """A Range header this answer cannot serve (416)."""


def _position(text: str) -> int | None:
    """A position of a range (None: more digits than any file has bytes)."""
    return int(text) if len(text) <= MAX_DIGITS else None


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(first, last) byte of a Range header for a file of `size` bytes, clamped to it; None for the
    whole file (no header, or a unit other than bytes). Unsatisfiable when it cannot be served."""
    if not header:
        return None
    unit, equals, specs = header.strip().partition("=")
    if not equals or unit.strip().lower() != "bytes":
        return None  # another unit: ignored (RFC 9110 14.2)
    match = _SPEC.fullmatch(specs.strip())
    if match is None:  # not digits, or several ranges
        raise Unsatisfiable(header)
    first_text, last_text = match.groups()
    if not first_text:  # the last n bytes
        if not last_text:
            raise Unsatisfiable(header)
        length = _position(last_text)
        if length == 0 or size == 0:
            raise Unsatisfiable(header)
        length = size if length is None else min(length, size)
        return size - length, size - 1
    first = _position(first_text)
    if first is None or first >= size:
        raise Unsatisfiable(header)
    last = size - 1 if not last_text else _position(last_text)
    if last is not None and last < first:
        raise Unsatisfiable(header)
    return first, size - 1 if last is None else min(last, size - 1)


async def send_ranged(request: web.Request, size: int, pieces: Pieces, headers: dict[str, str],
                      etag: str | None = None) -> web.StreamResponse:
    """Answer `request` with the bytes of a file of `size` bytes it asks for (see the module),
    read by `pieces`. `headers` go on the answer (its type, caching); `etag` names this version of
    the file (If-Range, If-None-Match). An error before the first byte (a Refused from `pieces`)
    is the answer; after it, the connection is closed."""
    if etag is not None and etag in {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}:
        return web.Response(status=304, headers={"ETag": etag, **{k: v for k, v in headers.items() if k == "Cache-Control"}})
    asked = request.headers.get("Range")
    if etag is not None and request.headers.get("If-Range", etag) != etag:
        asked = None  # a resumed download of another version: all of this one
    try:
        wanted = parse_range(asked, size)
    except Unsatisfiable:
        return web.Response(status=416, headers={"Content-Range": f"bytes */{size}"})
    first, last = wanted or (0, size - 1)
    sent = {**headers, "Accept-Ranges": "bytes", "Content-Length": str(max(0, last - first + 1))}
    if etag is not None:
        sent["ETag"] = etag
    if wanted is not None:
        sent["Content-Range"] = f"bytes {first}-{last}/{size}"
    response = web.StreamResponse(status=206 if wanted is not None else 200, headers=sent)
    if request.method == "HEAD" or size == 0:
        await response.prepare(request)
        await response.write_eof()
        return response
    stream = pieces(first, last)
    try:
        data = await anext(stream, b"")  # (a Refused here is still the answer)
        await response.prepare(request)
        while data:
            await asyncio.wait_for(response.write(data), SEND_TIMEOUT_S)
            data = await anext(stream, b"")
        await response.write_eof()
    except ConnectionError:  # the player stopped reading (every seek does): nothing to report
        pass
    except Exception:  # it read nothing for SEND_TIMEOUT_S, or the bytes could not be had midway: it asks again
        if not response.prepared:
            raise
        if request.transport is not None:
            request.transport.close()
    finally:
        await stream.aclose()
    return response


@contextlib.contextmanager
def opened_file(path: Path) -> Iterator[tuple[int, Pieces]]:
    """The size of the file at `path` and its pieces while the block runs, read from the file as it
    was when opened (one replaced meanwhile is still read whole). OSError when it cannot be opened."""
    handle = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(handle).st_size

        async def pieces(first: int, last: int) -> AsyncGenerator[bytes, None]:
            position = first
            while position <= last:
                data = await asyncio.to_thread(os.pread, handle, min(READ_BYTES, last + 1 - position), position)
                if not data:
                    return
                position += len(data)
                yield data

        yield size, pieces
    finally:
        os.close(handle)
