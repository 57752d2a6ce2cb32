"""The page itself through the scaled-out deployment: two Chromium browsers on nginx's TLS
address, their WebSockets on whichever workers nginx chose; the worker that holds the sound
device's WebSocket is killed mid-mission, and the page reconnects to the other worker and plays
on at the right moment, the joined phone still following it and pausing it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realparts import needs
from scaleout import deploy
from serving import LAPTOP, PHONE, chromium, clock_ms, clocks_agree, wait_for
from waiting import runs_in_real_time

pytestmark = needs("redis-server", "nginx", "openssl", "chromium", "chromedriver")
TRUST_TEST_CERTIFICATE = ("--ignore-certificate-errors",)  # the test's own self-signed certificate


def test_the_sound_device_survives_its_worker_dying(tmp_path):
    deployment = deploy(tmp_path)
    drivers = []
    try:
        sound = chromium(LAPTOP, flags=TRUST_TEST_CERTIFICATE)
        drivers.append(sound)
        sound.get(deployment.url + "/")
        wait_for(sound, "document.querySelector('#track option[value=\"builtin:mission-1\"]')", 30)
        sound.execute_script("document.getElementById('track').value = 'builtin:mission-1';")
        sound.find_element("id", "play-here").click()
        wait_for(sound, "window.timekeeper.view.game && window.timekeeper.clockMs() > 300", 30)
        game = sound.execute_script("return window.timekeeper.view.game;")
        assert game["join_url"].startswith(deployment.url + "/g/")
        phone = chromium(PHONE, phone=True, flags=TRUST_TEST_CERTIFICATE)
        drivers.append(phone)
        phone.get(game["join_url"])
        wait_for(phone, "window.timekeeper.view.game && window.timekeeper.clockMs() > 500", 30)
        phone.find_element("css selector", "#join-tap button").click()
        clocks_agree(sound, phone, 100, samples=1)  # once a position report and the clock-offset pings have arrived

        # the worker that holds the sound device's WebSocket dies
        holder = sound.execute_script("return sessionStorage.getItem('tk-client')")
        connected = deployment.redis_client().hgetall(f"timekeeper:here:{game['id']}")
        worker = next(name.split("/")[0] for name, client in connected.items() if client == holder)
        index = next(n for n, server in enumerate(deployment.workers) if f"-{server.process.pid}-" in worker)
        deployment.kill_worker(index)
        wait_for(sound, "document.getElementById('conn').className === 'conn off'", 10)
        wait_for(sound, "document.getElementById('conn').className === 'conn on'", 10)  # through nginx, to the other
        runs_in_real_time(lambda: clock_ms(sound), 700)  # sound and clock go on
        assert sound.execute_script("return document.getElementById('audio').paused") is False
        clocks_agree(sound, phone, 100, samples=1)
        phone.find_element("id", "toggle").click()  # a pause on the phone still reaches the sound device
        wait_for(sound, "document.getElementById('audio').paused", 10)
        assert wait_for(phone, "window.timekeeper.view.playback.status === 'paused'")
    finally:
        for driver in drivers:
            driver.quit()
        deployment.stop()


def test_the_page_moves_to_the_other_worker_when_its_own_stops(tmp_path):
    deployment = deploy(tmp_path, extra=("--drain", "2"))
    drivers = []
    try:
        sound = chromium(LAPTOP, flags=TRUST_TEST_CERTIFICATE)
        drivers.append(sound)
        sound.get(deployment.url + "/")
        wait_for(sound, "document.querySelector('#track option[value=\"builtin:mission-1\"]')", 30)
        sound.execute_script("document.getElementById('track').value = 'builtin:mission-1';")
        sound.find_element("id", "play-here").click()
        wait_for(sound, "window.timekeeper.view.game && window.timekeeper.clockMs() > 300", 30)
        game = sound.execute_script("return window.timekeeper.view.game;")
        phone = chromium(PHONE, phone=True, flags=TRUST_TEST_CERTIFICATE)
        drivers.append(phone)
        phone.get(game["join_url"])
        wait_for(phone, "window.timekeeper.view.game && window.timekeeper.clockMs() > 500", 30)
        phone.find_element("css selector", "#join-tap button").click()
        clocks_agree(sound, phone, 100, samples=1)  # once a position report and the clock-offset pings have arrived
        for driver in drivers:  # every time the connection dot goes off from now on
            driver.execute_script("""window.connOff = 0; new MutationObserver(() => {
              if (document.getElementById('conn').className === 'conn off') window.connOff += 1;
            }).observe(document.getElementById('conn'), {attributes: true});""")
        holder = sound.execute_script("return sessionStorage.getItem('tk-client')")
        connected = deployment.redis_client().hgetall(f"timekeeper:here:{game['id']}")
        worker = next(name.split("/")[0] for name, client in connected.items() if client == holder)
        index = next(n for n, server in enumerate(deployment.workers) if f"-{server.process.pid}-" in worker)
        assert deployment.drain_worker(index).status == 0  # the sound device's worker stops (SIGTERM)
        assert re.search(r"[12] screens moved, 0 closed", "".join(deployment.old_workers[0].output))
        assert [driver.execute_script("return window.connOff") for driver in drivers] == [0, 0]  # never without a socket
        assert sound.execute_script("return document.getElementById('audio').paused") is False
        runs_in_real_time(lambda: clock_ms(sound), 500)  # sound and clock go on
        clocks_agree(sound, phone, 100, samples=3)
        moved = deployment.redis_client().hgetall(f"timekeeper:here:{game['id']}")
        assert holder in moved.values() and not any(name.startswith(worker + "/") for name in moved)
        phone.find_element("id", "toggle").click()  # the page's commands go through the worker it moved to
        wait_for(sound, "document.getElementById('audio').paused", 10)
    finally:
        for driver in drivers:
            driver.quit()
        deployment.stop()
