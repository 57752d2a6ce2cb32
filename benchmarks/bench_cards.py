"""Speed of printed cards and FlashPlayerCode import (issue 6 targets).

Run from the repository root:  python benchmarks/bench_cards.py [--runs 5]

Targets, timed as whole commands (start-up included):
  timekeeper card --all-official -o official-cards.pdf     under 5 s
  timekeeper import <file of 1,000 codes> -o folder/        under 2 s
The file of codes is made here: the 34 official tracks' codes, cycled to 1,000 `name<TAB>code`
lines, every third one rewritten with four-digit times. Prints the median and worst of N runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.scenario.catalog import builtin_paths, load_scenario  # noqa: E402
from timekeeper.scenario.flashcode import format_flashcode  # noqa: E402

LINES = 1000


def command() -> list[str]:
    installed = shutil.which("timekeeper")
    return [installed] if installed else [sys.executable, "-m", "timekeeper"]


def code_file(path: Path) -> Path:
    codes = [format_flashcode(load_scenario(name)) for name, p in builtin_paths().items()
             if p.parent.name == "official"]
    lines = []
    for index in range(LINES):
        code = codes[index % len(codes)]
        if index % 3 == 0:
            code = ",".join(token.rjust(len(token) + 1, "0") if token[3].isalpha() else token
                            for token in code.split(","))
        lines.append(f"Fan track {index + 1}\t{code}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def time_runs(args: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command() + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        codes = code_file(work / "codes.txt")
        cases = {
            "card --all-official -o official-cards.pdf": (["card", "--all-official", "-o", str(work / "o.pdf")], 5.0),
            "card --all-official --lang de --per-page 1": (
                ["card", "--all-official", "--lang", "de", "--per-page", "1", "-o", str(work / "d.pdf")], 5.0),
            f"import <{LINES} codes> -o folder/": (["import", str(codes), "-o", str(work / "out")], 2.0),
        }
        for label, (arguments, target_s) in cases.items():
            seconds = time_runs(arguments, args.runs)
            median, worst = statistics.median(seconds), max(seconds)
            verdict = "ok" if median < target_s else "TOO SLOW"
            failed |= median >= target_s
            print(f"{label:48s} median {median:6.3f} s  worst {worst:6.3f} s  target {target_s:.0f} s  {verdict}")
        written = len(list((work / "out").glob("*.yaml")))
        print(f"(import wrote {written} scenario files)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
