"""Shared test fixtures."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from realparts import full_tier_verdict
from scaleout import start_redis, stop_process
from tiers import MARKER, file_reason, full_tier_reason

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


FULL_OPTION = "--full"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(FULL_OPTION, action="store_true",
                     help="run the full tier too: real espeak-ng and Piper renders, codecs, Chromium, tmux, redis-server, "
                          "nginx, the hostile suites and the CLI and server in their own processes (without it: the fast tier)")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Without --full, the files of the full tier as a whole are not even imported."""
    if not config.getoption(FULL_OPTION) and file_reason(collection_path) is not None:
        config.stash[_FILES_LEFT_OUT] = config.stash.get(_FILES_LEFT_OUT, 0) + 1
        return True
    return None


def _tier_reason(item: pytest.Item) -> str | None:
    """Why `item` belongs to the full tier only (tests/tiers.py), or None for the fast tier."""
    marker = item.get_closest_marker(MARKER)
    if marker is not None:
        return str(marker.kwargs.get("reason") or (marker.args[0] if marker.args else "marked full"))
    whole_file = file_reason(item.path)
    if whole_file:
        return whole_file
    fixtures = getattr(item, "_fixtureinfo", None)
    functions = [getattr(item, "function", None)]
    if fixtures is not None:
        functions += [definitions[-1].func for definitions in fixtures.name2fixturedefs.values()]
    for function in functions:
        reason = full_tier_reason(function) if function is not None else None
        if reason:
            return reason
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of the full tier (`full(reason)`) and, without --full, leave them out."""
    outside = []
    for item in items:
        reason = _tier_reason(item)
        if reason is None:
            continue
        if item.get_closest_marker(MARKER) is None:
            item.add_marker(pytest.mark.full(reason=reason))
        outside.append(item)
    if config.getoption(FULL_OPTION) or not outside:
        return
    left_out = set(outside)
    config.hook.pytest_deselected(items=outside)
    items[:] = [item for item in items if item not in left_out]
    config.stash[_LEFT_OUT] = len(outside)


def _fail_a_skip(report: pytest.TestReport | pytest.CollectReport, config: pytest.Config) -> None:
    """Under --full, a skipped test (or test file) fails instead, unless it was skipped with
    realparts.not_here: a green full run means every real part ran (tests/realparts.py)."""
    if not config.getoption(FULL_OPTION) or not report.skipped or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
    failure = full_tier_verdict(reason)
    if failure is not None:
        report.outcome = "failed"
        report.longrepr = failure


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_a_skip(outcome.get_result(), item.config)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_a_skip(outcome.get_result(), collector.config)


_LEFT_OUT = pytest.StashKey[int]()
_FILES_LEFT_OUT = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    left_out, files = config.stash.get(_LEFT_OUT, 0), config.stash.get(_FILES_LEFT_OUT, 0)
    if left_out or files:
        terminalreporter.write_line(f"fast tier: {left_out} tests deselected and the files of WHOLE_FILES (tests/tiers.py) "
                                    f"not collected; run everything with {FULL_OPTION}")


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session", autouse=True)
def interruptible() -> Iterator[None]:
    """Ctrl-C works in this process and the programs it starts, even when the suite itself was started
    with SIGINT ignored (a background job of a shell without job control): the tests of exit code
    130 and of a server stopped with Ctrl-C need it."""
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if ignored:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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


@pytest.fixture(scope="session", autouse=True)
def synthesized_default_voice() -> Iterator[None]:
    """Tests speak with the fast synthesized voice unless they choose one (--voice) or test the
    default voice itself (they remove TIMEKEEPER_DEFAULT_VOICE from their environment): English's
    default is Piper's joe, which takes seconds to start."""
    saved = os.environ.get("TIMEKEEPER_DEFAULT_VOICE")
    os.environ["TIMEKEEPER_DEFAULT_VOICE"] = "synthesized"
    yield
    if saved is None:
        del os.environ["TIMEKEEPER_DEFAULT_VOICE"]
    else:
        os.environ["TIMEKEEPER_DEFAULT_VOICE"] = saved


@pytest.fixture(scope="session")
def browser_pool():
    """The headless Chromiums this test process keeps between tests (serving.BrowserPool)."""
    from serving import BrowserPool

    pool = BrowserPool()
    yield pool
    pool.close()


@pytest.fixture
def open_browsers(browser_pool):
    """`open_browsers(size, phone=False)`: a headless Chromium at that size, as new, given back
    to the pool (or quit) after the test."""
    taken = []

    def make(size, phone=False):
        taken.append((size, phone, browser_pool.take(size, phone)))
        return taken[-1][2]

    yield make
    for size, phone, driver in taken:
        browser_pool.give_back(size, phone, driver)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A real redis-server on a free loopback port for the tests of one file, stopped afterwards."""
    process, port = start_redis(tmp_path_factory.mktemp("redis"))
    yield f"redis://127.0.0.1:{port}/0"
    stop_process(process)
