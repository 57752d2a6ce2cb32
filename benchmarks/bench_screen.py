"""Benchmark of a playing mission screen: the CPU a phone's browser spends drawing it, with a real
server on loopback and Debian's headless chromium (a phone at 360x640, pixel ratio 2).

    python benchmarks/bench_screen.py                  # 10 s of mission 1 in English, phone size
    python benchmarks/bench_screen.py --seconds 30 --language de --laptop

Measures, over the window, while the mission plays (its sound too, muted):
- the browser's CPU (chromedriver and every Chromium process under it), as a share of one core;
- the server's CPU (its encoder child included), the same way;
- animation frames drawn per second, and changes to the page (DOM mutations under #game) per second.
A screen draws a frame per screen refresh but writes to the page only what changed (dom.js change()).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from accessibility import open_screen
from bench_scaleout import cpu_s
from processes import family
from serving import LAPTOP, PHONE, chromium, counted, start_counting, start_server

SETTLE_S = 5.0  # after the screen opens: its sound file is made, its first announcements said


def cpu_of(pid: int) -> float:
    total = 0.0
    for member in family(pid):
        try:
            total += cpu_s(member)
        except OSError:  # ended meanwhile
            pass
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="example: python benchmarks/bench_screen.py --seconds 30 --language de")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to measure (default 10)")
    parser.add_argument("--language", default="en", help="the page's and the mission's language (default en)")
    parser.add_argument("--laptop", action="store_true", help="a laptop's window (1280x800) instead of a phone")
    args = parser.parse_args()
    if not 1 <= args.seconds <= 600:
        parser.error("--seconds: from 1 to 600")

    with tempfile.TemporaryDirectory(prefix="bench-screen-") as folder:
        server = start_server(Path(folder) / "state")
        driver = chromium(LAPTOP if args.laptop else PHONE, phone=not args.laptop)
        try:
            print(f"opening the mission screen ({args.language}, {'laptop' if args.laptop else 'phone'}) ...", flush=True)
            open_screen(driver, server, "mission", args.language)
            time.sleep(SETTLE_S)
            start_counting(driver)
            browser, served, started = cpu_of(driver.service.process.pid), cpu_of(server.process.pid), time.monotonic()
            print(f"measuring {args.seconds:g} s ...", flush=True)
            time.sleep(args.seconds)
            browser = cpu_of(driver.service.process.pid) - browser
            served = cpu_of(server.process.pid) - served
            elapsed = time.monotonic() - started
            frames, changes = counted(driver)
        finally:
            driver.quit()
            server.stop()
    print(f"browser CPU: {browser / elapsed:.2f} of a core ({browser:.2f} s in {elapsed:.1f} s)")
    print(f"server CPU:  {served / elapsed:.2f} of a core")
    print(f"frames: {frames / elapsed:.0f} per second; changes to the page: {changes / elapsed:.1f} per second")


if __name__ == "__main__":
    main()
