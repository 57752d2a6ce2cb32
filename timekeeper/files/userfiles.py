"""Reading a file a user names, safely: regular files only, never more than a size limit.

A FIFO, a device (`/dev/zero`), a socket or a folder given where a file is expected is refused
at once instead of blocking or reading forever; a file larger than the limit is refused without
reading it all. Every message names the file. Used by every loader and by `timekeeper serve`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, BinaryIO, cast

from timekeeper.errors import TimekeeperError

KIND_NAMES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def path_exists(path: str | Path) -> bool:
    """True if `path` names something (a dangling link does not); False, never an exception, for a
    name the system cannot even look up (too long, a NUL byte, a loop of links)."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words ("a named pipe (FIFO)", "a character device", ...)."""
    for test, name in KIND_NAMES:
        if test(mode):
            return name
    return "not a regular file"


def check_input_file(
    path: str | Path, limit_bytes: int, *, what: str = "file", display: str | None = None,
    error: type[TimekeeperError] = TimekeeperError,
) -> int:
    """The size of regular file `path` (following links); `error` naming it if it is missing,
    not a regular file, or larger than `limit_bytes`. Reads nothing (for files other tools open)."""
    shown = display or str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error("no such file", path=shown, missing=True) from None
    except OSError as failure:
        raise error(f"cannot read: {failure.strerror or failure}", path=shown) from failure
    _check_kind(info, shown, what, limit_bytes, error)
    return info.st_size


def read_user_file(
    path: str | Path, limit_bytes: int, *, what: str = "file", display: str | None = None,
    error: type[TimekeeperError] = TimekeeperError,
) -> bytes:
    """The bytes of regular file `path`, at most `limit_bytes` of them.

    Opens without blocking (a FIFO with no writer would otherwise wait forever), checks the open
    file's type and size, and reads at most `limit_bytes + 1` bytes, so a file that grows while
    being read is refused too. Raises `error` with `path: reason` (expected `what`).
    """
    shown = display or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise error("no such file", path=shown, missing=True) from None
    except IsADirectoryError:
        raise error(f"is a folder, expected {what}", path=shown) from None
    except OSError as failure:
        raise error(f"cannot read: {failure.strerror or failure}", path=shown) from failure
    try:
        _check_kind(os.fstat(fd), shown, what, limit_bytes, error)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = _read_limited(handle, limit_bytes)
    except OSError as failure:
        raise error(f"cannot read: {failure.strerror or failure}", path=shown) from failure
    finally:
        os.close(fd)
    if data is None:
        raise error(f"is larger than {limit_bytes:,} bytes, the limit for {what}", path=shown)
    return data


def read_user_stream(
    stream: BinaryIO, limit_bytes: int, *, what: str = "input", display: str = "<stdin>",
    error: type[TimekeeperError] = TimekeeperError,
) -> bytes:
    """At most `limit_bytes` bytes of `stream` (stdin); `error` if it holds more."""
    try:
        data = _read_limited(stream, limit_bytes)
    except OSError as failure:
        raise error(f"cannot read: {failure.strerror or failure}", path=display) from failure
    if data is None:
        raise error(f"is larger than {limit_bytes:,} bytes, the limit for {what}", path=display)
    return data


def _check_kind(info: os.stat_result, shown: str, what: str, limit_bytes: int, error: type[TimekeeperError]) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise error(f"is {kind_of(info.st_mode)}, expected {what} (a regular file)", path=shown)
    if info.st_size > limit_bytes:
        raise error(f"is {info.st_size:,} bytes; {what} is limited to {limit_bytes:,} bytes", path=shown)


def binary_of(stream: IO[str]) -> BinaryIO:
    """The bytes under a text stream: a real stdin's buffer, or a text-only stream's text (a
    caller's StringIO) read as UTF-8 bytes."""
    raw = getattr(stream, "buffer", None)
    return cast(BinaryIO, raw) if raw is not None else cast(BinaryIO, _Utf8Reader(stream))


class _Utf8Reader:
    """read(n) of a text stream as UTF-8 bytes (up to 4 n of them, for n characters)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        return self.stream.read(size).encode("utf-8", "surrogateescape")


def _read_limited(handle: BinaryIO, limit_bytes: int) -> bytes | None:
    """The stream's bytes, or None if there are more than `limit_bytes`."""
    chunks = []
    total = 0
    while total <= limit_bytes:
        chunk = handle.read(min(1 << 20, limit_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return None if total > limit_bytes else b"".join(chunks)
