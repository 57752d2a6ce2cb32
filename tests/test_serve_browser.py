"""The page in a real browser (Debian's chromium, headless, fake audio output) against a real server.

Screenshots at phone and laptop sizes go to $TIMEKEEPER_SCREENSHOTS when it is set (look at them).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from realparts import needs
from serving import LAPTOP, PHONE, SOUND_START_S, clocks_agree, start_server, wait_for
from waiting import most_ms_between, read_timed, runs_in_real_time

pytestmark = needs("chromium", "chromedriver")
YAML_BAD = "title: Broken\nphase_ends: ['3:45', '7:30', '10:00']\nevents:\n  - {at: '1:00', type: threat, t: 1, zone: green}\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scenarios")
    (folder / "broken.yaml").write_text(YAML_BAD, encoding="utf-8")
    running = start_server(tmp_path_factory.mktemp("state"), "--scenarios", str(folder))
    yield running
    assert running.stop() == 130


def shot(driver, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TIMEKEEPER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path))
    return path


def clock(driver) -> float:
    return driver.execute_script("return window.timekeeper.clockMs();")


def start(driver, server, track="builtin:mission-1"):
    driver.get(server.url)
    wait_for(driver, f"document.querySelector('#track option[value=\"{track}\"]')")
    driver.execute_script(f"document.getElementById('track').value = '{track}';")
    driver.find_element("id", "play-here").click()
    # the sound itself has started (until then the clock is the server's, which the sound then corrects)
    wait_for(driver, "window.timekeeper.view.game && document.getElementById('audio').currentTime > 0.3"
                     " && window.timekeeper.clockMs() > 300", SOUND_START_S)
    return driver.execute_script("return window.timekeeper.view.game;")


def server_position(server, game) -> float:
    """Where the server's clock says the mission is now (ms)."""
    playback = server.request(f"/api/games/{game['id']}").json()["playback"]
    if playback["status"] != "playing":
        return playback["position_ms"]
    return playback["position_ms"] + (playback["server_ms"] - playback["at_ms"])


def whole_sound(server, game: dict) -> dict:
    """`game` once its whole sound file is made: a speaker sent far ahead does not wait for the
    encoder (on a busy machine a wait of more than 1.5 s is a stall: nobody plays the sound)."""
    made = server.request(game["sound"]["url"])
    assert made.status == 200 and len(made.body) == game["sound"]["bytes"]
    return game


def command(server, game, **body):
    if body.get("type") == "seek" and body["at_ms"] > 60_000:  # (the encoder may not be there yet)
        whole_sound(server, game)
    reply = server.request(f"/api/games/{game['id']}/command", method="POST", json_body=body)
    assert reply.status == 200, reply.body
    return reply.json()


def seek_before(driver, server, game, cue, lead_ms=1500):
    command(server, game, type="seek", at_ms=cue["at_ms"] - lead_ms)
    at = cue["at_ms"] - lead_ms  # (a wide window: a busy machine's polls may be far apart)
    wait_for(driver, f"window.timekeeper.clockMs() > {at - 400} && window.timekeeper.clockMs() < {at + 3000}")


