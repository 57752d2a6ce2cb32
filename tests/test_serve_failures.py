"""Every request the page makes in the background may fail: it is caught and said on screen in the
crew's language, never an unhandled promise rejection or an error in the console. In Debian's
headless Chromium against a real server, with the page's requests made to fail where a test says:
as a lost network does (fetch rejects) or as a proxy's error page does (502, HTML).

The failures are set before the page loads, by a script that wraps `fetch` and counts every
unhandled rejection (`sessionStorage` carries both across the page's own navigations).
"""

from __future__ import annotations

import pytest
import test_serve_browser as browser_tests
from realparts import needs
from serving import LAPTOP, PHONE, wait_for
from test_serve_browser import command, start

from timekeeper.i18n import messages

server = browser_tests.server  # the same server: one for the module (open_browsers: conftest)

pytestmark = needs("chromium", "chromedriver")
WORDS = messages("de")
FAILING = r"""
window.rejections = JSON.parse(sessionStorage.getItem('tk-test-rejections') || '[]');
window.addEventListener('unhandledrejection', (event) => {
  window.rejections.push(String(event.reason && (event.reason.stack || event.reason.message) || event.reason));
  sessionStorage.setItem('tk-test-rejections', JSON.stringify(window.rejections));
}, { capture: true });
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = String(input && input.url || input);
  const lost = sessionStorage.getItem('tk-test-lost'), proxy = sessionStorage.getItem('tk-test-502');
  if (lost && new RegExp(lost).test(url)) return Promise.reject(new TypeError('Failed to fetch'));
  if (proxy && new RegExp(proxy).test(url)) {
    return Promise.resolve(new Response('<html><h1>502 Bad Gateway</h1></html>', {status: 502, statusText: 'Bad Gateway',
      headers: {'Content-Type': 'text/html'}}));
  }
  return realFetch(input, init);
};
"""


def failing_browser(open_browsers, size=PHONE, phone=True):
    driver = open_browsers(size, phone)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAILING})
    return driver


def fail(driver, pattern: str = "", proxy: str = "") -> None:
    """From now on, requests whose URL matches `pattern` fail as without a network, `proxy` with a 502 page."""
    driver.execute_script("sessionStorage.setItem('tk-test-lost', arguments[0]); sessionStorage.setItem('tk-test-502', arguments[1]);",
                          pattern, proxy)


def german(driver, server) -> None:
    driver.get(server.url)
    driver.execute_script("localStorage.setItem('tk-language', 'de')")


def notice(driver) -> str:
    return wait_for(driver, "!document.getElementById('toast').hidden && document.getElementById('toast').classList"
                            ".contains('error') && document.getElementById('toast').textContent")


def nothing_unhandled(driver) -> None:
    """No unhandled rejection on any page the browser showed, and no error of the page's own in the console."""
    assert driver.execute_script("return window.rejections") == []
    errors = [entry["message"] for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and entry.get("source") != "network"]
    assert errors == []


def test_the_set_up_screen_says_it_cannot_reach_the_server(server, open_browsers):
    driver = failing_browser(open_browsers)
    german(driver, server)
    fail(driver, r"/api/tracks")
    driver.refresh()
    assert notice(driver) == WORDS["page.error.network"]
    assert driver.find_element("id", "setup").is_displayed()
    fail(driver, r"/api/messages/")
    driver.execute_script("const l = document.getElementById('language'); l.value = 'fr'; l.dispatchEvent(new Event('change'));")
    wait_for(driver, f"document.getElementById('toast').textContent === {WORDS['page.error.network']!r}"
                     " && document.documentElement.lang === 'de'")  # still German: the French words never came
    fail(driver, proxy=r"/api/tracks")
    driver.execute_script("localStorage.setItem('tk-language', 'de')")  # (French was chosen, though its words never came)
    driver.refresh()
    assert notice(driver) == WORDS["page.error.status"].format(status=502)
    nothing_unhandled(driver)


