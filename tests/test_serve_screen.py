"""The mission screen at a real table, in Debian's headless chromium against a real server: the
sound survives a reload, Back and the log; phones join in the lobby before Play; ending is undone;
phase, clock, banner and caption stay in view at every size; no frames while stopped; quiet mode.

Screenshots go to $TIMEKEEPER_SCREENSHOTS when it is set (docs/screenshots keeps the looked-at ones).
"""

from __future__ import annotations

import time

import pytest
import test_serve_browser as browser_tests
from realparts import needs
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from serving import LAPTOP, PHONE, SOUND_START_S, counted, start_counting, wait_for
from test_serve_browser import clock, command, server_position, shot, start
from waiting import most_ms_between, read_timed, runs_in_real_time, wait_until

server = browser_tests.server  # the same server: one for the module (open_browsers: conftest)

pytestmark = needs("chromium", "chromedriver")
LANDSCAPE = (640, 360)
SIZES = [(PHONE, True, "phone"), (LANDSCAPE, True, "landscape"), (LAPTOP, False, "laptop")]
WARNS = "const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented;"
# the card (phase 3 and all) is neither shown nor fetched: the after-mission part is hidden and empty
CARD_UNSEEN = "return document.getElementById('after').hidden && !document.querySelector('#card tr')"
COUNT_FRAMES = """window.rafCalls = 0; const real = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => real((t) => { window.rafCalls++; callback(t); });"""


def audio(driver) -> dict:
    return driver.execute_script("const a = document.getElementById('audio');"
                                 "return {paused: a.paused, at: a.currentTime * 1000, src: a.src};")




def test_a_reload_on_the_sound_device_warns_then_one_tap_resumes_at_the_missions_moment(server, open_browsers, tmp_path):
    driver = open_browsers(PHONE, phone=True)
    driver.get(server.url)
    wait_for(driver, "document.getElementById('lobby-code').textContent")
    assert not driver.execute_script(WARNS)  # the set-up screen is left without a question
    game = start(driver, server)
    wait_until(lambda: driver.execute_script(WARNS), 15, "the page to ask before it is left")  # during a mission
    driver.refresh()  # (WebDriver accepts that question itself)
    resume = wait_for(driver, "!document.getElementById('resume').hidden && document.querySelector('#resume button').textContent")
    assert resume.startswith("Resume the sound at 0:0")
    assert audio(driver)["paused"] and driver.find_element("id", "join-tap").is_displayed() is False
    shot(driver, "resume-phone", tmp_path)
    time.sleep(1.0)  # the mission goes on while the screen waits for the tap
    driver.find_element("css selector", "#resume button").click()
    wait_for(driver, "!document.getElementById('audio').paused && document.getElementById('audio').currentTime > 0", SOUND_START_S)
    heard = read_timed(lambda: audio(driver)["at"])
    asked = read_timed(lambda: server_position(server, game))
    behind_ms = asked.value - heard.value  # the server's clock, less the sound's a moment before
    assert -500 < behind_ms < most_ms_between(heard, asked) + 500
    assert driver.find_element("id", "sound-here").is_selected()


def test_a_sound_start_cut_short_asks_for_no_tap_and_the_sound_starts_again(server, open_browsers):
    """A start of the sound cut short (play() rejected with AbortError: the mission was paused, or
    the source changed, while the sound was starting) is no refusal to play: no "tap to resume"
    covers the screen, and the sound device follows the mission again."""
    driver = open_browsers(PHONE, phone=True)
    game = start(driver, server)
    command(server, game, type="pause")
    wait_for(driver, "document.getElementById('audio').paused && window.timekeeper.view.playback.status === 'paused'")
    driver.execute_script("""const real = HTMLMediaElement.prototype.play; let cut = 1;
        HTMLMediaElement.prototype.play = function () {
          if (this.id === 'audio' && cut-- > 0) return Promise.reject(new DOMException('cut short', 'AbortError'));
          return real.call(this);
        };""")
    command(server, game, type="play")
    wait_for(driver, "!document.getElementById('audio').paused && document.getElementById('audio').currentTime > 0", SOUND_START_S)
    assert driver.execute_script("return document.getElementById('resume').hidden")
    command(server, game, type="pause")


