"""A green full tier means every real part ran (tests/realparts.py, conftest.py): the parts are
found where Debian puts them, and under --full a test skipped for a missing part fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import realparts
from realparts import NOT_HERE, PARTS, find, full_tier_verdict, missing, missing_reason

TESTS = Path(__file__).resolve().parent

PROBE = '''
import pytest
import realparts
from realparts import needs, not_here, require

realparts.PARTS["no-such-part"] = realparts.Part(("no-such-program-here",))

@needs("tmux", "no-such-part")
def test_marked():
    pass

def test_required():
    require("no-such-part")

def test_skipped_by_hand():
    pytest.skip("redis-server is not installed")

def test_not_here():
    not_here("this machine has a sound device")

@pytest.mark.xfail(reason="known")
def test_expected_to_fail():
    assert False

def test_runs():
    pass
'''


def test_a_skip_fails_the_full_tier_unless_the_machine_cannot_run_it() -> None:
    assert full_tier_verdict("Skipped: needs nginx (.ci/run installs it)") == (
        "--full runs every real part, and this test was skipped: needs nginx (.ci/run installs it)")
    assert full_tier_verdict("could not import 'miniaudio': No module named 'miniaudio'") is not None
    assert full_tier_verdict(f"Skipped: {NOT_HERE}this machine has a sound device") is None


def test_parts_are_found_on_path_then_where_debian_puts_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = tmp_path / "usr-lib-chromium" / "chromedriver"
    driver.parent.mkdir()
    driver.write_text("#!/bin/sh\n")
    monkeypatch.setitem(PARTS, "probe-driver", realparts.Part(("no-such-program-on-path",), (str(tmp_path / "absent"), str(driver))))
    monkeypatch.setitem(PARTS, "probe-module", realparts.Part(module="no_such_module_here"))
    try:
        assert find("probe-driver") is None  # there, but not a program
        find.cache_clear()
        driver.chmod(0o755)
        assert find("probe-driver") == str(driver)
        monkeypatch.setenv("PATH", f"{driver.parent}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setitem(PARTS, "probe-driver", realparts.Part(("chromedriver",), ()))
        find.cache_clear()
        assert find("probe-driver") == str(driver)  # on PATH first
        assert missing("probe-module", "probe-driver") == ["probe-module"]
        assert missing_reason(["nginx"]) == "needs nginx (Debian's nginx-light; .ci/run installs it)"
    finally:
        find.cache_clear()


def test_the_full_tier_fails_a_test_skipped_for_a_missing_part(tmp_path: Path) -> None:
    """pytest itself, on a probe file with this suite's conftest.py: the fast tier skips, --full fails."""
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}

    def pytest_run(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-rA", "-p", "no:cacheprovider",
                               "--rootdir", str(tmp_path), *options, str(tmp_path / "test_probe.py")],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    fast = pytest_run()
    assert fast.returncode == 0, fast.stdout + fast.stderr
    assert "1 passed, 4 skipped, 1 xfailed" in fast.stdout, fast.stdout
    full = pytest_run("--full")
    assert full.returncode == 1, full.stdout + full.stderr
    assert "2 failed, 1 passed, 1 skipped, 1 xfailed, 1 error" in full.stdout, full.stdout
    assert "ERROR test_probe.py::test_marked - --full runs every real part" in full.stdout  # (a mark fails as it is set up)
    for failed in ("test_required", "test_skipped_by_hand"):
        assert f"FAILED test_probe.py::{failed} - --full runs every real part" in full.stdout
    assert "needs no-such-part" in full.stdout and "redis-server is not installed" in full.stdout
    assert "not on this machine: this machine has a sound device" in full.stdout.split("short test summary")[1]
