"""Checking where a command may write: a regular file (or a new one) in an existing folder, and
never one of the command's own inputs. Used by every writer (through atomicfile.replacing) and by
`timekeeper serve`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from timekeeper.errors import OutputError
from timekeeper.files.userfiles import kind_of


def check_output_path(path: str | Path, inputs: Iterable[str | Path | None] = (), *, what: str = "output") -> Path:
    """The file to replace for output `path`: `path` itself, or the file a symbolic link points to.

    OutputError (exit 10) naming `path` when it exists but is not a regular file (a device such as
    /dev/null, a FIFO, a folder: replacing it would lose it), when its folder does not exist, or
    when it is the same file as one of `inputs` (writing would destroy the input).
    """
    path = Path(path)
    try:
        target = Path(os.path.realpath(path)) if os.path.islink(path) else path
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as failure:
        raise OutputError.cannot_write(path, failure) from failure
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputError(f"is {kind_of(info.st_mode)}; refusing to replace it with the {what} (name a regular file)", path=str(path))
    folder = target.parent if str(target.parent) else Path(".")
    if not os.path.isdir(folder):
        raise OutputError.cannot_write(path, f"folder {folder} does not exist")
    if info is not None:
        for source in inputs:
            if source is not None and _same_file(target, Path(source)):
                raise OutputError(f"is also the input {source}; refusing to overwrite it (name another {what} file)", path=str(path))
    return target


def check_output_folder(folder: str | Path, *, what: str = "output") -> Path:
    """`folder`, for a command that writes its files into it (making it if missing): OutputError
    naming the nearest part of it that exists but is not a folder (a file, a device such as /dev/full)."""
    folder = Path(folder)
    for part in (folder, *folder.parents):
        try:
            info = os.stat(part)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, ValueError) as failure:
            raise OutputError.cannot_write(folder, failure) from failure
        if not stat.S_ISDIR(info.st_mode):
            kind = "a file" if stat.S_ISREG(info.st_mode) else kind_of(info.st_mode)
            raise OutputError(f"is {kind}, not a folder; cannot write the {what} into it", path=str(part))
        break
    return folder


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False
