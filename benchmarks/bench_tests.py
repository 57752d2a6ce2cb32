"""Benchmark of the test suite: wall time and the CPU the whole machine used while it ran.

    python benchmarks/bench_tests.py                                   # the full tier, as .ci/run runs it
    python benchmarks/bench_tests.py -- tests/test_serve_a11y.py -n 2  # any pytest arguments after --

CPU is read from /proc/stat (every process on the machine, so Chromium's processes count too,
which the test process never reaps; run it with nothing else busy). Linux only. As .ci/run does, it
compiles timekeeper/ and tests/ first and lets Python keep bytecode (PYTHONDONTWRITEBYTECODE unset).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FULL_TIER = ["--full", "--ignore", "tests/test_pip_install.py", "-n", "2", "--dist", "loadfile"]
TICKS_PER_S = 100  # /proc/stat's unit (USER_HZ)


def busy_cpu_s() -> float:
    """CPU seconds the machine has been busy since it started: user, nice, system, irq and softirq."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(value) for value in fields[:7])
    return (user + nice + system + irq + softirq) / TICKS_PER_S


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="example: python benchmarks/bench_tests.py -- --full tests/test_serve_screen.py")
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments (default: the full tier on two workers)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(args.pytest_args or FULL_TIER)]
    print("running:", " ".join(command[1:]), flush=True)
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}  # as .ci/run
    subprocess.run([sys.executable, "-m", "compileall", "-q", "timekeeper", "tests"], cwd=ROOT, env=environment, check=True)
    cpu, started = busy_cpu_s(), time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=environment)
    cpu, wall = busy_cpu_s() - cpu, time.monotonic() - started
    print(f"wall {wall // 60:.0f}:{wall % 60:04.1f}; machine CPU {cpu:.0f} s ({cpu / wall:.2f} cores busy on average); "
          f"pytest exit status {done.returncode}")
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
