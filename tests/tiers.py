"""The two test tiers: which tests need the full tier (`pytest --full`), and why.

A test is outside the fast tier when its file is one of WHOLE_FILES (its subject is a real engine
at work), when it is marked `@pytest.mark.full(reason)` (a slow test in an
otherwise quick file), or when its code, its fixtures or the test helpers they call use something
marked with `@needs_full_tier(reason)` (a program started in its own process: the CLI, the server,
Chromium, redis-server, nginx, tmux) or a module that starts programs (subprocess). The code is
read, not run: the names each function uses are looked up where that function would find them.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

TESTS = Path(__file__).resolve().parent
MARKER = "full"
MARKER_HELP = "full(reason): outside the fast tier; runs only with --full (tests/tiers.py decides most of them)"

# test files whose subject is the real engines at work, as a whole
WHOLE_FILES = {
    "test_cold_render.py": "cold renders: real espeak-ng and Piper, levelled, encoded and decoded",
    "test_render_audio.py": "real renders, encoded and decoded",
    "test_sound_targets.py": "real renders in every language, decoded and measured",
    "test_voice_tts.py": "real espeak-ng and pyttsx3 synthesis",
    "test_voice_neural.py": "Piper synthesis",
    "test_voice_rates.py": "every official track in every language at the real espeak-ng rates",
    "test_voice_packs.py": "voice packs recorded with real espeak-ng",
    "test_pace.py": "a decoded render at training pace",
    "test_live_miniaudio.py": "a real audio device thread in real time",
    "test_languages.py": "real espeak-ng renders in four languages",
}

# modules whose use means a separate program
PROGRAM_MODULES = {
    "subprocess": "starts a program",
    "multiprocessing": "starts processes",
}

F = TypeVar("F", bound=Callable[..., Any])


def needs_full_tier(reason: str) -> Callable[[F], F]:
    """Mark a test helper (or fixture function) whose every use puts a test in the full tier."""

    def mark(function: F) -> F:
        function.__full_tier__ = reason  # type: ignore[attr-defined]
        return function

    return mark


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """`code` and every function, lambda and comprehension defined inside it."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _codes(constant)


@functools.cache
def _is_test_file(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(TESTS)


def _in_tests(obj: object) -> bool:
    code = getattr(obj, "__code__", None)
    return isinstance(code, types.CodeType) and _is_test_file(code.co_filename)


_helpers: tuple[int, dict[str, types.ModuleType]] = (-1, {})


def _test_helper_modules() -> dict[str, types.ModuleType]:
    """The modules of tests/ imported so far, by name (for `from serving import chromium` inside a function)."""
    global _helpers
    if _helpers[0] != len(sys.modules):
        found = {}
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if path and _is_test_file(path) and "/" not in name:
                found[name] = module
        _helpers = (len(sys.modules), found)
    return _helpers[1]


def _used(function: Callable[..., Any]) -> Iterator[object]:
    """What the names in `function`'s code refer to: its module's globals, and names imported
    inside it from a helper module of tests/ or from a program module."""
    namespace = getattr(function, "__globals__", {})
    helpers = _test_helper_modules()
    for code in _codes(function.__code__):  # type: ignore[attr-defined]
        names = code.co_names
        for name in names:
            if name in namespace:
                yield namespace[name]
            if name in PROGRAM_MODULES and name in sys.modules:
                yield sys.modules[name]
        modules = {helpers[name] for name in names if name in helpers}
        modules |= {namespace[name] for name in names if name in namespace and namespace[name] in helpers.values()}
        for module in modules:  # `from serving import chromium` in a function, `browser_tests.check(...)`
            for name in names:
                if hasattr(module, name):
                    yield getattr(module, name)


def file_reason(path: Path) -> str | None:
    """Why the whole test file at `path` is in the full tier, or None."""
    return WHOLE_FILES.get(path.name)


def full_tier_reason(function: object, seen: set[int] | None = None) -> str | None:
    """Why calling `function` (a test, a fixture, a helper of tests/) needs the full tier, or None."""
    seen = set() if seen is None else seen
    if id(function) in seen:
        return None
    seen.add(id(function))
    reason = getattr(function, "__full_tier__", None)
    if isinstance(reason, str):
        return reason
    if isinstance(function, types.ModuleType):
        return PROGRAM_MODULES.get(function.__name__)
    if isinstance(function, type):
        if function.__module__ not in _test_helper_modules():
            return None
        for attribute in vars(function).values():
            found = full_tier_reason(getattr(attribute, "__func__", attribute), seen)
            if found:
                return found
        return None
    if not _in_tests(function):
        return None
    for used in _used(function):  # type: ignore[arg-type]
        found = full_tier_reason(used, seen)
        if found:
            return found
    return None
