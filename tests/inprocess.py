"""The command line run in the test's own process: `timekeeper.cli.main` (the console script's
error handling and exit codes) inside click's CliRunner isolation (its own stdin, stdout, stderr
and environment), so a fast test sees what a user sees without starting Python again."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from timekeeper.cli import main


@dataclass(frozen=True)
class Ran:
    """A finished in-process run; `output` is stdout then stderr."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_cli(*args: str, input: str | None = None, env: dict[str, str | None] | None = None,
            cwd: Path | None = None) -> Ran:
    """Run `timekeeper ARGS` in this process; `env` adds to (None: removes from) the environment."""
    runner = CliRunner()
    before = Path.cwd()
    with runner.isolation(input=input, env=env) as (stdout, stderr, _):
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = main(list(args))
        finally:
            os.chdir(before)
    return Ran(int(code), stdout.getvalue().decode("utf-8", "replace"), stderr.getvalue().decode("utf-8", "replace"))