def test_back_and_the_log_keep_the_sound_playing(server, open_browsers):
    driver = open_browsers(PHONE, phone=True)
    game = start(driver, server)
    driver.back()  # Android's Back gesture
    wait_for(driver, "!document.getElementById('toast').hidden")
    assert driver.current_url.endswith(f"/g/{game['id']}") and not audio(driver)["paused"]
    assert driver.find_element("id", "game").is_displayed()
    driver.find_element("id", "loglink").click()
    wait_for(driver, "!document.getElementById('logview').hidden && document.querySelector('#log-table tr')")
    runs_in_real_time(lambda: audio(driver)["at"], 300)  # the sound plays on under the log
    assert not audio(driver)["paused"]
    driver.back()  # Back closes the log, not the mission
    wait_for(driver, "document.getElementById('logview').hidden")
    driver.find_element("id", "brand").click()  # the logo does not leave a running mission
    time.sleep(0.3)
    assert driver.current_url.endswith(f"/g/{game['id']}") and not audio(driver)["paused"]


def test_space_on_a_focused_checkbox_pauses_and_leaves_it_ticked(server, open_browsers):
    driver = open_browsers(LAPTOP)
    game = start(driver, server)
    driver.execute_script("document.getElementById('sound-here').focus()")
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    wait_for(driver, "document.getElementById('audio').paused")
    assert driver.find_element("id", "sound-here").is_selected()
    assert server.request(f"/api/games/{game['id']}").json()["playback"]["status"] == "paused"


def test_phones_join_in_the_lobby_see_who_is_there_and_one_play_starts_all(server, open_browsers, tmp_path):
    host = open_browsers(LAPTOP)
    host.get(server.url)
    code = wait_for(host, "document.getElementById('lobby-code').textContent")
    phone = open_browsers(PHONE, phone=True)
    phone.get(server.url)
    wait_for(phone, "document.getElementById('lobby-code').textContent")  # the set-up screen has settled
    field = phone.find_element("css selector", "#join-code input")
    field.send_keys(code.lower() + Keys.ENTER)  # typed as read aloud, in lower case
    wait_for(phone, "location.pathname.startsWith('/g/') && window.timekeeper.view.game")
    phone.find_element("css selector", "#join-tap button").click()
    assert phone.find_element("id", "waiting").is_displayed()
    wait_for(host, "document.querySelector('#lobby .presence').textContent.includes('Phone 1')")
    listed = host.find_element("css selector", "#lobby .presence").text
    assert "Screen 1 (this one) ♪ plays the sound" in listed
    wait_for(phone, "document.querySelector('#waiting .presence').textContent.includes('Phone 1 (this one)')")
    assert "Screen 1 ♪ plays the sound" in phone.find_element("css selector", "#waiting .presence").text
    shot(host, "lobby-laptop", tmp_path)
    shot(phone, "lobby-phone", tmp_path)
    host.execute_script("const t = document.getElementById('track'); t.value = 'builtin:mission-3';"
                        "t.dispatchEvent(new Event('change'));")  # the crew changes its mind
    # (the phone's fetch of the game waits for the new track's mix: with an empty clip cache, a mix's time)
    wait_for(phone, "window.timekeeper.view.game.track_id === 'builtin:mission-3'", SOUND_START_S)
    host.find_element("id", "play-here").click()  # one press starts it for all
    wait_for(host, "!document.getElementById('audio').paused && window.timekeeper.clockMs() > 300", SOUND_START_S)
    wait_for(phone, "window.timekeeper.view.playback.status === 'playing' && window.timekeeper.clockMs() > 300")
    assert phone.find_element("id", "waiting").is_displayed() is False
    assert abs(clock(host) - clock(phone)) < 300


