"""Benchmark of `timekeeper live`: cue timing measured from outside the process, and start-up time.

Runs `timekeeper live SCENARIO --backend null` with stdout piped, timestamps every line as
it arrives, and compares each cue's arrival with its scheduled time in the timeline:
before a pause relative to the first cue line, after a pause relative to the "Resumed."
line (whose mission time is printed to the millisecond). Keys are written to stdin.

    python benchmarks/bench_live.py mission-5                         # whole mission, ~10 min
    python benchmarks/bench_live.py mission-5 --pause-at 200 --pause-for 7
    python benchmarks/bench_live.py mission-5 --start-at 8:30         # a shorter run
    python benchmarks/bench_live.py mission-5 --silent                # silence instead of speech

Targets: every cue within 10 ms; enter to "Alert. Enemy activity detected" under 3 s (warm cache).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import threading
import time

SILENT_DRIVER = """
import sys
import timekeeper.live.mission as mission
from timekeeper.live.silent import silent_mix
mission.prepare = lambda scenario, settings, progress: silent_mix(
    scenario, settings.language, players=settings.players, solo=settings.solo)
from timekeeper.cli import main
raise SystemExit(main(sys.argv[1:]))
"""
LINE = re.compile(r"^(\d+):(\d\d)(?:\.(\d{1,3}))? (.*)$")


def timeline_cues(scenario: str, silent: bool) -> list[tuple[int, str]]:
    """(at_ms, text) of every cue, from the same timeline the program plays."""
    from timekeeper.scenario.catalog import load_scenario

    loaded = load_scenario(scenario)
    if silent:
        from timekeeper.live.silent import silent_mix

        timeline = silent_mix(loaded, loaded.language or "en").timeline
    else:
        from timekeeper.soundtrack.mix import MixSettings, prepare_mix

        timeline = prepare_mix(loaded, MixSettings(language=loaded.language or "en")).timeline
    return [(cue.at_ms, cue.text) for cue in timeline.cues]


def run(args: argparse.Namespace) -> list[tuple[float, str]]:
    """Start the program; returns (arrival seconds since launch, line) for every stdout line."""
    command = [sys.executable, "-c", SILENT_DRIVER] if args.silent else [sys.executable, "-m", "timekeeper"]
    command += ["live", args.scenario, "--backend", "null", "--start-at", args.start_at]
    launched = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    if args.pause_at is not None:
        threading.Thread(target=press_space, args=(process, launched, args), daemon=True).start()
    lines = []
    for line in process.stdout:  # type: ignore[union-attr]
        lines.append((time.monotonic() - launched, line.rstrip("\n")))
    process.wait()
    if process.returncode != 0:
        raise SystemExit(f"timekeeper live exited with {process.returncode}")
    return lines


def press_space(process: subprocess.Popen[str], launched: float, args: argparse.Namespace) -> None:
    for at_s in (args.pause_at, args.pause_at + args.pause_for):
        time.sleep(max(0.0, launched + at_s - time.monotonic()))
        process.stdin.write(" ")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]


def mission_ms(match: re.Match[str]) -> int:
    minutes, seconds, fraction = match.group(1), match.group(2), match.group(3) or "0"
    return (int(minutes) * 60 + int(seconds)) * 1000 + int(fraction.ljust(3, "0"))


def measure(lines: list[tuple[float, str]], cues: list[tuple[int, str]], start_ms: int) -> list[tuple[int, float, str]]:
    """(scheduled ms, error ms, text) of every cue line."""
    due = [cue for cue in cues if cue[0] >= start_ms]
    reference: tuple[float, float] | None = None  # (arrival s, mission ms) the errors are relative to
    results = []
    for arrival_s, line in lines:
        match = LINE.match(line)
        if not match:
            break  # the card follows the cue lines
        text = match.group(4)
        if text == "Resumed.":
            reference = (arrival_s, mission_ms(match))
            continue
        if text == "Paused.":
            continue
        at_ms, expected = due.pop(0)
        assert text == expected, f"line {line!r} does not match the cue {expected!r}"
        if reference is None:
            reference = (arrival_s, at_ms)
        error_ms = (arrival_s - reference[0]) * 1000 - (at_ms - reference[1])
        results.append((at_ms, error_ms, text))
    assert not due, f"{len(due)} cues never came"
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", default="mission-5")
    parser.add_argument("--start-at", default="0:00")
    parser.add_argument("--pause-at", type=float, default=None, help="seconds after launch to press space")
    parser.add_argument("--pause-for", type=float, default=5.0)
    parser.add_argument("--silent", action="store_true", help="silence over the timeline instead of the real mix")
    args = parser.parse_args()

    from timekeeper.grammar.times import format_time, parse_time_ms

    start_ms = parse_time_ms(args.start_at)
    cues = timeline_cues(args.scenario, args.silent)  # also warms the synthesis cache
    lines = run(args)
    results = measure(lines, cues, start_ms)
    errors = [abs(error) for _, error, _ in results]
    for at_ms, error, text in results:
        print(f"{format_time(at_ms, precise=True):>10}  {error:+7.2f} ms  {text[:60]}")
    print(f"\n{len(results)} cues; |error| max {max(errors):.2f} ms, mean {statistics.mean(errors):.2f} ms, "
          f"median {statistics.median(errors):.2f} ms (target: every cue within 10 ms)")
    if start_ms == 0:
        print(f"launch to 'Alert. Enemy activity detected': {lines[0][0]:.2f} s (target: under 3 s with a warm cache)")
    if max(errors) > 10:
        raise SystemExit("FAIL: a cue was more than 10 ms off")


if __name__ == "__main__":
    main()
