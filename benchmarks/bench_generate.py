"""Benchmark of the mission generator (issue 5 targets).

    python benchmarks/bench_generate.py            # full: 10,000 seeds of every kind and crew size
    python benchmarks/bench_generate.py --seeds 1000

The rate counts the CPU time of this process (time.process_time), so other jobs on the shared
2-core machine do not skew it; the wall-clock rate is printed beside it.

Targets: every one of 10,000 consecutive seeds gives a mission that keeps every rule (and 2,000
of each of three non-default settings, with the rules they relax);
at least 2,000 missions per second in one process (generation alone); `timekeeper generate`
of one mission end to end under 0.5 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.generate import GenerateOptions, generate  # noqa: E402
from timekeeper.generate.cues import cue_lengths  # noqa: E402
from timekeeper.generate.options import KINDS  # noqa: E402
from timekeeper.generate.rules import FAST_RULES, RULES, check_generated  # noqa: E402


def validity(seeds: int) -> bool:
    """Every seed 0..seeds-1 of every kind and crew size, checked with every rule (overlaps in en, de, es)."""
    ok = True
    for kind in KINDS:
        for players in (4, 5):
            options = GenerateOptions(kind=kind, players=players)
            started = time.perf_counter()
            failures = {}
            for seed in range(seeds):
                problems = check_generated(generate(seed, options), options)
                if problems:
                    failures[seed] = problems
            seconds = time.perf_counter() - started
            print(f"  {kind:13} {players} players: {seeds - len(failures)}/{seeds} seeds valid "
                  f"({seconds:.1f} s with all rules)")
            for seed, problems in list(failures.items())[:3]:
                print(f"    seed {seed}: {problems[0]}")
            ok = ok and not failures
    return ok


SETTINGS = {  # non-default settings, each checked on every seed like the defaults
    "mission, every setting": GenerateOptions(length_ms=720_000, outages=(3, 5), outage_length_ms=(10_000, 20_000),
                                              incoming_data=(2, 4), data_transfers=(4, 5), ambush_percent=30,
                                              max_serious=2, max_internal=3, threat_colors=("white", "yellow")),
    "double-action, crowded": GenerateOptions(kind="double-action", outages=(6, 6), data_transfers=(7, 7),
                                              ambush_percent=100, threat_colors=("white", "yellow", "red")),
    "simulation, short": GenerateOptions(kind="simulation", phase_lengths_ms=(200_000, 190_000, 120_000),
                                         outages=(1, 2), max_internal=0),
}


def settings_validity(seeds: int) -> bool:
    """Every seed 0..seeds-1 of each non-default setting, checked with every rule (relaxed by the settings)."""
    ok = True
    for name, options in SETTINGS.items():
        failures = {seed: p for seed in range(seeds) if (p := check_generated(generate(seed, options), options))}
        print(f"  {name:27}: {seeds - len(failures)}/{seeds} seeds valid")
        for seed, problems in list(failures.items())[:3]:
            print(f"    seed {seed}: {problems[0]}")
        ok = ok and not failures
    return ok


def rate(count: int) -> dict[str, float]:
    """Missions per second: generation alone, then with the fast rules, then with every rule."""
    cue_lengths()  # measured once per process, as in every real run
    found = {}
    for name, options in SETTINGS.items():
        started, cpu_started = time.perf_counter(), time.process_time()
        for seed in range(count):
            generate(seed, options)
        found[f"generate {name}"] = count / (time.process_time() - cpu_started)
        found[f"  (wall clock) {name}"] = count / (time.perf_counter() - started)
    for kind in KINDS:
        options = GenerateOptions(kind=kind)
        started, cpu_started = time.perf_counter(), time.process_time()
        missions = [generate(seed, options) for seed in range(count)]
        found[f"generate {kind}"] = count / (time.process_time() - cpu_started)
        found[f"  (wall clock) {kind}"] = count / (time.perf_counter() - started)
        started = time.perf_counter()
        for mission in missions:
            check_generated(mission, options, rules=FAST_RULES)
        found[f"rules without overlap {kind}"] = count / (time.perf_counter() - started)
        started = time.perf_counter()
        for mission in missions[: count // 4]:
            check_generated(mission, options, rules=RULES)
        found[f"all rules {kind}"] = (count // 4) / (time.perf_counter() - started)
    return found


def end_to_end(runs: int) -> list[float]:
    """Wall time of `timekeeper generate --seed 4711 -o FILE` in a fresh process."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "timekeeper", "generate", "--seed", "4711", "-o", "m.yaml"],
                           cwd=folder, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10_000, help="consecutive seeds to check (default 10,000)")
    parser.add_argument("--rate-count", type=int, default=20_000, help="missions per kind for the rate")
    arguments = parser.parse_args()

    print(f"Validity: seeds 0..{arguments.seeds - 1}")
    valid = validity(arguments.seeds)
    print(f"Validity of non-default settings: seeds 0..{arguments.seeds // 5 - 1}")
    valid = settings_validity(arguments.seeds // 5) and valid
    print(f"Rate: {arguments.rate_count} missions per kind, one process")
    rates = rate(arguments.rate_count)
    for name, per_second in rates.items():
        print(f"  {name:36} {per_second:8.0f} missions/s")
    times = end_to_end(7)
    print(f"End to end: timekeeper generate --seed 4711 -o m.yaml: median {statistics.median(times):.3f} s, "
          f"max {max(times):.3f} s over {len(times)} runs")
    fast_enough = min(v for k, v in rates.items() if k.startswith("generate")) >= 2000
    quick = statistics.median(times) < 0.5
    print(f"Targets: all seeds valid {'OK' if valid else 'FAILED'}; >= 2,000/s {'OK' if fast_enough else 'FAILED'}; "
          f"< 0.5 s end to end {'OK' if quick else 'FAILED'}")
    return 0 if valid and fast_enough and quick else 1


if __name__ == "__main__":
    sys.exit(main())
