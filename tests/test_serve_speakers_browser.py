"""Many speakers, in Debian's headless Chromium against a real server, at 360x640, 640x360 and
1280x800: a crew apart (every screen plays the sound, in sync), one speaker's tab killed and
another's link reopened in a new tab; and, in German, nobody playing the sound any more (a reload,
then the tab closed): every screen says so, the mission pauses itself and says why, and one tap
plays it on another screen.

Screenshots go to $TIMEKEEPER_SCREENSHOTS when it is set (look at them).
"""

from __future__ import annotations

import contextlib
import time

import pytest
from serving import LAPTOP, PHONE, SOUND_START_S, start_server, wait_for
from test_serve_browser import shot
from waiting import wait_until

LANDSCAPE = (640, 360)
TRACK = "builtin:mission-1"
IN_SYNC_MS = 50  # a test's bound, loose for a busy machine (benchmarks/bench_speakers.py measures the targets)
SOUND = "const a = document.getElementById('audio'); return [Date.now(), window.timekeeper.soundMs(), a.paused];"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("state"), "--sound-cache", str(tmp_path_factory.mktemp("sound")))
    yield running
    assert running.stop() == 130


def apart_ms(drivers) -> float:
    """How far apart the drivers' sounds are now (ms): each put at the first reading's moment."""
    readings = [driver.execute_script(SOUND) for driver in drivers]
    moment = readings[0][0]
    placed = [position + (0 if paused else moment - at) for at, position, paused in readings]
    return max(placed) - min(placed)


def in_sync(drivers, timeout_s: float = 20.0) -> float:
    """Wait until the drivers' sounds stay within IN_SYNC_MS for a second; the last spread."""
    deadline = time.monotonic() + timeout_s
    good_since = None
    while time.monotonic() < deadline:
        apart = apart_ms(drivers)
        if apart <= IN_SYNC_MS:
            good_since = good_since or time.monotonic()
            if time.monotonic() - good_since >= 1.0:
                return apart
        else:
            good_since = None
        time.sleep(0.05)
    raise AssertionError(f"the speakers were {apart:.0f} ms apart after {timeout_s:.0f} s")


def presence(driver) -> str:
    return driver.execute_script("return document.querySelector('#game .more .presence').textContent")


def playing(driver) -> None:
    wait_for(driver, "!document.getElementById('audio').paused && window.timekeeper.soundMs() > 300", SOUND_START_S)


def crash(driver) -> None:
    """The browser kills the tab's page (a phone's system does so to a tab in the background)."""
    with contextlib.suppress(Exception):
        driver.execute_cdp_cmd("Page.crash", {})


def test_a_crew_apart_every_screen_plays_in_sync_one_killed_one_reopened(server, open_browsers, tmp_path):
    host = open_browsers(LAPTOP)
    host.get(server.url)
    wait_for(host, f"document.querySelector('#track option[value=\"{TRACK}\"]')")
    host.execute_script(f"document.getElementById('track').value = '{TRACK}';")
    remote = host.find_element("id", "remote")
    assert remote.find_element("xpath", "..").text == "Crew apart: every screen plays the sound"
    remote.click()
    wait_for(host, "document.getElementById('lobby-link').href.includes('/g/')")
    lobby = host.execute_script("return document.getElementById('lobby-link').href")
    game_id = lobby.split("?")[0].rsplit("/", 1)[1]
    wait_until(lambda: server.request(f"/api/games/{game_id}").json()["settings"]["remote"], 20, "the lobby's game to be apart")
    shot(host, "speakers-setup-laptop", tmp_path)
    screens = [open_browsers(PHONE, phone=True), open_browsers(LANDSCAPE, phone=True)]
    for screen in screens:
        screen.get(lobby)
        tap = wait_for(screen, "!document.getElementById('join-tap').hidden && document.querySelector('#join-tap button').textContent")
        assert tap == "Tap to join and play the sound here"
        screen.find_element("css selector", "#join-tap button").click()
        wait_for(screen, "window.timekeeper.view.sound")
    host.find_element("id", "play-here").click()
    speakers = [host, *screens]
    for driver in speakers:
        playing(driver)
    for driver in speakers:  # every screen lists every speaker
        wait_for(driver, "(document.querySelector('#game .more .presence').textContent.match(/♪/g) || []).length === 3")
    assert "Phone 1 (this one) ♪ plays the sound" in presence(screens[0])
    in_sync(speakers)
    for driver, name in zip(speakers, ("laptop", "phone", "landscape"), strict=True):
        shot(driver, f"speakers-playing-{name}", tmp_path)

    crash(screens[1])  # the sideways phone's tab is killed: the mission plays on, nobody is warned
    wait_for(host, "(document.querySelector('#game .more .presence').textContent.match(/♪/g) || []).length === 2", 15)
    assert host.execute_script("return document.getElementById('silent').hidden")
    playing(host)

    screens[0].execute_script("window.open(location.href, '_blank')")  # the phone's link again, in a new tab
    old_tab = screens[0].current_window_handle
    screens[0].switch_to.window([h for h in screens[0].window_handles if h != old_tab][0])
    screens[0].switch_to.window(old_tab)
    screens[0].close()  # ... and the old tab closed
    screens[0].switch_to.window(screens[0].window_handles[0])
    resume = wait_for(screens[0], "!document.getElementById('resume').hidden && document.querySelector('#resume button').textContent")
    assert resume.startswith("Resume the sound at ")
    screens[0].find_element("css selector", "#resume button").click()
    playing(screens[0])
    in_sync([host, screens[0]])

    host.find_element("id", "toggle").click()  # a pause reaches every speaker, at one moment
    wait_for(screens[0], "document.getElementById('audio').paused && window.timekeeper.view.playback.status === 'paused'")
    wait_for(host, "document.getElementById('audio').paused")
    assert apart_ms([host, screens[0]]) <= IN_SYNC_MS
    screens[0].find_element("id", "toggle").click()  # and so does the resume
    playing(host)
    playing(screens[0])
    in_sync([host, screens[0]])