def test_ending_is_undone_from_any_screen_then_the_card_comes_into_view_and_fits(server, open_browsers, tmp_path):
    sound = open_browsers(LAPTOP)
    game = start(sound, server)
    phone = open_browsers(PHONE, phone=True)
    phone.get(game["join_url"])
    wait_for(phone, "window.timekeeper.view.game")
    phone.find_element("css selector", "#join-tap button").click()
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 2000)
    wait_for(phone, "!document.getElementById('end').disabled")
    phone.find_element("id", "end").click()
    for driver in (sound, phone):  # every screen can take it back, and none shows what was still to come
        wait_for(driver, "!document.getElementById('undo').hidden")
        assert driver.execute_script(CARD_UNSEEN)
    assert "Undo within" in sound.find_element("css selector", "#undo span").text
    toast = phone.execute_script("const r = document.getElementById('undo').getBoundingClientRect(); return [r.width, r.height];")
    assert toast[0] >= 280 and toast[1] <= 100, toast  # one readable line across the phone, not a narrow tower
    sound.find_element("css selector", "#undo button").click()
    wait_for(phone, "window.timekeeper.view.playback.status === 'playing' && document.getElementById('after').hidden")
    wait_for(sound, "!document.getElementById('audio').paused")
    phone.find_element("id", "end").click()
    wait_for(phone, "!document.getElementById('undo').hidden")
    deadline = time.monotonic() + 15
    while not phone.execute_script("return document.getElementById('undo').hidden"):  # the whole undo window
        for driver in (sound, phone):
            assert driver.execute_script("return document.getElementById('undo').hidden") or driver.execute_script(CARD_UNSEEN)
        assert time.monotonic() < deadline
        time.sleep(0.2)
    wait_for(phone, "document.querySelectorAll('#card tr').length > 5")
    assert phone.find_element("id", "phase").text.lower() == "action round over"
    assert phone.find_element("id", "left").text == "0:00"
    top = phone.execute_script("return document.getElementById('after').getBoundingClientRect().top")
    assert 0 <= top < phone.execute_script("return innerHeight") / 2  # the card is brought into view
    fits = phone.execute_script("const c = document.querySelector('#card table');"
                                "return [c.getBoundingClientRect().right, document.documentElement.clientWidth]")
    assert fits[0] <= fits[1], fits  # no column cut off at 360 px
    shot(phone, "ended-card-phone", tmp_path)
    assert audio(sound)["paused"]
    phone.execute_script("window.sameDocument = true")  # gone if the phone's page were loaded again
    sound.find_element("id", "replay").click()  # the same track again: the set-up screen, the phone comes along
    code = wait_for(sound, "document.getElementById('lobby-code').textContent")
    followed(phone, game, code)
    assert sound.find_element("id", "track").get_attribute("value") == "builtin:mission-1"
    sound.find_element("id", "play-here").click()  # played from the host: the phone's Pause pauses it, at once
    wait_for(phone, "window.timekeeper.view.playback.status === 'playing'")
    assert phone.execute_script(PAUSE_ON_TOP)
    phone.find_element("id", "toggle").click()
    wait_for(sound, "window.timekeeper.view.playback.status === 'paused' && document.getElementById('audio').paused")


FOLLOWED = ("location.pathname !== '/g/{old}' && window.timekeeper.view.game && window.timekeeper.view.game.id !== '{old}'"
            " && window.timekeeper.view.playback.status === 'ready'")
PAUSE_ON_TOP = ("const r = document.getElementById('toggle').getBoundingClientRect();"
                "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === document.getElementById('toggle')")


def followed(phone, game, code) -> None:
    """The joined `phone` is in the next mission's lobby (short code `code`), on the same page: no
    reload, so no tap asked again and nothing over its controls."""
    wait_for(phone, FOLLOWED.format(old=game["id"]))
    assert phone.execute_script("return window.timekeeper.view.game.code") == code
    assert phone.execute_script("return window.sameDocument && document.getElementById('join-tap').hidden")
    assert phone.current_url.endswith(f"/g/{phone.execute_script('return window.timekeeper.view.game.id')}")