def test_a_game_that_cannot_be_fetched_leads_back_to_the_set_up_screen_in_words(server, open_browsers):
    driver = failing_browser(open_browsers)
    german(driver, server)
    game = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1", "settings": {"language": "de"}}).json()
    fail(driver, r"/api/games/[0-9a-f]{12}$")
    driver.get(game["join_url"])
    assert notice(driver) == WORDS["page.error.network"]
    wait_for(driver, "location.pathname === '/' && !document.getElementById('setup').hidden")
    nothing_unhandled(driver)


def test_the_log_says_where_it_would_be_that_it_could_not_be_read(server, open_browsers):
    driver = failing_browser(open_browsers, LAPTOP, False)
    german(driver, server)
    fail(driver, r"/api/log$")
    driver.get(server.url + "log")
    caption = wait_for(driver, "document.querySelector('#log-table caption.problem') && "
                               "document.querySelector('#log-table caption.problem').textContent")
    assert caption == WORDS["page.error.network"]
    nothing_unhandled(driver)


def test_a_joined_screen_says_what_it_could_not_follow(server, open_browsers):
    """The messages a joined screen follows (the crew changed the set-up; the next mission) fetch
    the game: a failure is said, and the screen stays where it was."""
    host = open_browsers(LAPTOP)
    german(host, server)  # the game's language, which its joined screens speak
    host.refresh()
    code = wait_for(host, "document.documentElement.lang === 'de' && document.getElementById('lobby-code').textContent")
    phone = failing_browser(open_browsers)
    german(phone, server)
    phone.get(f"{server.url}?join={code}")
    wait_for(phone, "window.timekeeper.view.game && window.timekeeper.view.playback.status === 'ready'")
    phone.find_element("css selector", "#join-tap button").click()
    fail(phone, r"/api/games/[0-9a-f]{12}$")
    host.execute_script("const t = document.getElementById('track'); t.value = 'builtin:mission-3'; t.dispatchEvent(new Event('change'));")
    assert notice(phone) == WORDS["page.error.network"]
    assert phone.execute_script("return window.timekeeper.view.game.track_id") == "builtin:mission-1"
    fail(phone)
    host.find_element("id", "play-here").click()
    # the next state message fetches the set-up it missed: the mission played is the one shown
    wait_for(phone, "window.timekeeper.view.playback.status === 'playing' && "
                    "window.timekeeper.view.game.track_id === 'builtin:mission-3'")
    game = phone.execute_script("return window.timekeeper.view.game")
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
    fail(phone, r"/card\.html$|/log$")  # the card and the log form
    command(server, game, type="end")
    card = wait_for(phone, "document.getElementById('card').textContent", 15)
    assert card == WORDS["page.error.network"]
    assert wait_for(phone, "document.getElementById('log-result').textContent") == WORDS["page.error.network"]
    fail(phone, r"/api/games/[0-9a-f]{12}$")
    host.find_element("id", "replay").click()  # the next mission: the phone cannot fetch it
    phone.execute_script("document.getElementById('toast').hidden = true")
    assert notice(phone) == WORDS["page.error.network"]
    assert phone.execute_script("return window.timekeeper.view.game.id") == game["id"]
    nothing_unhandled(phone)


@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["phone", "laptop"])
def test_a_whole_mission_logs_no_error_and_leaves_no_rejection(server, open_browsers, size, phone):
    """Nothing failing: set-up, lobby, a mission played, paused, ended, its card and the log, with
    no error in the console and no unhandled rejection."""
    driver = failing_browser(open_browsers, size, phone)
    game = start(driver, server)
    driver.find_element("id", "toggle").click()
    wait_for(driver, "window.timekeeper.view.playback.status === 'paused'")
    command(server, game, type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
    command(server, game, type="end")
    wait_for(driver, "document.querySelectorAll('#card tr').length > 5 && document.querySelector('#logform [name=survived]')", 15)
    driver.find_element("id", "loglink").click()
    wait_for(driver, "!document.getElementById('logview').hidden && document.querySelector('#log-table tr')")
    nothing_unhandled(driver)
