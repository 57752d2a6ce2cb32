"""A CD's worth in one command: how long `timekeeper render --all-official -o DIR/` takes, as a user runs it.

    python benchmarks/bench_batch.py                      # all 34 official tracks, mp3, the default voice
    python benchmarks/bench_batch.py --kind mission --format ogg --lang de

1. the whole batch, from nothing (the clip cache as it is: warm after any earlier render);
2. the same command again: every track kept (its fingerprint read from the file's tags), only the
   playlist written;
3. the batch stopped (SIGINT) once half of its tracks are written, then run again: the kept half
   is not rendered twice.
Prints wall and CPU seconds (the process and its children), the hours of sound made, and the
speed in minutes of sound per second of wall time.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of `command` (with its children), and its stdout; fails loudly."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{stderr}")
    return wall, _children_cpu(), stdout  # (communicate reaped it: its CPU is in RUSAGE_CHILDREN)


_SEEN_CPU = [0.0]


def _children_cpu() -> float:
    """CPU seconds the children used since the last call."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    spent, _SEEN_CPU[0] = total - _SEEN_CPU[0], total
    return spent


def stopped_half_way(command: list[str], env: dict[str, str], folder: Path, tracks: int) -> float:
    """Run `command`, send SIGINT once half the tracks are written; its wall seconds."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    while process.poll() is None and len([p for p in folder.glob("[0-9]*") if not p.name.startswith(".")]) < tracks // 2:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    status = process.wait()
    if status != 130:
        raise SystemExit(f"the stopped batch exited with {status}, not 130")
    _children_cpu()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", action="append", default=[], help="only these kinds (as render --kind)")
    parser.add_argument("--format", default="mp3", choices=["mp3", "ogg", "flac", "wav"])
    parser.add_argument("--lang", default=None)
    parser.add_argument("--skip-resume", action="store_true", help="leave out step 3")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "cd"
        picks = [f"--kind={kind}" for kind in args.kind] or ["--all-official"]
        command = [sys.executable, "-m", "timekeeper", "render", *picks, "--format", args.format, "-o", f"{folder}/",
                   *(["--lang", args.lang] if args.lang else [])]
        _children_cpu()
        wall, cpu, stdout = run(command, env)
        tracks = sorted(folder.glob("[0-9]*"))
        sound_s = sum(_seconds(path) for path in tracks)
        print(f"batch: {len(tracks)} tracks, {sound_s / 3600:.2f} h of sound ({args.format}), "
              f"{sum(p.stat().st_size for p in tracks) / 1e6:.0f} MB")
        print(f"  from nothing: {wall:.1f} s wall, {cpu:.1f} s CPU ({wall / len(tracks):.1f} s a track; "
              f"{sound_s / 60 / wall:.1f} min of sound per second)")
        wall, cpu, stdout = run(command, env)
        kept = stdout.count("rendered before with these settings")
        print(f"  again, all kept: {wall:.1f} s wall, {cpu:.1f} s CPU ({kept} of {len(tracks)} tracks kept)")
        if not args.skip_resume:
            for path in tracks[len(tracks) // 2:]:
                path.unlink()
            (folder / "playlist.m3u").unlink()
            for path in tracks[: len(tracks) // 2]:
                os.utime(path)  # (unchanged content: still kept)
            wall, cpu, stdout = run(command, env)
            print(f"  half kept, half rendered: {wall:.1f} s wall, {cpu:.1f} s CPU "
                  f"({stdout.count('rendered before')} kept, {stdout.count('Wrote ')} written)")
            for path in folder.iterdir():
                path.unlink()
            stop_wall = stopped_half_way(command, env, folder, len(tracks))
            wall, cpu, stdout = run(command, env)
            print(f"  stopped with Ctrl-C after half ({stop_wall:.1f} s), then run again: {wall:.1f} s wall, {cpu:.1f} s CPU "
                  f"({stdout.count('rendered before')} kept, {stdout.count('Wrote ')} written)")
    return 0


def _seconds(path: Path) -> float:
    import av

    with av.open(str(path)) as container:
        return container.duration / 1_000_000


if __name__ == "__main__":
    sys.exit(main())
