"""Shared test fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session", autouse=True)
def clip_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One clip cache for the whole test session, never the user's (subprocesses inherit it).

    Parallel workers (pytest-xdist) share it: each synthesizes only what no other did before,
    and every cache write is an atomic replace."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "tk-cache"
    saved = os.environ.get("TIMEKEEPER_CACHE")
    os.environ["TIMEKEEPER_CACHE"] = str(folder)
    yield folder
    if saved is None:
        del os.environ["TIMEKEEPER_CACHE"]
    else:
        os.environ["TIMEKEEPER_CACHE"] = saved


@pytest.fixture(scope="session", autouse=True)
def log_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ship's log of the whole test session lives in a temporary folder, never the user's."""
    folder = tmp_path_factory.getbasetemp() / "tk-data"
    saved = {name: os.environ.pop(name, None) for name in ("TIMEKEEPER_DATA", "TIMEKEEPER_LOG")}
    os.environ["TIMEKEEPER_DATA"] = str(folder)
    yield folder
    del os.environ["TIMEKEEPER_DATA"]
    for name, value in saved.items():
        if value is not None:
            os.environ[name] = value
