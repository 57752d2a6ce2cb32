"""Hosted mode's page in real headless Chromium, at a phone (360x640) and a laptop (1280x800), in
English and German: the ship's log shows the crew link in the page's language (no account: a
bookmarkable link), another browser that opens the link sees the same log, and a browser of
another crew sees none of it."""

from __future__ import annotations

import pytest
from accessibility import axe_violations, describe, small_targets
from realparts import needs
from serving import LAPTOP, PHONE, start_server, wait_for

from timekeeper.i18n import messages

pytestmark = needs("chromium", "chromedriver")
RECORD = """
const done = arguments[arguments.length - 1];
const post = (path, body) => fetch(path, {method: "POST", body: JSON.stringify(body),
  headers: {"X-Timekeeper": "1", "Content-Type": "application/json"}}).then((r) => r.json());
post("/api/lobby", {track: "builtin:mission-2"})
  .then((game) => post(`/api/games/${game.id}/log`, {crew: "Ann, Bob, Cid", survived: "3", destroyed: "5"}))
  .then(done, (error) => done(String(error)));
"""


@pytest.fixture
def hosted(tmp_path):  # a server of its own per test: the browser's requests all count as 127.0.0.1's
    running = start_server(tmp_path / "state", "--public")
    yield running
    assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)


def rows(driver) -> int:
    return driver.execute_script("return document.querySelectorAll('#log-table tbody tr').length;")


@needs("axe-core")
@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["phone", "laptop"])
def test_the_crew_link_opens_the_crews_log_and_only_there(hosted, open_browsers, size, phone, language):
    words = messages(language)
    driver = open_browsers(size, phone)
    driver.get(hosted.url)
    driver.execute_script("localStorage.setItem('tk-language', arguments[0])", language)
    recorded = driver.execute_async_script(RECORD)
    assert isinstance(recorded, dict) and recorded.get("id"), recorded
    driver.get(hosted.url + "log")
    wait_for(driver, f"document.documentElement.lang === '{language}' && !document.getElementById('crewlink').hidden"
                     " && document.getElementById('crewlink-url').value")
    assert rows(driver) == 1
    section = driver.find_element("id", "crewlink")
    assert section.find_element("tag name", "h2").text == words["log.crew.title"]
    assert words["log.crew.help"] in section.text
    link = driver.find_element("id", "crewlink-url").get_attribute("value")
    assert link.startswith(hosted.url + "crew/")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert small_targets(driver) == []
    violations = axe_violations(driver)
    assert violations == [], describe(violations)
    driver.find_element("id", "crewlink-copy").click()
    wait_for(driver, f"document.getElementById('toast').textContent === {words['log.crew.copied']!r}")

    other = open_browsers(size, phone)  # another phone of the crew: the link is all it needs
    other.get(link)
    wait_for(other, "location.pathname === '/log' && document.querySelector('#log-table tbody tr')")
    assert rows(other) == 1
    assert other.find_element("id", "crewlink-url").get_attribute("value") == link
    stranger = open_browsers(size, phone)  # another crew's browser
    stranger.get(hosted.url + "log")
    stranger.execute_script("localStorage.setItem('tk-language', arguments[0])", language)
    stranger.refresh()
    wait_for(stranger, f"document.documentElement.lang === '{language}' && !document.getElementById('crewlink').hidden && document.getElementById('crewlink-url').value")
    assert rows(stranger) == 1 and stranger.find_element("css selector", "#log-table tbody").text == words["log.empty"]
    assert stranger.find_element("id", "crewlink-url").get_attribute("value") != link


@needs("axe-core")
@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["phone", "laptop"])
def test_a_crew_starts_a_room_with_its_link_qr_code_and_short_code(hosted, open_browsers, size, phone, language):
    words = messages(language)
    driver = open_browsers(size, phone)
    driver.get(hosted.url)
    driver.execute_script("localStorage.setItem('tk-language', arguments[0])", language)
    driver.refresh()
    wait_for(driver, f"document.documentElement.lang === '{language}' && !document.getElementById('lobby').hidden"
                     " && document.getElementById('lobby-code').textContent"
                     " && document.getElementById('lobby-qr').complete && !document.getElementById('lobby-qr').hidden", 30)
    lobby = driver.find_element("id", "lobby")
    assert lobby.find_element("css selector", ".expiry").text == words["page.join.expiry"].format(time="2 h")
    link = driver.find_element("id", "lobby-link").get_attribute("href")
    code = driver.find_element("id", "lobby-code").text
    assert driver.execute_script("return document.getElementById('lobby-qr').naturalWidth") > 100  # the QR code drawn
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert small_targets(driver) == []
    violations = axe_violations(driver)
    assert violations == [], describe(violations)
    room = hosted.request(f"/api/join/{code}").json()["id"]  # the code leads to the room of the link
    assert link.endswith(f"/g/{room}")


def test_too_many_requests_are_refused_in_the_crews_language(hosted, open_browsers):
    words = messages("de")
    driver = open_browsers(PHONE, True)
    driver.get(hosted.url)
    driver.execute_script("localStorage.setItem('tk-language', 'de')")
    driver.refresh()
    wait_for(driver, "document.documentElement.lang === 'de' && !document.getElementById('lobby').hidden", 30)
    statuses = driver.execute_async_script("""const done = arguments[0];
        (async () => { const seen = [];
          for (let n = 0; n < 20; n++) seen.push((await fetch('/api/tracks/flashcode', {method: 'POST',
            headers: {'X-Timekeeper': '1', 'Content-Type': 'application/json'},
            body: JSON.stringify({code: '010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2'})})).status);
          return seen; })().then(done, (error) => done(String(error)));""")
    assert statuses == [201] * 20
    driver.find_element("id", "tab-code").click()
    driver.find_element("css selector", "#code textarea").send_keys("010AL1TW,050ID,120AL2TR,215DT,340PE1,660PE2")
    driver.find_element("css selector", "#code button[type=submit]").click()
    wait_for(driver, "!document.getElementById('problems').hidden")
    assert words["error.rate_limited"] in driver.find_element("id", "problems").text
