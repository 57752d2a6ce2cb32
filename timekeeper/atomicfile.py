"""Write a file atomically: a temporary file in the same folder, then os.replace over the target."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from timekeeper.errors import TimekeeperError


def write_atomic(path: str | Path, data: bytes | str, error: type[TimekeeperError] = TimekeeperError) -> Path:
    """Write `data` (text is UTF-8) to `path` so readers see the old file or the whole new one.

    An OSError becomes `error` with the message `path: cannot write: reason`.
    """
    path = Path(path)
    try:
        return _write(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as failure:
        raise error(f"{path}: cannot write: {failure.strerror or failure}") from failure


def _write(path: Path, payload: bytes) -> Path:
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
