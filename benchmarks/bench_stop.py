"""How fast every long command stops on a loaded machine (issue 34): Ctrl-C, SIGTERM or SIGHUP sent
in the middle of its work, with two busy processes keeping the cores loaded beside it.

Run from the repository root:  python benchmarks/bench_stop.py [--runs 3] [--signal INT|TERM|HUP] [--only NAME]

The cases are the ones tests/test_stopping.py checks (tests/stops.py: a cold synthesis with
espeak-ng and Piper, an encode, live, generate --count 100000, stats --count 1000000, validate,
card, import, the log's print and import, voice export and install). Target: every run out within
1 s of the signal at a load average of 5 (the two busy processes and the machine's own), with the
stop's exit code, the old output kept and nothing left behind. Prints the median and worst per
case with the load average, and where a run was stuck (py-spy dump, when installed).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stops import busy_cores, cases, make_inputs, slow_repository, stop_run  # noqa: E402

TARGET_S = 1.0
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP}
EXPECTED = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 143}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--signal", choices=sorted(SIGNALS), default="INT")
    parser.add_argument("--only", default="", help="only the cases whose name holds this text")
    options = parser.parse_args()
    signum = SIGNALS[options.signal]
    os.environ.setdefault("TIMEKEEPER_DEFAULT_VOICE", "synthesized")  # the cases choose Piper where they test it
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-stop-") as scratch:
        base = Path(scratch)
        (base / "inputs").mkdir()
        inputs = make_inputs(base / "inputs")
        with slow_repository() as url, busy_cores(2):
            for name, case in cases(inputs, url).items():
                if options.only not in name:
                    continue
                seconds, problems = [], []
                for run in range(options.runs):
                    folder = base / f"{len(list(base.iterdir()))}"
                    folder.mkdir()
                    stopped = stop_run(case, signum, folder)
                    seconds.append(stopped.exit_s)
                    if stopped.returncode != EXPECTED[signum]:
                        problems.append(f"exit {stopped.returncode}")
                    if stopped.old_output_kept is False:
                        problems.append("old output replaced")
                    if stopped.left_in_tmp or stopped.left_scratch or stopped.children_left:
                        problems.append(f"left {stopped.left_in_tmp + stopped.left_scratch} {stopped.children_left}")
                    if stopped.stuck_in:
                        print(f"  {name}, run {run + 1}: stuck in\n{stopped.stuck_in}")
                worst = max(seconds)
                verdict = "ok" if worst < TARGET_S and not problems else "TOO SLOW" if not problems else "; ".join(problems)
                failed |= verdict != "ok"
                print(f"{name:28s} median {statistics.median(seconds):5.2f} s  worst {worst:5.2f} s  "
                      f"target < {TARGET_S} s  {verdict}  (load average {os.getloadavg()[0]:.1f})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
