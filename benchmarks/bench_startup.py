"""Start-up and validation speed of the command line (issue 2 targets).

Run from the repository root:  python benchmarks/bench_startup.py [--runs 15]

Targets: `timekeeper --help` and `timekeeper validate FILE` under 0.3 s;
validating all 34 official tracks under 1 s. Prints the median and worst of N runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFICIAL = sorted(str(p) for p in (ROOT / "scenarios" / "official").glob("*.yaml"))
CASES = {
    "timekeeper --help": (["--help"], 0.3),
    "timekeeper validate mission-1.yaml": (["validate", str(ROOT / "scenarios/official/mission-1.yaml")], 0.3),
    f"timekeeper validate <{len(OFFICIAL)} official files>": (["validate", *OFFICIAL], 1.0),
}


def command() -> list[str]:
    installed = shutil.which("timekeeper")
    return [installed] if installed else [sys.executable, "-m", "timekeeper"]


def time_runs(args: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command() + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    failed = False
    for label, (args, target_s) in CASES.items():
        seconds = time_runs(args, runs)
        median, worst = statistics.median(seconds), max(seconds)
        verdict = "ok" if median < target_s else "TOO SLOW"
        failed |= median >= target_s
        print(f"{label:45s} median {median:.3f} s  worst {worst:.3f} s  target < {target_s} s  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
