"""The page as an offline app in real headless Chromium (127.0.0.1 is a secure context, so the
service worker runs as it does over https): the app shell and the mission's whole soundtrack are
kept on the device, so with the server gone the sound plays on (also bytes it never fetched
before), pause still works, and the mission opens again from its link."""

from __future__ import annotations

import time

from realparts import needs
from serving import PHONE, clock_ms, start_server, wait_for
from waiting import runs_in_real_time, wait_until

from timekeeper.serve.web.routes import PAGE_SCRIPTS

pytestmark = needs("chromium", "chromedriver")
TRACK = "builtin:quick-drill"  # 5 minutes: its whole WAV is 26 MB


def audio(driver, what: str):
    return driver.execute_script(f"return document.getElementById('audio').{what};")


def test_the_service_worker_is_served_from_the_root_with_its_shell(tmp_path):
    server = start_server(tmp_path / "state")
    try:
        reply = server.request("/sw.js")
        assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/javascript")
        assert reply.headers["Cache-Control"] == "no-cache"
        text = reply.text
        assert "__VERSION__" not in text and '"/assets/offline.js"' in text and '"/assets/app.js"' in text
        assert all(f'"/assets/{name}"' in text for name in PAGE_SCRIPTS)  # every module of the page works offline
        for path in ("/", *(f"/assets/{name}" for name in PAGE_SCRIPTS)):
            assert server.request(path).status == 200  # every file of the shell is there to keep
    finally:
        assert server.stop() == 130


# Whether the service worker keeps the playback the page shows now in its copy of the game's answer
# (what a mission reopened offline starts from: sw.js keepPlayback); the page tells it every 2 s.
KEEPS_THE_PLAYBACK = """const [game, done] = [arguments[0], arguments[arguments.length - 1]];
const shown = (p) => JSON.stringify([p.status, Math.round(p.position_ms), Math.round(p.at_ms)]);
caches.open('tk-data').then((cache) => cache.match(`/api/games/${game}`)).then((kept) => kept ? kept.json() : null)
  .then((body) => done(!!body && shown(body.playback) === shown(window.timekeeper.view.playback)), () => done(false));"""


def worker_keeps_the_playback(driver, game: str) -> None:
    wait_until(lambda: driver.execute_async_script(KEEPS_THE_PLAYBACK, game), 20, "the worker to keep the page's playback")


def test_a_mission_plays_on_without_the_server_and_opens_again_offline(tmp_path, open_browsers):
    server = start_server(tmp_path / "state", "--public")
    try:
        driver = open_browsers(PHONE, True)
        driver.get(server.url)
        wait_for(driver, "navigator.serviceWorker.controller", 20)  # the worker took the page
        wait_for(driver, f"document.querySelector('#track option[value=\"{TRACK}\"]')")
        driver.execute_script(f"document.getElementById('track').value = '{TRACK}';")
        driver.find_element("id", "play-here").click()
        wait_for(driver, "window.timekeeper.view.game && window.timekeeper.clockMs() > 300", 30)
        game = driver.execute_script("return window.timekeeper.view.game.id;")
        kept = wait_for(driver, "window.timekeeper.soundKept", 90)  # the page named its sound; the worker kept it
        assert kept == audio(driver, "currentSrc") and f"/api/games/{game}/" in kept
        worker_keeps_the_playback(driver, game)
        assert server.stop() == 130  # the network is gone
        assert "Traceback" not in "".join(server.output)

        runs_in_real_time(lambda: clock_ms(driver), 1000)
        assert audio(driver, "paused") is False and audio(driver, "error") is None
        driver.execute_script("document.getElementById('audio').currentTime = 240;")  # bytes never fetched
        wait_for(driver, "document.getElementById('audio').currentTime > 241.5", 15)
        assert audio(driver, "error") is None

        driver.find_element("id", "toggle").click()  # pause works without the server
        wait_for(driver, "document.getElementById('audio').paused && window.timekeeper.view.playback.status === 'paused'")
        paused_at = audio(driver, "currentTime")
        worker_keeps_the_playback(driver, game)  # the paused one

        driver.get(f"{server.url}g/{game}")  # the mission's link, offline: the kept shell and game
        wait_for(driver, f"window.timekeeper && window.timekeeper.view.game && window.timekeeper.view.game.id === '{game}'", 20)
        assert driver.execute_script("return window.timekeeper.view.playback.status;") == "paused"
        assert abs(driver.execute_script("return window.timekeeper.clockMs();") / 1000 - paused_at) < 1.0
        assert driver.find_element("id", "game-title").text == "Quick drill"
        wait_for(driver, "!document.getElementById('resume').hidden")  # one tap puts the sound back here
        driver.find_element("css selector", "#resume button").click()
        driver.find_element("id", "toggle").click()  # play on, offline
        wait_for(driver, f"document.getElementById('audio').currentTime > {paused_at + 1.0}", 15)
        assert audio(driver, "error") is None
    finally:
        server.stop()


def test_chromium_finds_the_page_installable_with_its_worker(tmp_path, open_browsers):
    from serving import LAPTOP

    server = start_server(tmp_path / "state", "--public")
    try:
        driver = open_browsers(LAPTOP)
        driver.get(server.url)
        wait_for(driver, "navigator.serviceWorker.controller", 20)
        assert driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}) == {"installabilityErrors": []}
        manifest = driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert manifest["errors"] == [] and manifest["url"].endswith("/assets/manifest.webmanifest")
        shell = driver.execute_async_script("""const done = arguments[0];
            caches.keys().then((names) => caches.open(names.find((n) => n.startsWith('tk-shell-'))))
              .then((cache) => cache.keys()).then((keys) => done(keys.map((k) => new URL(k.url).pathname)));""")
        assert {"/", "/assets/app.js", "/assets/offline.js", "/assets/style.css", "/assets/icon-192.png"} <= set(shell)
        assert {f"/assets/{name}" for name in PAGE_SCRIPTS} <= set(shell)  # every module the page imports
    finally:
        assert server.stop() == 130


def test_a_pause_pressed_offline_reaches_the_server_when_it_is_back(tmp_path, open_browsers):
    server = start_server(tmp_path / "state", "--public")
    try:
        driver = open_browsers(PHONE, True)
        driver.get(server.url)
        wait_for(driver, "navigator.serviceWorker.controller", 20)
        wait_for(driver, f"document.querySelector('#track option[value=\"{TRACK}\"]')")
        driver.execute_script(f"document.getElementById('track').value = '{TRACK}';")
        driver.find_element("id", "play-here").click()
        wait_for(driver, "window.timekeeper.view.game && window.timekeeper.clockMs() > 300", 30)
        game = driver.execute_script("return window.timekeeper.view.game.id;")
        assert server.stop() == 130
        wait_for(driver, "document.getElementById('conn').className === 'conn off'")
        time.sleep(1.0)
        driver.find_element("id", "toggle").click()  # paused while the server is away
        wait_for(driver, "document.getElementById('audio').paused")
        paused_ms = audio(driver, "currentTime") * 1000
        server = start_server(tmp_path / "state", "--public", "--port", str(server.port))  # it is back
        wait_for(driver, "document.getElementById('conn').className === 'conn on'", 20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            playback = server.request(f"/api/games/{game}").json()["playback"]
            if playback["status"] == "paused":
                break
            time.sleep(0.2)
        assert playback["status"] == "paused" and abs(playback["position_ms"] - paused_ms) < 300
        time.sleep(1.0)  # the server's older state did not restart the sound
        assert audio(driver, "paused") is True
        assert driver.execute_script("return window.timekeeper.view.playback.status;") == "paused"
    finally:
        server.stop()
