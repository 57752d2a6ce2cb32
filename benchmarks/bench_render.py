"""Render speed, memory and install size, measured from outside the process (as a user runs it).

    python benchmarks/bench_render.py [--runs 3]

1. ffmpeg alone (only where the ffmpeg program is installed; timekeeper does not need it): encode
   the 10-minute PCM of mission-1 (the exact samples a render produces, 16-bit mono 44.1 kHz) to
   mp3 at the same bitrate: the baseline.
2. warm render: `timekeeper render mission-1 -o out.mp3` with every clip cached, with the default
   voice (Piper's joe for English) and with the synthesized voice (espeak-ng).
3. cold render: the same with an empty clip cache, per voice, each run right before a warm one: the
   phrases are drafted, the timeline laid out and the encoder started while the phrases are
   levelled in the background; the effects, and joe's English phrases, come from the clips that
   ship with timekeeper (voices/seed/), espeak-ng's English phrases are synthesized; its German
   ones ship too (as those of es, fr, it, pl, cs).
4. peak RSS of a warm render of a 10-minute and of a 40-minute scenario.
5. install size: the files of timekeeper and every package `pip install` brings with it.
Targets: warm <= 1.15x baseline, cold <= 1.5x warm, 40-minute RSS <= 1.1x the 10-minute one.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Writes the exact PCM a render of mission-1 streams (and fills the clip cache), in a child
# process, so this process stays small: a child's peak RSS counts the parent it was forked from.
WRITE_PCM = """
import sys
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.scenario.catalog import load_scenario
mix = prepare_mix(load_scenario("mission-1"), MixSettings())
with open(sys.argv[1], "wb") as handle:
    for chunk in mix.pcm():
        handle.write(chunk)
print(mix.duration_ms)
"""

FORTY_MINUTES = """title: "Forty minutes"
phase_ends: ["13:20", "26:40", "40:00"]
events:
"""


LAST_CPU_S: list[float] = []  # the CPU seconds of every timed() run, in order


def timed(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB, the largest of the process and its children) of `command`;
    its CPU seconds (the figure a machine shared with other work disturbs least) go to LAST_CPU_S."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(command)}: {process.stderr.read().decode() if process.stderr else ''}")
    LAST_CPU_S.append(usage.ru_utime + usage.ru_stime)
    return elapsed, usage.ru_maxrss


def best(command: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of `runs` runs of `command`."""
    walls = [timed(command, env)[0] for _ in range(runs)]
    return min(walls), min(LAST_CPU_S[-runs:])


def install_size(name: str = "timekeeper") -> tuple[int, dict[str, int]]:
    """Bytes on disk of distribution `name` and everything it requires (not its extras), and the
    bytes of each of them."""
    from packaging.requirements import Requirement

    sizes: dict[str, int] = {}
    todo = [name]
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in sizes:
            continue
        sizes[key] = sum(Path(str(dist.locate_file(f))).stat().st_size for f in dist.files or ()
                         if Path(str(dist.locate_file(f))).is_file())
        for line in dist.requires or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(re.sub(r"[-_.]+", "-", requirement.name).lower())
    return sum(sizes.values()), sizes


