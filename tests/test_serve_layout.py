"""The page's layout on every screen, in Debian's headless Chromium against a real server: the
set-up (its lobby, an error), a joined screen's tap and lobby, a mission (the outage banner, its
options), paused, the prompter (the next announcement, and the one being read), the undo bar, the
card with its log form (and a refused value), the tap that resumes the sound after a reload, quiet
mode, the ship's log (a campaign's lines too) with its edit and remove dialogs, a pasted code's
problems and an unknown game. Nothing sticks out of the window, is cut off, is drawn over another control or
under a notice (tests/layout.py measures it) at 360x640, 640x360 and 1280x800 in English and
German, and at a phone's size in the other five languages; the page logs no error on the way.

Screenshots of every screen go to $TIMEKEEPER_SCREENSHOTS when it is set (look at them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from layout import describe, layout_problems
from logbook_helpers import timekeeper
from realparts import needs
from serving import LAPTOP, PHONE, start_server, wait_for
from test_serve_browser import shot

pytestmark = needs("chromium", "chromedriver")
LANDSCAPE = (640, 360)
SIZES = {"360x640": (PHONE, True), "640x360": (LANDSCAPE, True), "1280x800": (LAPTOP, False)}
LONG_NOTES = "Behemoth came late; Bob forgot the gravolift twice and the interceptors launched without him"
UNKNOWN_GAME = "000000000000"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    log = folder / "log.sqlite3"
    for track, points in (("mission-2", ("6", "8")), ("mission-3", ("3", "12"))):
        added = timekeeper(log, "add", "--no-prompt", "--crew", "Annemarie:captain, Bartholomew:co, Cid:sc, Dee",
                           "--track", track, "--survived", points[0], "--destroyed", points[1], "--notes", LONG_NOTES)
        assert added.returncode == 0, added.stderr
    for step in (("campaign", "start", "--crew", "Ann:captain, Bob, Cid, Dee", "--common", "1", "--serious", "1+2"),
                 ("add", "--no-prompt", "--campaign", "current", "--survived", "5", "--destroyed", "8", "--damage", "red=3"),
                 ("campaign", "end")):  # a campaign's lines too
        done = timekeeper(log, *step)
        assert done.returncode == 0, done.stderr
    running = start_server(folder / "state", "--log", str(log))
    yield running
    assert running.stop() == 130


def command(server, game_id: str, **body) -> None:
    reply = server.request(f"/api/games/{game_id}/command", method="POST", json_body=body)
    assert reply.status == 200, reply.body


def new_game(server, language: str, **extra) -> dict:
    reply = server.request("/api/lobby" if extra else "/api/games", method="POST",
                           json_body={"track": "builtin:mission-1", "settings": {"language": language}, **extra})
    assert reply.status < 300, reply.body
    return reply.json()


class Walk:
    """One browser through every screen; each screen's problems and a screenshot of it."""

    def __init__(self, driver, server, language: str, name: str, tmp_path: Path) -> None:
        self.driver, self.server, self.language, self.name, self.tmp_path = driver, server, language, name, tmp_path
        self.found: dict[str, list[dict]] = {}
        self.logged: list[dict] = []

    def look(self, screen: str) -> None:
        problems = layout_problems(self.driver)
        if problems:
            self.found[screen] = problems
        shot(self.driver, f"layout-{self.language}-{self.name}-{screen}", self.tmp_path)
        self.logged += self.driver.get_log("browser")

    def run(self, js: str):
        return self.driver.execute_script(js)

    def setup(self) -> None:
        driver = self.driver
        driver.get(self.server.url)
        driver.execute_script("localStorage.setItem('tk-language', arguments[0])", self.language)
        driver.refresh()
        wait_for(driver, f"document.documentElement.lang === '{self.language}' && document.getElementById('lobby-code')"
                         ".textContent && document.querySelector('#gen label[data-spec] span').textContent")
        driver.find_element("id", "tab-gen").click()
        self.look("setup")
        self.run("document.querySelector('.panel.start').scrollIntoView()")
        self.look("setup-lobby")
        driver.find_element("id", "tab-file").click()
        driver.find_element("css selector", "#file button").click()  # no file chosen: a notice says so
        wait_for(driver, "!document.getElementById('toast').hidden")
        self.look("setup-notice")
        driver.find_element("id", "tab-code").click()
        driver.find_element("css selector", "#code textarea").send_keys("010AL1TW,050QQ9,120AL2TR,999XX")
        driver.find_element("css selector", "#code button").click()  # its problems, listed
        wait_for(driver, "!document.getElementById('problems').hidden")
        self.run("document.getElementById('problems').scrollIntoView()")
        self.look("setup-problems")

    def mission(self) -> None:
        driver, game = self.driver, new_game(self.server, self.language)
        cues = game["timeline"]["cues"]
        driver.get(game["join_url"])
        wait_for(driver, f"window.timekeeper && window.timekeeper.view.game && document.documentElement.lang === '{self.language}'")
        self.look("join-tap")
        driver.find_element("css selector", "#join-tap button").click()
        self.look("lobby")
        outage = next(c for c in cues if c["kind"] == "comms_down")
        command(self.server, game["id"], type="play")
        command(self.server, game["id"], type="seek", at_ms=outage["at_ms"] + 500)
        wait_for(driver, "!document.getElementById('banner').hidden")
        self.look("mission")
        self.run("for (const d of document.querySelectorAll('#game details')) d.open = true;"
                 "const s = document.getElementById('scroller'); s.scrollTo(0, s.scrollHeight);")
        self.look("mission-options")
        command(self.server, game["id"], type="pause")
        wait_for(driver, "window.timekeeper.view.playback.status === 'paused'")
        self.run("document.getElementById('scroller').scrollTo(0, 0)")
        self.look("paused")
        threat = next(c for c in cues if c["kind"] == "threat" and c["at_ms"] > outage["at_ms"])
        driver.find_element("id", "prompter").click()
        command(self.server, game["id"], type="seek", at_ms=threat["at_ms"] - 4000)
        wait_for(driver, "document.querySelector('#prompt .say')")
        self.look("prompter-next")
        command(self.server, game["id"], type="seek", at_ms=threat["at_ms"] + 1500)
        wait_for(driver, "document.querySelector('#prompt .read-now')")
        self.look("prompter-reading")
        driver.find_element("id", "prompter").click()
        command(self.server, game["id"], type="seek", at_ms=game["timeline"]["phase_ends_ms"][1] + 1000)
        command(self.server, game["id"], type="end")
        wait_for(driver, "!document.getElementById('undo').hidden")
        self.look("undo")
        wait_for(driver, "document.getElementById('undo').hidden && document.querySelectorAll('#card tr').length > 5"
                         " && document.querySelector('#logform [name=survived]')", 15)
        self.look("card")
        self.run("document.getElementById('replay').scrollIntoView()")
        self.look("card-buttons")
        self.run("const f = document.querySelector('#logform [name=knocked_out]'); f.value = '9'; f.scrollIntoView();")
        driver.find_element("css selector", "#logform button[type=submit]").click()
        wait_for(driver, "document.querySelector('#logform .field.bad')")
        self.look("log-form-refused")

    def resume(self) -> None:
        """A reload on the device that played the sound: one tap offered to resume it."""
        game = new_game(self.server, self.language)
        command(self.server, game["id"], type="play")
        self.driver.get(self.server.url)
        self.driver.execute_script("sessionStorage.setItem('tk-sound', arguments[0])", game["id"])
        self.driver.get(game["join_url"])
        wait_for(self.driver, "!document.getElementById('resume').hidden && document.querySelector('#resume button').textContent")
        self.look("resume")

    def quiet(self) -> None:
        game = new_game(self.server, self.language, mode="quiet")
        command(self.server, game["id"], type="play")
        self.driver.get(game["join_url"])
        wait_for(self.driver, "window.timekeeper && window.timekeeper.view.game && !document.getElementById('join-tap').hidden")
        self.driver.find_element("css selector", "#join-tap button").click()
        threat = next(c for c in self.server.request(f"/api/games/{game['id']}").json()["timeline"]["cues"] if c["kind"] == "threat")
        command(self.server, game["id"], type="seek", at_ms=threat["at_ms"] - 300)  # an announcement after the tap
        wait_for(self.driver, "!document.getElementById('flash').hidden")
        self.look("quiet")

    def log(self) -> None:
        driver = self.driver
        driver.get(self.server.url + "log")
        wait_for(driver, "document.querySelector('#log-table tbody tr') && document.querySelector('#log-stats figure')")
        self.look("log")
        driver.find_element("css selector", "#log-table .actions button").click()
        wait_for(driver, "document.getElementById('log-edit').open && document.querySelector('#log-edit [name=survived]')")
        self.look("log-edit")
        self.run("document.getElementById('log-edit').close()")
        driver.find_element("css selector", "#log-table .actions .danger").click()
        wait_for(driver, "document.getElementById('log-delete').open")
        self.look("log-delete")

    def unknown_game(self) -> None:
        self.driver.get(f"{self.server.url}g/{UNKNOWN_GAME}")
        wait_for(self.driver, "!document.getElementById('toast').hidden && !document.getElementById('setup').hidden")
        self.look("unknown-game")

    def errors(self) -> list[str]:
        """The page's own errors logged on the way (a refused request's line excepted: the walk asks for them)."""
        refused = "Failed to load resource: the server responded with a status of"
        expected = (f"/api/games/{UNKNOWN_GAME} ", f"/log - {refused} 422", f"/api/tracks/flashcode - {refused} 400")
        return [entry["message"] for entry in self.logged
                if entry["level"] == "SEVERE" and not (entry.get("source") == "network" and any(e in entry["message"] for e in expected))]


