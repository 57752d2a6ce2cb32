"""Running `timekeeper log` as a user does, against a log file of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CREW = "Ann:captain, Bob:co, Cid, Dee:sc"


def timekeeper(db: Path, *args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """`timekeeper log --db DB ARGS...` in a subprocess; stdout and stderr as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "timekeeper", "log", "--db", str(db), *args], input=input,
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
