"""Speed of the ship's log (issue 13), on a log of a club's lifetime.

Run from the repository root:  python benchmarks/bench_log.py [--runs 5] [--missions 10000]

Makes a log of MISSIONS single missions (12 crews, all official tracks) plus 100 campaigns through
the library API, then times whole commands (start-up included):
  timekeeper log add ...                  under 0.5 s
  timekeeper log list / log stats         under 1 s
  timekeeper log export -o log.csv        under 1 s
  timekeeper log import <1,000 rows>      under 2 s (into an empty log)
  timekeeper log print -o log.pdf         under 5 s for 1,000 missions
and, in process, record_mission() of one mission (the web form's path), under 20 ms.
Prints the median and worst of N runs.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.logbook.shiplog import ShipLog  # noqa: E402
from timekeeper.scenario.catalog import builtin_paths  # noqa: E402

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lea", "Max", "Ned"]


def command() -> list[str]:
    installed = shutil.which("timekeeper")
    return [installed] if installed else [sys.executable, "-m", "timekeeper"]


def mission_values(rng: random.Random, tracks: list[str]) -> dict[str, str]:
    crew = rng.sample(NAMES, rng.choice((4, 5)))
    crew[0] += ":captain"
    values = {"crew": ", ".join(crew), "track": rng.choice(tracks), "date": f"20{rng.randint(10, 25)}-"
              f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", "common": rng.choice("12"),
              "serious": rng.choice(("1", "2", "1+2")), "survived": str(rng.randint(0, 12)),
              "destroyed": str(rng.randint(0, 40)), "damage": f"red={rng.randint(0, 6)},white={rng.randint(0, 6)},"
              f"blue={rng.randint(0, 6)}", "knocked_out": str(rng.randint(0, 2)),
              "disabled_squads": str(rng.randint(0, 2)), "visual_confirmation": str(rng.randint(0, 10))}
    if rng.random() < 0.15:
        values["destroyed_by"] = "Behemoth"
    return values


def build(path: Path, missions: int, campaigns: int) -> float:
    """Fill a log; the mean seconds of one record_mission() call."""
    rng = random.Random(13)
    tracks = [name for name, p in builtin_paths().items() if p.parent.name == "official"]
    with ShipLog.open(path) as log:
        start = time.perf_counter()
        for _ in range(missions):
            log.record_mission(mission_values(rng, tracks))
        per_call = (time.perf_counter() - start) / missions
        for _ in range(campaigns):
            crew = ", ".join(rng.sample(NAMES, 4))
            log.start_campaign({"crew": crew}, rng=rng)
            for number in range(3):
                if number:
                    log.next_mission({}, rng=rng)
                log.record_mission({"campaign": "current", "survived": str(rng.randint(0, 10)),
                                    "destroyed": str(rng.randint(0, 30)), "visual_confirmation": "3",
                                    "damage": f"red={number},white={number}"})
    return per_call


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
    parser.add_argument("--missions", type=int, default=10_000)
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        big, small = work / "big.sqlite3", work / "small.sqlite3"
        per_call_s = build(big, args.missions, 100)
        build(small, 1000, 0)
        subprocess.run(command() + ["log", "--db", str(small), "export", "-o", str(work / "small.csv")], check=True,
                       capture_output=True)
        total = args.missions + 300
        cases = {
            f"log add (log of {total})": (["log", "--db", str(big), "add", "--crew", "Ann, Bob, Cid, Dee", "--track",
                                           "mission-3", "--destroyed", "12", "--no-prompt"], 0.5),
            f"log list ({total} missions)": (["log", "--db", str(big), "list"], 1.0),
            f"log stats ({total} missions)": (["log", "--db", str(big), "stats"], 1.0),
            f"log export -o log.csv ({total})": (["log", "--db", str(big), "export", "-o", str(work / "x.csv")], 1.0),
            "log print -o log.pdf (1,000 missions)": (["log", "--db", str(small), "print", "-o", str(work / "l.pdf")],
                                                      5.0),
        }
        for label, (arguments, target_s) in cases.items():
            seconds = time_runs(arguments, args.runs)
            median, worst = statistics.median(seconds), max(seconds)
            failed |= median >= target_s
            print(f"{label:42s} median {median:6.3f} s  worst {worst:6.3f} s  target {target_s:.1f} s  "
                  f"{'ok' if median < target_s else 'TOO SLOW'}")
        imports = []
        for run in range(args.runs):
            target = work / f"import-{run}.sqlite3"
            start = time.perf_counter()
            subprocess.run(command() + ["log", "--db", str(target), "import", str(work / "small.csv")], check=True,
                           capture_output=True)
            imports.append(time.perf_counter() - start)
        median = statistics.median(imports)
        failed |= median >= 2.0
        print(f"{'log import <1,000 rows> (empty log)':42s} median {median:6.3f} s  worst {max(imports):6.3f} s  "
              f"target 2.0 s  {'ok' if median < 2.0 else 'TOO SLOW'}")
        verdict = "ok" if per_call_s < 0.02 else "TOO SLOW"
        failed |= per_call_s >= 0.02
        print(f"{'record_mission() in process (mean)':42s} {per_call_s * 1000:6.2f} ms  target 20 ms  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