def test_nobody_plays_the_sound_every_screen_says_so_and_the_mission_pauses_itself(open_browsers, tmp_path):
    server = start_server(tmp_path / "state", "--sound-cache", str(tmp_path / "sound"))
    try:
        host = open_browsers(LAPTOP)
        host.get(server.url)
        wait_for(host, f"document.querySelector('#track option[value=\"{TRACK}\"]')")
        host.execute_script(f"document.getElementById('track').value = '{TRACK}';"
                            "const l = document.getElementById('language'); l.value = 'de'; l.dispatchEvent(new Event('change'));")
        wait_for(host, "document.documentElement.lang === 'de'")
        host.find_element("id", "play-here").click()
        playing(host)
        game = host.execute_script("return window.timekeeper.view.game;")
        screens = [open_browsers(PHONE, phone=True), open_browsers(LANDSCAPE, phone=True)]
        for screen in screens:
            screen.get(game["join_url"])
            wait_for(screen, "!document.getElementById('join-tap').hidden")
            screen.find_element("css selector", "#join-tap button").click()
            wait_for(screen, "document.querySelector('#game .more .presence').textContent.includes('♪ spielt den Ton')")

        host.refresh()  # a reload: the sound waits for its tap, and no screen says it plays meanwhile
        wait_for(host, "window.timekeeper && !document.getElementById('resume').hidden")
        for screen in screens:
            wait_for(screen, "!document.querySelector('#game .more .presence').textContent.includes('♪')", 10)
        silent = wait_for(screens[0], "!document.getElementById('silent').hidden && document.querySelector('#silent span').textContent")
        assert silent.startswith("Niemand spielt den Ton.") and "pausiert in" in silent
        shot(screens[0], "silent-phone-de", tmp_path)
        host.find_element("css selector", "#resume button").click()  # in time: the mission never paused
        playing(host)
        for screen in screens:
            wait_for(screen, "document.getElementById('silent').hidden")
        assert server.request(f"/api/games/{game['id']}").json()["playback"]["notes"] == []

        host.close()  # the sound device's tab closed: nobody plays the sound
        for screen in screens:
            wait_for(screen, "!document.getElementById('silent').hidden", 10)
        shot(screens[1], "silent-landscape-de", tmp_path)
        for screen in screens:  # after 3 s the mission pauses itself, and says why
            wait_for(screen, "window.timekeeper.view.playback.status === 'paused'", 15)
            assert screen.find_element("css selector", "#silent span").text == "Pausiert: Niemand hat den Ton gespielt."
            assert "Von selbst pausiert: Niemand hat den Ton gespielt" in screen.find_element("id", "notes").text
        playback = server.request(f"/api/games/{game['id']}").json()["playback"]
        assert playback["reason"] == "silent" and len(playback["notes"]) == 1
        shot(screens[0], "silent-paused-phone-de", tmp_path)

        button = screens[0].find_element("css selector", "#silent button")
        assert button.text == "Ton hier spielen"
        button.click()  # one tap: the sound plays here, and the mission on
        playing(screens[0])
        wait_for(screens[1], "window.timekeeper.view.playback.status === 'playing' && document.getElementById('silent').hidden")
        wait_for(screens[1], "document.querySelector('#game .more .presence').textContent.includes('Handy 1 ♪ spielt den Ton')")
        shot(screens[1], "speaker-taken-over-landscape-de", tmp_path)
    finally:
        server.stop()
