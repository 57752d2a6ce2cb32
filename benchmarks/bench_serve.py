"""Benchmark of `timekeeper serve` with a real server on loopback and Debian's headless chromium.

    python benchmarks/bench_serve.py                 # every measure below
    python benchmarks/bench_serve.py --clients 50    # joined WebSocket clients for the clock test

Measures (targets from the serve issue):
- page weight (HTML + JS + CSS) < 200 KB; first page load on loopback < 300 ms (the browser's
  navigation timing, to DOMContentLoaded, median of 5 fresh loads);
- Play pressed -> "Alert. Enemy activity detected" playing: <= 1.5 s with a warm clip cache,
  <= 3 s cold (an empty cache: every phrase synthesized);
- caption shown vs the audio position of its cue: <= 50 ms late (measured in the page, over the
  first 8 cues after seeking 1.5 s before each);
- joined screens vs the playing device: within 100 ms, with 2 browser screens and N WebSocket
  clients (default 50) following the same protocol as the page (ping for the clock offset,
  extrapolate the shared position).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from serving import LAPTOP, PHONE, chromium, start_server, wait_for

from timekeeper.serve.web.routes import PAGE_SCRIPTS


def page_figures(server) -> tuple[int, float]:
    weight = len(server.request("/").body)
    weight += sum(len(server.request(f"/assets/{name}").body) for name in (*PAGE_SCRIPTS, "style.css"))
    loads = []
    for _ in range(5):
        driver = chromium(LAPTOP)
        try:
            driver.get(server.url)
            wait_for(driver, "document.readyState === 'complete'")
            loads.append(driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0]; return t.domContentLoadedEventEnd - t.startTime;"))
        finally:
            driver.quit()
    return weight, statistics.median(loads)


def play_to_alert(server, track: str = "builtin:mission-1") -> tuple[float, object, dict]:
    """Seconds from the Play tap to the first words playing; the driver (still playing); the game."""
    driver = chromium(LAPTOP)
    driver.get(server.url)
    wait_for(driver, f"document.querySelector('#track option[value=\"{track}\"]')")
    driver.execute_script(f"document.getElementById('track').value = '{track}';")
    driver.find_element("id", "play-here").click()
    wait_for(driver, "window.timekeeper.alertAt")
    seconds = driver.execute_script("return (window.timekeeper.alertAt - window.timekeeper.pressedAt) / 1000;")
    return seconds, driver, driver.execute_script("return window.timekeeper.view.game;")


def caption_lags(server, driver, game, cues: int = 8) -> list[float]:
    lags = []
    for cue in [c for c in game["timeline"]["cues"] if c["at_ms"] > 3000][:cues]:
        server.request(f"/api/games/{game['id']}/command", method="POST",
                       json_body={"type": "seek", "at_ms": cue["at_ms"] - 1500})
        wait_for(driver, f"window.timekeeper.captionLags.some(l => l.at_ms === {cue['at_ms']})", 10)
        lags.append(driver.execute_script(
            f"return window.timekeeper.captionLags.filter(l => l.at_ms === {cue['at_ms']}).at(-1).lag_ms;"))
    return lags


async def ws_follower(url: str, samples: list, stop: asyncio.Event, sound_clock) -> None:
    """A joined screen speaking the page's protocol; records |its clock - the sound device's|."""
    import aiohttp

    offset, best_rtt, playback = 0.0, float("inf"), None
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
        async with session.ws_connect(url) as socket:
            for _ in range(5):
                await socket.send_json({"type": "ping", "t": time.time() * 1000})
            while not stop.is_set():
                try:
                    message = await socket.receive_json(timeout=0.2)
                except asyncio.TimeoutError:
                    message = None
                if message and message["type"] == "pong":
                    now = time.time() * 1000
                    rtt = now - message["t"]
                    if rtt <= best_rtt:
                        best_rtt, offset = rtt, message["server_ms"] - (message["t"] + rtt / 2)
                elif message and message["type"] == "state":
                    playback = message["playback"]
                if playback and playback["status"] == "playing":
                    now = time.time() * 1000
                    mine = playback["position_ms"] + (now + offset - playback["at_ms"])
                    theirs = sound_clock(now)
                    if theirs is not None:
                        samples.append(abs(mine - theirs))


def joined_clocks(server, driver, game, clients: int, seconds: float = 8.0) -> tuple[list[float], list[float]]:
    """Clock errors (ms) of WebSocket clients and of two browser screens against the sound device."""
    screens = [chromium(PHONE, phone=True) for _ in range(2)]
    for screen in screens:
        screen.get(game["join_url"])
        wait_for(screen, "window.timekeeper.view.game && window.timekeeper.clockMs() > 0")
    sound_samples: list[tuple[float, float]] = []  # (epoch ms, sound device's clock ms)

    def sound_clock(epoch_ms: float):
        if len(sound_samples) < 2:
            return None
        at, clock = sound_samples[-1]
        return clock + (epoch_ms - at)  # the sound clock runs at rate 1 between samples

    url = server.url.replace("http", "ws") + f"api/games/{game['id']}/ws"
    ws_errors: list[float] = []
    browser_errors: list[float] = []

    async def run() -> None:
        stop = asyncio.Event()
        followers = [asyncio.create_task(ws_follower(url, ws_errors, stop, sound_clock)) for _ in range(clients)]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            at, clock = await asyncio.to_thread(driver.execute_script, "return [Date.now(), window.timekeeper.clockMs()]")
            sound_samples.append((at, clock))
            for screen in screens:
                their_at, theirs = await asyncio.to_thread(
                    screen.execute_script, "return [Date.now(), window.timekeeper.clockMs()]")
                if len(sound_samples) > 2:
                    browser_errors.append(abs(theirs - (clock + (their_at - at))))
            await asyncio.sleep(0.2)
        stop.set()
        await asyncio.gather(*followers)

    asyncio.run(run())
    for screen in screens:
        screen.quit()
    return ws_errors, browser_errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="joined WebSocket clients (default 50)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cold_env = {"TIMEKEEPER_CACHE": str(Path(folder) / "cold-cache")}
        server = start_server(Path(folder) / "state", env=cold_env)
        try:
            cold, driver, _ = play_to_alert(server)
            driver.quit()
        finally:
            server.stop()
        server = start_server(Path(folder) / "state2", env=cold_env)  # same cache, now warm; fresh server
        try:
            weight, load_ms = page_figures(server)
            warm, driver, game = play_to_alert(server)
            time.sleep(2)
            ws_errors, browser_errors = joined_clocks(server, driver, game, args.clients)
            lags = caption_lags(server, driver, game)
            driver.quit()
        finally:
            server.stop()
    figures = {
        "page weight (HTML+JS+CSS), KB": round(weight / 1024, 1),
        "first page load, ms (median of 5)": round(load_ms, 1),
        "Play -> Alert, cold cache, s": round(cold, 2),
        "Play -> Alert, warm cache, s": round(warm, 2),
        "caption late vs audio, ms (max, mean)": (round(max(lags), 1), round(statistics.mean(lags), 1)),
        f"{args.clients} WebSocket screens vs sound device, ms (max, p95)": (
            round(max(ws_errors), 1), round(statistics.quantiles(ws_errors, n=20)[-1], 1)),
        "2 browser screens vs sound device, ms (max)": round(max(browser_errors), 1),
        "clock samples (ws, browser)": (len(ws_errors), len(browser_errors)),
    }
    for name, value in figures.items():
        print(f"{name:<58} {value}")
    if os.environ.get("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
