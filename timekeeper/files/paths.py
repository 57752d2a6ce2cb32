"""Where the shipped scenarios and voices live, in a wheel install or a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # timekeeper/


def shipped_dir(name: str) -> Path:
    """The folder of shipped data `name` ("scenarios" or "voices")."""
    installed = _PACKAGE / "_shipped" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def scenarios_dir() -> Path:
    return shipped_dir("scenarios")


def voices_dir() -> Path:
    return shipped_dir("voices")