def test_after_a_new_random_mission_the_joined_screens_follow_without_a_tap(server, open_browsers):
    host = open_browsers(LAPTOP)
    game = start(host, server)
    phone = open_browsers(PHONE, phone=True)
    phone.get(game["join_url"])
    wait_for(phone, "window.timekeeper.view.game && !document.getElementById('join-tap').hidden")
    phone.find_element("css selector", "#join-tap button").click()
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
    command(server, game, type="end")
    wait_for(host, "document.querySelectorAll('#card tr').length > 5", 15)
    phone.execute_script("window.sameDocument = true")
    host.find_element("id", "new-random").click()  # a generated track, chosen on the set-up screen
    code = wait_for(host, "document.getElementById('track').value.startsWith('gen') || document.getElementById('track').value"
                          " !== 'builtin:mission-1' ? document.getElementById('lobby-code').textContent : ''", 30)
    followed(phone, game, code)
    assert phone.execute_script("return window.timekeeper.view.game.track_id") == host.execute_script(
        "return document.getElementById('track').value")


@pytest.mark.parametrize("size, phone, name", SIZES, ids=[s[2] for s in SIZES])
def test_phase_clock_banner_and_caption_stay_in_view(server, open_browsers, tmp_path, size, phone, name):
    driver = open_browsers(size, phone)
    game = start(driver, server)
    outage = next(c for c in game["timeline"]["cues"] if c["kind"] == "comms_down")
    command(server, game, type="seek", at_ms=outage["at_ms"] + 3000)
    wait_for(driver, "!document.getElementById('banner').hidden && document.getElementById('caption').textContent")
    driver.execute_script("const s = document.getElementById('scroller'); s.scrollTo(0, s.scrollHeight)")  # the history read
    wait_for(driver, "(s => s.scrollTop + s.clientHeight >= s.scrollHeight - 1)(document.getElementById('scroller'))")
    rects = driver.execute_script("""const box = (id) => document.getElementById(id).getBoundingClientRect();
        return {phase: box('phase'), left: box('left'), banner: box('banner'), caption: box('caption'),
                controls: document.querySelector('.controls').getBoundingClientRect(), height: innerHeight, width: innerWidth};""")
    for key in ("phase", "left", "banner", "caption"):
        rect = rects[key]
        assert rect["top"] >= 0 and rect["bottom"] <= rects["controls"]["top"] + 1, (key, rect, rects["controls"])
        assert rect["left"] >= 0 and rect["right"] <= rects["width"], (key, rect)
    shot(driver, f"mission-{name}", tmp_path)


def test_no_animation_frames_while_paused_or_ended(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_FRAMES})
    game = start(driver, server)
    assert wait_for(driver, "window.rafCalls > 10")  # playing: a frame per screen refresh
    driver.find_element("id", "toggle").click()
    wait_for(driver, "window.timekeeper.view.playback.status === 'paused' && window.timekeeper.view.frameId === null")
    calls = driver.execute_script("return window.rafCalls")
    time.sleep(1.0)
    assert driver.execute_script("return window.rafCalls") == calls
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
    wait_for(driver, "!document.getElementById('end').disabled")
    command(server, game, type="end")
    wait_for(driver, "window.timekeeper.view.playback.status === 'ended' && window.timekeeper.view.frameId === null")
    calls = driver.execute_script("return window.rafCalls")
    time.sleep(1.0)
    assert driver.execute_script("return window.rafCalls") == calls
    live = driver.execute_script("return [...document.querySelectorAll('[aria-live]')].map(e => e.id)")
    assert "caption" not in live and "said" in live  # whole announcements only, never word by word


def test_a_playing_screen_changes_the_page_only_when_what_it_shows_changes(server, open_browsers):
    """A frame per screen refresh, but the page is written only where the clock, the caption or the
    banner changed: writing the same text 60 times a second made the browser lay out and paint again
    each time (0.36 of a core per playing screen here, 0.15 since)."""
    driver = open_browsers(PHONE, phone=True)
    start(driver, server)
    wait_for(driver, "window.timekeeper.frames > 10")
    start_counting(driver)
    started = time.monotonic()
    wait_until(lambda: counted(driver)[0] > 180, 30, "180 frames")  # drawn all along (about 3 s at 60 a second)
    frames, changes = counted(driver)
    seconds = time.monotonic() - started
    # the clock's two figures each second, the caption word by word: 4 a second here; 416 before
    assert changes < 20 * seconds, (frames, changes, seconds)