@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["phone", "laptop"])
def test_play_a_mission_captions_pause_and_the_card_at_the_end(server, open_browsers, tmp_path, size, phone):
    driver = open_browsers(size, phone)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#track option').length >= 34")
    shot(driver, f"setup-{'phone' if phone else 'laptop'}", tmp_path)
    game = start(driver, server)
    assert driver.execute_script("return document.getElementById('audio').paused") is False
    runs_in_real_time(lambda: clock(driver), 400)  # the clock runs with the sound
    wait_for(driver, "document.getElementById('caption').textContent.includes('Alert')")  # the first words, as they are said
    assert driver.find_element("id", "after").is_displayed() is False
    threat = next(c for c in game["timeline"]["cues"] if c["kind"] == "threat")
    seek_before(driver, server, game, threat)
    wait_for(driver, f"window.timekeeper.clockMs() > {threat['at_ms'] + 2500}", 10)
    lag = driver.execute_script(f"return window.timekeeper.captionLags.find(l => l.at_ms === {threat['at_ms']}).lag_ms")
    assert 0 <= lag <= 50
    caption = driver.find_element("id", "caption").text
    assert caption and threat["text"].startswith(caption.split()[0])
    assert threat["text"] not in driver.find_element("id", "history").text  # nothing from the future
    later = [c["text"] for c in game["timeline"]["cues"] if c["at_ms"] > threat["at_ms"] + 20_000]
    assert not any(text in driver.page_source for text in later[:3])
    shot(driver, f"playing-{'phone' if phone else 'laptop'}", tmp_path)

    driver.find_element("id", "toggle").click()  # pause: sound and clock stop together
    wait_for(driver, "document.getElementById('audio').paused")
    paused_at = clock(driver)
    time.sleep(0.5)
    assert clock(driver) == paused_at
    assert server.request(f"/api/games/{game['id']}").json()["playback"]["status"] == "paused"
    assert driver.find_element("id", "end").get_attribute("disabled")

    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 2000)
    wait_for(driver, "!document.getElementById('end').disabled")
    assert driver.find_element("id", "after").is_displayed() is False
    driver.find_element("id", "end").click()
    wait_for(driver, "document.querySelectorAll('#card tr').length > 5")
    card = driver.find_element("id", "card").text
    assert "Mission 1" in card and "0:10 T+2 Serious threat White" in card
    driver.execute_script("document.getElementById('after').scrollIntoView()")
    shot(driver, f"card-{'phone' if phone else 'laptop'}", tmp_path)
    if not phone:  # printed from the browser: the card alone, without the mission screen
        import base64
        import io

        from pypdf import PdfReader

        printed = PdfReader(io.BytesIO(base64.b64decode(driver.print_page()))).pages[0].extract_text()
        assert "0:10 T+2 Serious threat White" in printed and "End action round" not in printed


def test_a_second_screen_follows_and_pauses_everyone(server, open_browsers, tmp_path):
    sound = open_browsers(LAPTOP)
    game = start(sound, server)
    screen = open_browsers(PHONE, phone=True)
    screen.get(game["join_url"])
    wait_for(screen, "window.timekeeper.view.game && window.timekeeper.clockMs() > 500")
    tap = screen.find_element("id", "join-tap")  # a joined screen asks for the tap phones need
    assert tap.is_displayed() and tap.text.startswith("Tap to join")
    assert screen.execute_script("return navigator.userActivation.hasBeenActive") is False
    assert screen.execute_script("const r = document.getElementById('toggle').getBoundingClientRect();"  # Pause stays in reach
                                 "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).id") == "toggle"
    shot(screen, "join-tap-phone", tmp_path)
    tap.find_element("tag name", "button").click()
    wait_for(screen, "document.getElementById('join-tap').hidden")
    assert screen.execute_script("return navigator.userActivation.hasBeenActive")  # vibration is allowed now
    wait_for(screen, "window.timekeeper.view.wakeLock && !window.timekeeper.view.wakeLock.released")
    clocks_agree(sound, screen, 100)  # once a position report and the clock-offset pings have arrived
    assert screen.execute_script("return document.getElementById('audio').paused")  # the sound plays on one device
    shot(screen, "joined-phone", tmp_path)
    screen.find_element("id", "toggle").click()
    wait_for(sound, "document.getElementById('audio').paused")
    stopped = clock(sound)
    wait_for(screen, f"window.timekeeper.view.playback.status === 'paused' && Math.abs(window.timekeeper.clockMs() - {stopped}) < 100")
    time.sleep(0.4)  # (nothing moves meanwhile)
    assert clock(sound) == stopped
    screen.find_element("id", "toggle").click()
    wait_for(sound, "!document.getElementById('audio').paused")


def test_prompter_shows_the_next_words_and_the_transfer_beep(server, open_browsers, tmp_path):
    driver = open_browsers(PHONE, phone=True)
    driver.get(server.url)
    wait_for(driver, "document.querySelector('#track option[value=\"builtin:mission-1\"]')")
    driver.find_element("id", "prompter-start").click()
    wait_for(driver, "window.timekeeper.view.game && window.timekeeper.clockMs() > 100")
    game = driver.execute_script("return window.timekeeper.view.game;")
    assert driver.execute_script("return document.getElementById('audio').paused")  # no sound in prompter mode
    transfer = next(c for c in game["timeline"]["cues"] if c["kind"] == "data_transfer")
    seek_before(driver, server, game, transfer, lead_ms=4000)
    prompt = wait_for(driver, "document.getElementById('prompt').innerText.includes('Data transfer in') && "
                              "document.getElementById('prompt').innerText")
    assert transfer["text"] in prompt and "beep at" in prompt
    assert re.search(r"in [345]\.\d s \(3:05\)", prompt)  # the countdown to the moment to read it
    shot(driver, "prompter-phone", tmp_path)
    beep = next(s for s in transfer["sounds"] if s["key"] == "beep")
    command(server, game, type="seek", at_ms=beep["at_ms"] - 3000)
    marked = wait_for(driver, "document.querySelector('#prompt .mark') && document.querySelector('#prompt .mark').innerText")
    assert "Transfer beep in" in marked


