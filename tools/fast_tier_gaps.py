"""List the modules of timekeeper/ that no test of the fast tier runs.

Runs the fast tier (`pytest` without --full) in this process and notes, while each test runs (its
set-up, call and tear-down), which functions of timekeeper/ are entered. A module is a gap when
none of its functions ran; a module that defines no function (constants, tables) is a gap when no
fast test imported it. Exit status 1 when there is a gap, 0 when the fast tier reaches every module.

Run from the repository root:  python tools/fast_tier_gaps.py [PYTEST ARGS...]
"""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "timekeeper"
MODULE_CODE = "<module>"  # the code of an import, not of a function


class RanFunctions:
    """A pytest plugin: the files of timekeeper/ whose functions were entered while a test ran."""

    def __init__(self) -> None:
        self.ran: set[str] = set()
        self.imported: set[str] = set()
        self.failed = 0

    def _trace(self, frame: types.FrameType, event: str, arg: object) -> None:
        if frame.f_code.co_name == MODULE_CODE:
            self.imported.add(frame.f_code.co_filename)
        else:
            self.ran.add(frame.f_code.co_filename)
        return None  # no line events: only each call is seen

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
        threading.settrace(self._trace)  # type: ignore[arg-type]
        sys.settrace(self._trace)  # type: ignore[arg-type]
        try:
            return (yield)
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed += 1


def defines_functions(path: Path) -> bool:
    """Whether the module at `path` defines a function or method (else it holds only data)."""
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    stack = [code]
    while stack:
        for constant in stack.pop().co_consts:
            if isinstance(constant, types.CodeType):
                return True
    return False


def gaps(ran: set[str], imported: set[str]) -> list[str]:
    """The modules under timekeeper/ (as dotted names) that the fast tier does not reach."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path)
        reached = name in ran if defines_functions(path) else name in ran | imported or _loaded(path)
        if not reached:
            missing.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return missing


def _loaded(path: Path) -> bool:
    return any(getattr(module, "__file__", None) == str(path) for module in list(sys.modules.values()))


def main(argv: list[str]) -> int:
    plugin = RanFunctions()
    status = pytest.main(["-q", "-p", "no:cacheprovider", *argv], plugins=[plugin])
    if plugin.failed or status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        print(f"fast_tier_gaps: the fast tier did not pass (pytest exit status {int(status)})", file=sys.stderr)
        return int(status) or 1
    missing = gaps(plugin.ran, plugin.imported)
    for name in missing:
        print(f"not reached by the fast tier: {name}")
    print(f"{len(missing)} module(s) of timekeeper/ not reached by any fast test")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
