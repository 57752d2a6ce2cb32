"""Accessibility figures of `timekeeper serve`'s page, measured in Debian's headless Chromium with
axe-core from npm (`npm ci` first, as .ci/run does):

    python benchmarks/bench_a11y.py                      # en and de, phone and laptop
    python benchmarks/bench_a11y.py --languages en,de,fr

For each screen (set-up, a mission playing with the outage banner, an ended mission with its card
and log form, the ship's log), size (360x640 and 1280x800) and language: the number of axe-core
violations of WCAG 2 A/AA (target 0), and the smallest touch target in CSS pixels (target >= 44).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from accessibility import (
    MIN_TARGET_PX,
    SCREENS,
    axe_available,
    axe_violations,
    open_screen,
    small_targets,
    smallest_target,
)
from logbook_helpers import timekeeper
from serving import LAPTOP, PHONE, chromium, start_server

SIZES = {"360x640": (PHONE, True), "1280x800": (LAPTOP, False)}


def a_log(folder: Path) -> Path:
    """A ship's log with a few missions, so the log screen has a table, tables and a chart."""
    log = folder / "log.sqlite3"
    for track, survived, destroyed in (("mission-2", "6", "8"), ("mission-3", "3", "12"), ("mission-2", "2", "4")):
        done = timekeeper(log, "add", "--no-prompt", "--crew", "Ann:captain, Bob:co, Cid:sc, Dee", "--track", track,
                          "--survived", survived, "--destroyed", destroyed)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    return log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--languages", default="en,de", help="comma-separated page languages (default en,de)")
    args = parser.parse_args()
    if not axe_available():
        raise SystemExit("axe-core is missing: run `npm ci` in the repository (see package.json)")
    languages = [code.strip() for code in args.languages.split(",") if code.strip()]
    failed = False
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        server = start_server(folder / "state", "--log", str(a_log(folder)))
        try:
            print(f"{'screen':8} {'size':9} {'lang':4} {'axe':>4} {'smallest':>9} {'<44px':>6} {'s':>5}")
            for size_name, (size, phone) in SIZES.items():
                driver = chromium(size, phone=phone)
                try:
                    for language in languages:
                        for screen in SCREENS:
                            started = time.perf_counter()
                            open_screen(driver, server, screen, language)
                            violations = axe_violations(driver)
                            smallest = smallest_target(driver)
                            small = small_targets(driver)
                            failed |= bool(violations) or (phone and bool(small))
                            ids = ",".join(v["id"] for v in violations)
                            print(f"{screen:8} {size_name:9} {language:4} {len(violations):>4} "
                                  f"{smallest if smallest is not None else '-':>9} {len(small):>6} "
                                  f"{time.perf_counter() - started:5.1f} {ids}", flush=True)
                finally:
                    driver.quit()
        finally:
            server.stop()
    print(f"targets: 0 axe violations everywhere; touch targets >= {MIN_TARGET_PX} px at 360x640: "
          f"{'not met' if failed else 'met'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