def test_communications_down_banner_covers_the_outage(server, open_browsers):
    driver = open_browsers(LAPTOP)
    game = start(driver, server)
    outage = next(c for c in game["timeline"]["cues"] if c["kind"] == "comms_down")
    command(server, game, type="seek", at_ms=outage["at_ms"] + 1000)
    wait_for(driver, "!document.getElementById('banner').hidden")
    assert driver.find_element("id", "banner").text == "COMMUNICATION SYSTEM DOWN"  # the words the voice says
    command(server, game, type="seek", at_ms=outage["until_ms"] + 500)
    wait_for(driver, "document.getElementById('banner').hidden")


def test_upload_errors_and_generating_in_the_page(server, open_browsers, tmp_path):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#track option').length >= 34")
    broken = tmp_path / "broken.yaml"
    broken.write_text(YAML_BAD, encoding="utf-8")
    driver.find_element("css selector", "[data-tab=file]").click()
    driver.find_element("css selector", "#file input[type=file]").send_keys(str(broken))
    driver.find_element("css selector", "#file button").click()
    problems = wait_for(driver, "!document.getElementById('problems').hidden && document.getElementById('problems').innerText")
    assert "line 4, column" in problems and "green" in problems
    shot(driver, "upload-error-laptop", tmp_path)
    driver.find_element("css selector", "[data-tab=gen]").click()
    driver.find_element("css selector", "#gen input[name=seed]").send_keys("4711")
    driver.find_element("css selector", "#gen input[name=threat_colors]").send_keys("white,red")
    driver.find_element("css selector", "#gen select[name=players]").send_keys("4")
    shot(driver, "generate-laptop", tmp_path)
    driver.find_element("css selector", "#gen button").click()
    chosen = wait_for(driver, "document.getElementById('track').value.startsWith('added:') && "
                              "document.getElementById('track').selectedOptions[0].textContent")
    assert "seed 4711" in chosen
    driver.find_element("id", "play-here").click()
    wait_for(driver, "window.timekeeper.view.game")
    game = driver.execute_script("return window.timekeeper.view.game;")
    threat = next(c for c in game["timeline"]["cues"] if c["kind"] == "threat")
    server.request(f"/api/games/{game['id']}/command", method="POST", json_body={"type": "seek", "at_ms": threat["at_ms"] + 4000})
    pile = wait_for(driver, "document.querySelector('#caption .pile') && document.querySelector('#caption .pile').textContent")
    assert pile == threat["pile"]["name"] and pile in ("White pile", "Red pile")
    assert "\nplayers: 4\n" in server.request(f"/api/games/{game['id']}/track.yaml").text


def test_vibration_at_each_threat_and_the_screen_kept_awake(server, open_browsers):
    driver = open_browsers(PHONE, phone=True)
    driver.get(server.url)
    wait_for(driver, "document.querySelector('#track option[value=\"builtin:mission-1\"]')")
    driver.execute_script("window.buzzes = []; navigator.vibrate = (pattern) => (window.buzzes.push(pattern), true);")
    driver.find_element("id", "play-here").click()
    wait_for(driver, "window.timekeeper.view.game && window.timekeeper.clockMs() > 300")
    game = driver.execute_script("return window.timekeeper.view.game;")
    assert wait_for(driver, "window.timekeeper.view.wakeLock && !window.timekeeper.view.wakeLock.released")
    assert driver.execute_script("return window.buzzes.length") == 0
    threat = next(c for c in game["timeline"]["cues"] if c["kind"] == "threat")
    seek_before(driver, server, game, threat, lead_ms=800)
    wait_for(driver, "window.buzzes.length === 1")
    driver.find_element("id", "toggle").click()
    wait_for(driver, "window.timekeeper.view.wakeLock === null")  # paused: the screen may sleep again


def test_a_phone_that_slept_picks_the_mission_up(server, open_browsers):
    driver = open_browsers(PHONE, phone=True)
    game = start(driver, server)
    driver.execute_script("window.timekeeper.view.socket.close(); document.getElementById('audio').pause();")
    time.sleep(2.0)  # asleep: no sound, no connection; the mission goes on
    driver.execute_script("document.dispatchEvent(new Event('visibilitychange'));")
    wait_for(driver, "!document.getElementById('audio').paused")
    asked = read_timed(lambda: server_position(server, game))
    shown = read_timed(lambda: clock(driver))
    ahead_ms = shown.value - asked.value  # the page's clock, less the server's a moment before
    assert -400 < ahead_ms < most_ms_between(asked, shown) + 400