@pytest.mark.parametrize("size, phone, name", SIZES, ids=[s[2] for s in SIZES])
def test_quiet_mode_flashes_every_announcement_without_sound(server, open_browsers, tmp_path, size, phone, name):
    driver = open_browsers(size, phone)
    driver.get(server.url)
    wait_for(driver, "document.getElementById('lobby-code').textContent")
    driver.find_element("id", "quiet").click()
    driver.find_element("id", "play-here").click()
    wait_for(driver, "!document.getElementById('flash').hidden")
    assert "Enemy activity" in driver.find_element("css selector", "#flash p").text
    assert driver.execute_script("return window.timekeeper.view.game.mode") == "quiet"
    assert audio(driver)["paused"] and "/sound" not in audio(driver)["src"]
    wait_for(driver, "document.querySelector('.more .presence').textContent.includes('(this one)')")
    assert "♪" not in driver.find_element("css selector", ".more .presence").get_attribute("textContent")  # no device plays
    rect = driver.execute_script("return document.getElementById('flash').getBoundingClientRect()")
    assert rect["width"] >= driver.execute_script("return innerWidth") - 1
    assert rect["height"] >= driver.execute_script("return innerHeight") - 1
    shot(driver, f"quiet-alert-{name}", tmp_path)


@pytest.mark.parametrize("size, phone, name", SIZES, ids=[s[2] for s in SIZES])
def test_the_set_up_screen_in_german_says_so(server, open_browsers, tmp_path, size, phone, name):
    driver = open_browsers(size, phone)
    driver.get(server.url)
    wait_for(driver, "document.getElementById('lobby-code').textContent")
    shot(driver, f"setup-{name}", tmp_path)
    driver.execute_script("document.querySelector('.panel.start').scrollIntoView()")
    shot(driver, f"setup-lobby-{name}", tmp_path)
    driver.execute_script("const l = document.getElementById('language'); l.value = 'de'; l.dispatchEvent(new Event('change'));")
    wait_for(driver, "document.documentElement.lang === 'de'")
    assert driver.find_element("css selector", "#lobby .hint span").text == "Verbunden:"
    assert driver.find_element("css selector", "[data-i18n='page.setup.language']").text == "Sprache"
    driver.execute_script("localStorage.setItem('tk-language', 'en')")


