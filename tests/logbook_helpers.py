"""Running `timekeeper log` as a user does, against a log file of the test's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

from running import timekeeper as run

ROOT = Path(__file__).resolve().parent.parent
CREW = "Ann:captain, Bob:co, Cid, Dee:sc"


def timekeeper(db: Path, *args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """`timekeeper log --db DB ARGS...` in a subprocess; stdout and stderr as text."""
    return run("log", "--db", str(db), *args, input=input, timeout=timeout, cwd=ROOT)