def test_a_restarted_server_is_rejoined_at_the_right_moment(tmp_path, open_browsers):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = start_server(tmp_path / "state", "--port", str(port))
    driver = open_browsers(LAPTOP)
    try:
        start(driver, first)
        time.sleep(1.0)
    finally:
        assert first.stop() == 130
    wait_for(driver, "document.getElementById('conn').className === 'conn off'")
    second = start_server(tmp_path / "state", "--port", str(port))
    try:
        wait_for(driver, "document.getElementById('conn').className === 'conn on'", 20)
        runs_in_real_time(lambda: clock(driver), 700)  # sound and clock carry on
        assert driver.execute_script("return document.getElementById('audio').paused") is False
    finally:
        assert second.stop() == 130


def test_record_the_mission_in_the_ships_log_from_the_page(tmp_path, open_browsers):
    server = start_server(tmp_path / "state", "--log", str(tmp_path / "log.sqlite3"))
    try:
        driver = open_browsers(PHONE, phone=True)
        game = start(driver, server, "builtin:mission-2")
        command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
        wait_for(driver, "!document.getElementById('end').disabled")
        # with a long caption on a 640 px phone screen the button stays on screen (sticky controls)
        bottom = driver.execute_script("return document.getElementById('end').getBoundingClientRect().bottom")
        assert bottom <= driver.execute_script("return window.innerHeight")
        shot(driver, "end-round-phone", tmp_path)
        driver.find_element("id", "end").click()
        wait_for(driver, "document.querySelector('#logform [name=survived]')")
        crew = driver.find_element("css selector", "#logform [name=crew]")
        crew.clear()
        crew.send_keys("Ann:captain, Bob:co, Cid:sc")
        knocked_out = driver.find_element("css selector", "#logform [name=knocked_out]")
        knocked_out.clear()
        knocked_out.send_keys("5")  # more than the crew's four figures: the log refuses it
        driver.find_element("css selector", "#logform button").click()
        bad = wait_for(driver, "document.querySelector('.field.bad') && document.querySelector('.field.bad').dataset.name")
        assert bad == "knocked_out" and driver.find_element("css selector", ".field.bad .why").text
        knocked_out.clear()
        knocked_out.send_keys("0")
        survived = driver.find_element("css selector", "#logform [name=survived]")
        survived.clear()
        survived.send_keys("6")
        driver.find_element("css selector", "#logform [name=destroyed]").send_keys("2")  # "0" becomes "02"
        driver.find_element("css selector", "#logform button").click()
        result = wait_for(driver, "document.getElementById('log-result').textContent.startsWith('Recorded') && "
                                  "document.getElementById('log-result').textContent")
        assert "score 8" in result
        driver.execute_script("document.getElementById('logform').scrollIntoView()")
        shot(driver, "log-form-phone", tmp_path)
        driver.get(server.url + "log")
        row = wait_for(driver, "document.querySelector('#log-table tbody tr') && document.querySelector('#log-table tbody tr').innerText")
        assert "Mission 2" in row and "Ann" in driver.find_element("id", "log-stats").text
        shot(driver, "log-page-phone", tmp_path)
    finally:
        assert server.stop() == 130


def open_join_panel(driver) -> None:
    driver.execute_script("const box = document.getElementById('joining'); box.open = true; box.scrollIntoView();")


@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["phone", "laptop"])
def test_without_lan_the_join_panel_says_how_phones_join(server, open_browsers, tmp_path, size, phone):
    driver = open_browsers(size, phone)
    game = start(driver, server)
    open_join_panel(driver)
    note = wait_for(driver, "!document.getElementById('join-local').hidden && document.getElementById('join-local').innerText")
    assert "other phones can join when the server runs with timekeeper serve --lan" in note.lower()
    assert not driver.find_element("id", "qr").is_displayed()  # a phone could not reach 127.0.0.1
    assert driver.find_element("id", "join").text == game["join_url"] and "//127.0.0.1:" in game["join_url"]
    shot(driver, f"join-local-{'phone' if phone else 'laptop'}", tmp_path)


