"""Benchmark of the mission page: Play to first sound, and the page's weight, with a real server on
loopback and Debian's headless chromium.

    python benchmarks/bench_page.py                   # every shipped language, the clip cache as it is
    python benchmarks/bench_page.py --cold            # each language with an empty clip cache
    python benchmarks/bench_page.py --languages en de

Measures (targets from issue 21):
- Play pressed -> the sound playing (the audio element's first `playing` event for the game's
  sound): <= 0.5 s once the set-up screen has been open for 5 s (the lobby's game is made and its
  mix prepared meanwhile), <= 1.5 s when Play is pressed as soon as the set-up screen shows it;
  in every language; each measure on a fresh server and browser, a different track for each
  (no mix prepared by an earlier measure), and an empty folder of sound files (the mp3 of the
  game's sound is encoded as it is played: serve/sound/cache.py);
- page weight: HTML + JS (the service worker too) + CSS + manifest + icons <= 150 KB (the keep-awake videos, loaded only by
  phones without Wake Lock, are not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from serving import LAPTOP, chromium, start_server, wait_for

from timekeeper.grammar.phrases import LANGUAGES
from timekeeper.serve.web.routes import PAGE_SCRIPTS

PAGE_FILES = ("/", *(f"/assets/{name}" for name in PAGE_SCRIPTS), "/sw.js", "/assets/style.css", "/assets/manifest.webmanifest",
              "/assets/icon.svg", "/assets/icon-192.png", "/assets/icon-512.png")
SETTLE_S = 5.0  # "the set-up screen has been open for 5 s"


def page_weight(server) -> int:
    return sum(len(server.request(path).body) for path in PAGE_FILES)


def play_to_sound(server, language: str, track: str, wait_s: float) -> float:
    """Seconds from the Play tap to the game's sound playing, `wait_s` after the set-up screen showed."""
    driver = chromium(LAPTOP)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source":
                               f"localStorage.setItem('tk-language', '{language}'); localStorage.setItem('tk-track', '{track}');"})
        driver.get(server.url)
        wait_for(driver, f"document.getElementById('track').value === '{track}' && document.documentElement.lang === '{language}'"
                         " && !document.getElementById('play-here').disabled")
        time.sleep(wait_s)
        driver.find_element("id", "play-here").click()
        wait_for(driver, "window.timekeeper.soundAt", 60)
        return driver.execute_script("return (window.timekeeper.soundAt - window.timekeeper.pressedAt) / 1000;")
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGES), help="languages to measure (default: all)")
    parser.add_argument("--cold", action="store_true", help="an empty clip cache for each language")
    args = parser.parse_args()
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        for number, language in enumerate(args.languages):
            env = {"TIMEKEEPER_CACHE": str(Path(folder) / f"cache-{language}")} if args.cold else None
            server = start_server(Path(folder) / f"state-{language}", "--sound-cache", str(Path(folder) / f"sound-{language}"),
                                  env=env)
            try:
                if number == 0:
                    figures["page weight (HTML+JS+CSS+manifest+icons), KB"] = round(page_weight(server) / 1024, 1)
                at_once = play_to_sound(server, language, f"builtin:mission-{1 + number % 4}", 0.0)
                settled = play_to_sound(server, language, f"builtin:mission-{5 + number % 4}", SETTLE_S)
            finally:
                server.stop()
            figures[f"{language}: Play -> sound, pressed at once / after {SETTLE_S:.0f} s, s"] = (
                round(at_once, 2), round(settled, 2))
            print(f"{language}: {at_once:.2f} s / {settled:.2f} s", file=sys.stderr)
    cache = "empty clip cache per language" if args.cold else "clip cache as found"
    print(f"# bench_page ({cache})")
    for name, value in figures.items():
        print(f"{name:<62} {value}")
    if os.environ.get("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