def test_a_training_pace_stretches_the_whole_mission(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.getElementById('lobby-code').textContent && !document.getElementById('pace-field').hidden")
    driver.execute_script("const p = document.getElementById('pace'); p.value = '1.5'; p.dispatchEvent(new Event('change'));")
    game = start(driver, server)
    assert game["settings"]["pace"] == 1.5
    assert game["timeline"]["phase_ends_ms"][-1] == 900_000  # Mission 1's 10:00 at 1.5x
    assert driver.find_element("id", "elapsed").text.endswith("/ 15:00")
    driver.execute_script("localStorage.removeItem('tk-pace')")


@pytest.mark.parametrize("size, phone, name", SIZES, ids=[s[2] for s in SIZES])
def test_the_card_comes_into_view_at_every_size(server, open_browsers, tmp_path, size, phone, name):
    driver = open_browsers(size, phone)
    game = start(driver, server)
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
    command(server, game, type="end")
    wait_for(driver, "document.querySelectorAll('#card tr').length > 5")
    view = driver.execute_script("""const box = (s) => document.querySelector(s).getBoundingClientRect();
        return {phase: box('#phase'), card: box('#card table'), height: innerHeight, width: document.documentElement.clientWidth};""")
    assert view["phase"]["top"] >= 0 and view["card"]["top"] < view["height"]  # "over" and the card, both seen
    assert view["card"]["right"] <= view["width"]
    shot(driver, f"ended-card-{name}", tmp_path)


PROMPT_BOXES = """const box = document.getElementById('prompt').getBoundingClientRect();
const foot = document.getElementById('controls').getBoundingClientRect().top;
return {box: [box.top, box.bottom], foot, height: innerHeight, clipped: document.getElementById('prompt').scrollHeight
          > document.getElementById('prompt').clientHeight + 1,
        lines: [...document.querySelectorAll('#prompt p')].map((p) => {
          const r = p.getBoundingClientRect(); return {cls: p.className, text: p.innerText, top: r.top, bottom: r.bottom}; })};"""


@pytest.mark.parametrize("size, phone, name", SIZES, ids=[s[2] for s in SIZES])
def test_the_prompter_keeps_the_announcement_being_read_and_the_next_below_it_in_view(
        server, open_browsers, tmp_path, size, phone, name):
    """The moment an announcement must be read it stays on the prompter, whole, until it ends (the
    voice's pace marked on it); the next one below it; every line in view above Pause and End."""
    driver = open_browsers(size, phone)
    game = start(driver, server)
    command(server, game, type="pause")
    driver.find_element("id", "prompter").click()
    cues = game["timeline"]["cues"]
    threat = next(c for c in cues if c["kind"] == "threat" and c["at_ms"] > 60_000)
    command(server, game, type="seek", at_ms=threat["at_ms"] + 1200)  # it must be read now
    reading = wait_for(driver, "document.querySelector('#prompt .reading') && document.querySelector('#prompt .reading').innerText")
    assert reading == threat["text"]  # the whole announcement, not the words said so far
    prompt = driver.execute_script(PROMPT_BOXES)
    kinds = [line["cls"] for line in prompt["lines"]]
    assert kinds[:2] == ["read-now", "say reading"] and "next" in kinds[2:], kinds  # the next one below it
    assert not prompt["clipped"] and 0 <= prompt["box"][0] and prompt["box"][1] <= prompt["foot"] + 1, prompt
    assert all(prompt["box"][0] <= line["top"] and line["bottom"] <= prompt["box"][1] + 1 for line in prompt["lines"]), prompt
    shot(driver, f"prompter-reading-{name}", tmp_path)
    # an announcement being read while the next one is near: both, the one being read first
    read, soon = next((c, d) for c, d in zip(cues, cues[1:]) if d["at_ms"] - 14_000 < c["end_ms"] - 500)
    command(server, game, type="seek", at_ms=max(read["at_ms"] + 500, soon["at_ms"] - 14_000))
    wait_for(driver, f"document.querySelectorAll('#prompt .say').length === 2 && document.querySelector('#prompt .reading')"
                     f".innerText === {read['text']!r}")
    prompt = driver.execute_script(PROMPT_BOXES)
    assert [line["text"] for line in prompt["lines"] if line["cls"].startswith("say")] == [read["text"], soon["text"]]
    assert not prompt["clipped"] and prompt["box"][1] <= prompt["foot"] + 1, prompt
    assert all(prompt["box"][0] <= line["top"] and line["bottom"] <= prompt["box"][1] + 1 for line in prompt["lines"]), prompt
    shot(driver, f"prompter-next-{name}", tmp_path)


@pytest.mark.parametrize("language", ["de", "pl"])
def test_a_paused_mission_is_resumed_in_the_crews_words(server, open_browsers, language):
    from timekeeper.i18n import messages

    words = messages(language)
    reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1", "settings": {"language": language}})
    game = reply.json()
    command(server, game, type="play")
    driver = open_browsers(PHONE, phone=True)
    driver.get(game["join_url"])
    wait_for(driver, f"window.timekeeper.view.game && document.getElementById('toggle').textContent === {words['page.game.pause']!r}")
    command(server, game, type="pause")
    wait_for(driver, f"document.getElementById('toggle').textContent === {words['page.game.resume']!r}")
    assert words["page.game.resume"] != words["page.game.play"]  # "Weiter", never "Start" again


def test_a_phone_held_sideways_keeps_the_ships_log_link(server, open_browsers, tmp_path):
    driver = open_browsers(LANDSCAPE, phone=True)
    start(driver, server)
    assert not driver.find_element("id", "loglink").is_displayed()  # the header makes room for the clock
    link = driver.find_element("id", "stage-log")
    assert link.is_displayed() and link.text == "Ship's log"
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height, r.bottom];", link)
    assert box[0] >= 44 and box[1] >= 44 and box[2] <= driver.execute_script("return innerHeight")
    shot(driver, "mission-landscape-log-link", tmp_path)
    link.click()
    wait_for(driver, "!document.getElementById('logview').hidden && document.querySelector('#log-table tr')")
    assert not audio(driver)["paused"]  # the sound plays on under the log
    driver.back()
    wait_for(driver, "document.getElementById('logview').hidden")