def test_in_lan_mode_the_join_panel_shows_the_qr_code(tmp_path, open_browsers):
    fake_network = "import timekeeper.serve.web.network as network; network.lan_addresses = lambda: ['192.0.2.7']"
    server = start_server(tmp_path / "state", "--lan", prelude=fake_network)
    try:
        driver = open_browsers(PHONE, phone=True)
        driver.get(f"{server.url}?token={server.token}")  # the token becomes a cookie
        game = start(driver, server)
        open_join_panel(driver)
        wait_for(driver, "document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0")
        assert driver.find_element("id", "qr").is_displayed()
        assert not driver.find_element("id", "join-local").is_displayed()
        assert driver.find_element("id", "join").text.startswith(f"http://192.0.2.7:{server.port}/g/{game['id']}?token=")
        shot(driver, "join-lan-phone", tmp_path)
    finally:
        assert server.stop() == 130


def test_without_wake_lock_a_muted_video_keeps_the_screen_awake(server, open_browsers, tmp_path):
    """A phone over --lan (plain http) has no navigator.wakeLock: the page plays its keep-awake video,
    large enough for Chrome to keep the screen on (a fifth of the screen), while the mission plays."""
    driver = open_browsers(PHONE, phone=True)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete Navigator.prototype.wakeLock;"})
    start(driver, server)
    assert driver.execute_script("return 'wakeLock' in navigator") is False
    wait_for(driver, "!document.getElementById('awake').paused && document.getElementById('awake').currentTime > 0")
    video = driver.execute_script("const v = document.getElementById('awake'); const r = v.getBoundingClientRect();"
                                  "return {muted: v.muted, area: r.width * r.height, screen: innerWidth * innerHeight,"
                                  "src: v.currentSrc};")
    assert video["muted"] and video["area"] >= 0.2 * video["screen"] and video["src"].endswith("/assets/awake.webm")
    assert driver.execute_script("return window.timekeeper.view.wakeLock") is None
    shot(driver, "awake-video-phone", tmp_path)  # the video is never seen
    driver.find_element("id", "toggle").click()
    wait_for(driver, "document.getElementById('awake').paused")  # paused: the screen may sleep again
    driver.find_element("id", "toggle").click()
    wait_for(driver, "!document.getElementById('awake').paused")


def test_the_space_bar_pauses_and_resumes(server, open_browsers):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver = open_browsers(LAPTOP)
    game = start(driver, server)  # Play was clicked: the space bar works without clicking elsewhere first
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    wait_for(driver, "document.getElementById('audio').paused")
    stopped = clock(driver)
    time.sleep(0.5)
    assert clock(driver) == stopped
    assert server.request(f"/api/games/{game['id']}").json()["playback"]["status"] == "paused"
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    wait_for(driver, "!document.getElementById('audio').paused")
    runs_in_real_time(lambda: clock(driver), 300)
    assert server.request(f"/api/games/{game['id']}").json()["playback"]["status"] == "playing"


def test_an_invalid_scenario_file_is_listed_greyed_with_its_problem(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelector('#track option[value=\"folder:broken.yaml\"]')")
    listed = driver.execute_script("const o = document.querySelector('#track option[value=\"folder:broken.yaml\"]');"
                                   "return {disabled: o.disabled, text: o.textContent};")
    assert listed["disabled"] and re.match(r"✗ broken\.yaml: line 4, column \d+: .*'green'", listed["text"]), listed  # the page's words
    driver.execute_script("localStorage.setItem('tk-track', 'folder:broken.yaml');")
    driver.refresh()
    wait_for(driver, "document.querySelectorAll('#track option').length >= 34")  # remembered, yet not chosen
    assert driver.execute_script("return document.getElementById('track').selectedOptions[0].disabled") is False


def test_a_download_waiting_in_the_render_queue_shows_its_place(server, open_browsers):
    ahead = []
    for players in (4, 3):  # two soundtracks of other mixes are rendered first
        reply = server.request("/api/games", method="POST", json_body={
            "track": "builtin:double-action-4", "settings": {"players": players}})
        ahead.append(server.request(f"/api/games/{reply.json()['id']}/renders", method="POST", json_body={"format": "ogg"}))
    assert [reply.status for reply in ahead] == [202, 202]
    driver = open_browsers(LAPTOP)
    start(driver, server)
    driver.execute_script("document.querySelector('[data-render=\"mp3\"]').click();")
    shown = wait_for(driver, "document.getElementById('render-queue').textContent", timeout_s=20)
    assert shown in ("waiting: 1 ahead", "waiting: 2 ahead")
    assert driver.execute_script("return !document.getElementById('render-queue').hidden;")