def forty_minute_scenario(folder: Path) -> Path:
    lines = [FORTY_MINUTES]
    for minute in range(40):
        base = minute * 60
        if minute % 13 in (2, 5, 8):
            lines.append(f'  - {{at: "{base // 60}:15", type: data_transfer}}\n')
        if minute % 4 == 1:
            lines.append(f'  - {{at: "{base // 60}:35", type: incoming_data}}\n')
        if minute % 5 == 3:
            lines.append(f'  - {{at: "{base // 60}:40", type: comms_down, until: "{base // 60}:55"}}\n')
    path = folder / "forty.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    ffmpeg = shutil.which("ffmpeg")

    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        warm_cache = scratch / "warm-cache"
        # TIMEKEEPER_DEFAULT_VOICE, language: English's espeak-ng phrases are not shipped, German's are
        voices = {"joe (default)": ("", "en"), "espeak-ng": ("synthesized", "en"), "espeak-ng, de": ("synthesized", "de")}
        render = [sys.executable, "-m", "timekeeper", "render", "mission-1", "-o", str(scratch / "out.mp3")]
        warm, cold = {}, {}
        for voice, (variable, language) in voices.items():
            env = {**os.environ, "TIMEKEEPER_CACHE": str(warm_cache), "TIMEKEEPER_DEFAULT_VOICE": variable}
            spoken = [*render, "--lang", language]
            timed(spoken, env)  # fills the warm cache
            cold_runs, warm_runs = [], []
            for run in range(args.runs):  # cold and warm in turn, so a busy spell of the machine slows both
                cold_env = {**env, "TIMEKEEPER_CACHE": str(scratch / f"cold-{variable}-{language}-{run}")}
                cold_runs.append((timed(spoken, cold_env)[0], LAST_CPU_S[-1]))
                warm_runs.append((timed(spoken, env)[0], LAST_CPU_S[-1]))
            cold[voice] = (min(wall for wall, _ in cold_runs), min(cpu for _, cpu in cold_runs))
            warm[voice] = (min(wall for wall, _ in warm_runs), min(cpu for _, cpu in warm_runs))

        env = {**os.environ, "TIMEKEEPER_CACHE": str(warm_cache)}
        pcm = scratch / "mission-1.pcm"
        written = subprocess.run([sys.executable, "-c", WRITE_PCM, str(pcm)], env=env, capture_output=True, text=True)
        if written.returncode != 0:
            raise SystemExit(f"failed to write the PCM: {written.stderr}")
        minutes = int(written.stdout) / 60_000
        baseline = None
        if ffmpeg is not None:
            encode = [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "s16le", "-ar", "44100",
                      "-ac", "1", "-i", str(pcm), "-c:a", "libmp3lame", "-b:a", "128k", str(scratch / "ffmpeg.mp3")]
            baseline = best(encode, env, args.runs)

        long_path = forty_minute_scenario(scratch)
        timed([*render[:4], str(long_path), "-o", str(scratch / "warm-up.mp3")], env)  # fill the cache
        rss_10 = min(timed(render, env)[1] for _ in range(2))
        rss_40 = min(timed([*render[:4], str(long_path), "-o", str(scratch / "forty.mp3")], env)[1] for _ in range(2))
    total, sizes = install_size()

    print(f"track: mission-1, {minutes:.1f} min, mp3 128 kbit/s mono 44.1 kHz; best of {args.runs}")
    if baseline is not None:
        print(f"ffmpeg alone               {baseline[0]:6.2f} s wall, {baseline[1]:5.2f} s CPU (the ffmpeg program;"
              " timekeeper does not use it)")
    for voice in voices:
        (wall, cpu), (cold_wall, cold_cpu) = warm[voice], cold[voice]
        ratio = (f"  = {wall / baseline[0]:.2f}x / {cpu / baseline[1]:.2f}x ffmpeg alone (target <= 1.15x)"
                 if baseline else "")
        print(f"warm render, {voice:<13} {wall:6.2f} s wall, {cpu:5.2f} s CPU{ratio}")
        print(f"cold render, {voice:<13} {cold_wall:6.2f} s wall, {cold_cpu:5.2f} s CPU"
              f"  = {cold_wall / wall:.2f}x / {cold_cpu / cpu:.2f}x warm (target <= 1.50x)")
    print(f"peak RSS 10 min            {rss_10 / 1024:6.1f} MiB")
    print(f"peak RSS 40 min            {rss_40 / 1024:6.1f} MiB  = {rss_40 / rss_10:.2f}x  (target <= 1.10x)")
    largest = ", ".join(f"{name} {size / 2**20:.0f}" for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:6])
    print(f"install size               {total / 2**20:6.1f} MiB in {len(sizes)} packages (largest, MiB: {largest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
