"""The command line as a user runs it: `python -m timekeeper ARGS` in its own process, through the
real `main()` (its error handler, exit codes and signal handling), with a time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tiers import needs_full_tier

TIMEOUT_S = 600  # a bound on a hung run, not a speed target
# An answer that did not wait: far below the timeouts and announcements (10-30 s) a test guards
# against, and above what a loaded CI machine (two test workers on 2 cores) adds to a 0.1 s answer.
AT_ONCE_S = 3.0


@needs_full_tier("runs the CLI in its own process")
def timekeeper(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
               timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Run `timekeeper ARGS`; `env` adds to (or replaces entries of) this process's environment;
    `input` is written to its standard input (else it reads nothing)."""
    return subprocess.run(
        [sys.executable, "-m", "timekeeper", *args], capture_output=True, text=True, cwd=cwd, input=input,
        env={**os.environ, **(env or {})}, timeout=timeout,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


@dataclass(frozen=True)
class Result:
    """A finished run: `output` is what the user sees on the terminal (stdout, then stderr)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def result_of(*args: str, **options) -> Result:  # type: ignore[no-untyped-def]
    done = timekeeper(*args, **options)
    return Result(done.returncode, done.stdout, done.stderr)
