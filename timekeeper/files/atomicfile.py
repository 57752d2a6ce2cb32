"""Write a file atomically: a temporary file in the same folder, then os.replace over the target.

Readers (and a user whose render fails half-way) see either the old file or the whole new one.
Only regular files are replaced (outputpath.check_output_path): a device, FIFO or folder given as
output is refused, and a symbolic link keeps pointing at the file it names.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from timekeeper.errors import OutputError
from timekeeper.files import stopping
from timekeeper.files.outputpath import check_output_path


@contextlib.contextmanager
def replacing(path: str | Path, suffix: str = ".part") -> Iterator[Path]:
    """Yield a temporary path beside `path`; when the block succeeds it becomes `path`.

    The new file keeps an existing file's permissions (a new one gets 0666 minus the umask).
    If the block raises (or the process gets SIGTERM: see cli.main), the temporary file is removed
    and `path` is left as it was; after a stop (Ctrl-C, SIGTERM: files/stopping.py) nothing is
    replaced any more. OutputError if `path` must not or cannot be written.
    """
    path = check_output_path(path)
    folder = path.parent if str(path.parent) else Path(".")
    temp: Path | None = None
    try:
        try:  # (noted as scratch at once: a stop that lands meanwhile still has it removed)
            temp = stopping.scratch_file(folder, prefix=f".{path.name}.", suffix=suffix)
        except OSError as failure:
            raise OutputError.cannot_write(path, failure) from failure
        yield temp
        try:
            os.chmod(temp, _mode_for(path))
            with stopping.committing():  # not after a stop, even one Python could not raise where it landed
                os.replace(temp, path)
        except OSError as failure:
            raise OutputError.cannot_write(path, failure) from failure
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                temp.unlink()
            stopping.forget(temp)


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write `data` (text is UTF-8) to `path` so readers see the old file or the whole new one.

    An OSError becomes OutputError (exit 10) with the message `path: cannot write: reason`.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with replacing(path, suffix=".tmp") as temp:
            temp.write_bytes(payload)
    except OSError as failure:
        raise OutputError.cannot_write(path, failure) from failure
    return path


def _mode_for(path: Path) -> int:
    with contextlib.suppress(OSError):
        return path.stat().st_mode & 0o7777
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
