"""The machine's processes as Linux's /proc shows them, for tests and benchmarks that watch or clean
up what they started: a process's children and everything under it, its command line, the
processes whose command line holds a text or whose environment holds a variable, and the process
holding a file's lock."""

from __future__ import annotations

import os
from pathlib import Path


def children(pid: int) -> list[int]:
    """The processes `pid` (any of its threads) started and that still run."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:  # the thread ended meanwhile
            pass
    return found


def family(pid: int) -> list[int]:
    """`pid` and every process under it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children(current))
    return found


def command_line(pid: int) -> bytes:
    """The NUL-separated arguments `pid` was started with (empty when it is gone)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


def running_with(text: bytes) -> list[int]:
    """The processes whose command line holds `text`."""
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit() and text in command_line(int(entry.name))]


def holder_of_lock(path: Path) -> int | None:
    """The process holding a flock on `path` (from /proc/locks), if any (and None once `path` is gone)."""
    try:
        inode = os.stat(path).st_ino
    except FileNotFoundError:
        return None
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
            return int(fields[4])
    return None


def with_environment(text: bytes) -> list[int]:
    """The processes whose environment holds `text` (a variable set for one run, say, which its
    children inherit), zombies left out."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if text in (entry / "environ").read_bytes() and (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found
