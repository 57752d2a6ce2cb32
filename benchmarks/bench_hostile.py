"""How long the worst inputs of issue 14 take to be refused (or handled), as whole commands.

Run from the repository root:  python benchmarks/bench_hostile.py [--runs 3]

Target: every case ends in under 1 s (start-up included) with its documented exit code; before
the fixes some hung for good (a FIFO, /dev/zero), others took minutes (a one-sample WAV as
--music: 87 s to 190 s; a 1 MB FlashPlayerCode file: 370 s). Prints the median and worst of N runs
per case and the slowest case overall.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

from timekeeper.errors import ExitStatus  # the documented exit codes

LIMIT_S = 1.0
TIMEOUT_S = 60
VALID = "title: Bench\nphase_ends: ['3:00', '6:00']\nevents:\n  - {at: '1:00', type: data_transfer}\n"


def command() -> list[str]:
    installed = shutil.which("timekeeper")
    return [installed] if installed else [sys.executable, "-m", "timekeeper"]


def world(root: Path) -> list[tuple[str, list[str], int, str | None]]:
    """(name, arguments, expected exit code, stdin file) of each case."""
    valid = root / "valid.yaml"
    valid.write_text(VALID)
    fifo = root / "fifo.yaml"
    os.mkfifo(fifo)
    title = root / "title.yaml"
    title.write_text(VALID.replace("Bench", "T" * 240_000))
    music = root / "one.wav"
    with wave.open(str(music), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(44100)
        handle.writeframes(b"\x10\x00")
    codes = root / "codes.txt"
    codes.write_text("x\t010AL1TW,050ID,340PE1,700PE2\n" * 33_000)  # 1 MB
    pack = root / "pack"
    pack.mkdir()
    bomb = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    bomb += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    (pack / "pack.yaml").write_text("\n".join(bomb) + "\n")
    deep = root / "deep.yaml"
    deep.write_text("a: " + "[" * 50_000 + "]" * 50_000)
    return [
        ("FIFO as scenario", ["show", str(fifo)], ExitStatus.INVALID_SCENARIO, None),
        ("/dev/zero as scenario", ["validate", "/dev/zero"], ExitStatus.INVALID_SCENARIO, None),
        ("240 KB title, card", ["card", str(title), "-o", str(root / "c.pdf")], ExitStatus.INVALID_SCENARIO, None),
        ("one-sample WAV as --music (render)", ["render", str(valid), "--music", str(music), "-o", str(root / "m.wav")], ExitStatus.SUCCESS, None),
        ("1 MB of codes on stdin", ["import", "-", "-o", str(root / "imported") + "/"], ExitStatus.INVALID_SCENARIO, str(codes)),
        ("alias bomb in pack.yaml (plan --voice)", ["plan", str(valid), "--voice", str(pack)], ExitStatus.SUCCESS, None),
        ("nested 50,000 deep", ["validate", str(deep)], ExitStatus.INVALID_SCENARIO, None),
        ("-o /dev/null (export)", ["export", str(valid), "-o", "/dev/null"], ExitStatus.OUTPUT, None),
        ("export over its own input", ["export", str(valid), "--format", "yaml", "-o", str(valid)], ExitStatus.OUTPUT, None),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    worst_overall = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        env = {**os.environ, "TIMEKEEPER_CACHE": str(root / "cache")}
        cases = world(root)
        subprocess.run([*command(), "render", str(root / "valid.yaml"), "-o", str(root / "warm.wav")],
                       env=env, capture_output=True, check=True)  # warm the clip cache
        for name, args, expected, stdin in cases:
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
                    done = subprocess.run([*command(), *args], stdin=source, capture_output=True, env=env, timeout=TIMEOUT_S)
                times.append(time.perf_counter() - started)
                if done.returncode != expected:
                    sys.exit(f"{name}: exit {done.returncode}, expected {expected}: {done.stderr.decode()[-300:]}")
            worst_overall = max(worst_overall, max(times))
            print(f"{name:<42} exit {expected}  median {statistics.median(times):.2f} s  worst {max(times):.2f} s")
    verdict = "OK" if worst_overall < LIMIT_S else "SLOW"
    print(f"slowest case: {worst_overall:.2f} s (target < {LIMIT_S:.0f} s): {verdict}")


if __name__ == "__main__":
    main()