def walk_every_screen(driver, server, language: str, name: str, tmp_path: Path) -> Walk:
    walk = Walk(driver, server, language, name, tmp_path)
    walk.setup()
    walk.mission()
    walk.resume()
    walk.quiet()
    walk.log()
    walk.unknown_game()
    return walk


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("name", list(SIZES))
def test_no_screen_cuts_covers_or_sticks_out(server, open_browsers, tmp_path, name, language):
    size, phone = SIZES[name]
    walk = walk_every_screen(open_browsers(size, phone), server, language, name, tmp_path)
    assert not walk.found, "\n".join(f"{screen}:\n{describe(problems)}" for screen, problems in walk.found.items())
    assert not walk.errors(), walk.errors()


@pytest.mark.parametrize("language", ["es", "fr", "it", "pl", "cs"])
def test_every_language_fits_a_phone(server, open_browsers, tmp_path, language):
    walk = walk_every_screen(open_browsers(PHONE, True), server, language, "360x640", tmp_path)
    assert not walk.found, "\n".join(f"{screen}:\n{describe(problems)}" for screen, problems in walk.found.items())
    assert not walk.errors(), walk.errors()


BAD_LAYOUT = """
const add = (html) => { const box = document.createElement('div'); box.innerHTML = html; document.getElementById('setup').prepend(box); return box; };
add('<button class="button" style="width: 60px; white-space: nowrap">Rückgängig machen</button>');
add('<label class="check"><input type="checkbox" style="width: 14px"> tick</label>');
add('<p style="width: 90px; overflow-wrap: anywhere">Kommunikationssystem</p>');
document.body.append(Object.assign(document.createElement('div'), {style: 'width: 900px; height: 4px'}));
const over = add('<button class="button">one</button><button class="button" style="margin-left: -40px">two</button>');
const select = add('<label class="field" style="width: 120px"><select style="appearance: auto"><option>Eingebaute Stimme des Systems</option></select></label>');
document.getElementById('toast').textContent = 'a notice'; document.getElementById('toast').hidden = false;
document.getElementById('notices').style.cssText = 'position: fixed; top: 0; left: 0; width: 340px';
"""


def test_the_measure_finds_each_kind_of_problem(server, open_browsers):
    """Each kind of problem put on the page is found: the layout test cannot pass by measuring nothing."""
    driver = open_browsers(PHONE, True)
    driver.get(server.url)
    wait_for(driver, "document.getElementById('lobby-code').textContent")
    assert layout_problems(driver) == []
    driver.execute_script(BAD_LAYOUT)
    kinds = {problem["kind"] for problem in layout_problems(driver)}
    assert kinds >= {"overflow", "tick", "broken-word", "page-wider", "outside", "overlap", "clipped-text", "covered"}, kinds
