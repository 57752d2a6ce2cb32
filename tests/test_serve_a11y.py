"""The page's accessibility in a real Chromium: axe-core (WCAG 2 A/AA) finds nothing on the set-up
screen, a playing mission with the outage banner, an ended mission with its card and the ship's
log, at phone and laptop sizes; every control is a 44 px touch target; the tab list works from the
keyboard; the banner keeps its contrast through its pulse and stops pulsing for reduced motion."""

from __future__ import annotations

import pytest
from accessibility import (
    ERRORS,
    MIN_TARGET_PX,
    SCREENS,
    axe_violations,
    describe,
    english_only_words,
    english_words_left,
    english_words_shown,
    format_words,
    open_error,
    open_screen,
    small_targets,
)
from logbook_helpers import timekeeper
from realparts import needs
from serving import LAPTOP, PHONE, start_server, wait_for

pytestmark = needs("chromium", "chromedriver", "axe-core")
LANGUAGES = ("en", "de")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("a11y")
    log = folder / "log.sqlite3"
    for track, points in (("mission-2", ("6", "8")), ("mission-3", ("3", "12")), ("mission-2", ("2", "4"))):
        added = timekeeper(log, "add", "--no-prompt", "--crew", "Ann:captain, Bob:co, Cid:sc, Dee", "--track", track,
                           "--survived", points[0], "--destroyed", points[1])
        assert added.returncode == 0, added.stderr
    running = start_server(folder / "state", "--log", str(log))
    yield running
    assert running.stop() == 130


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size, phone", [(PHONE, True), (LAPTOP, False)], ids=["360x640", "1280x800"])
def test_axe_finds_no_wcag_violation_on_any_screen(server, open_browsers, size, phone, language):
    driver = open_browsers(size, phone)
    found = {}
    for screen in SCREENS:
        open_screen(driver, server, screen, language)
        violations = axe_violations(driver)
        if violations:
            found[screen] = describe(violations)
    open_screen(driver, server, "mission", language)  # the log opened over a playing mission
    driver.find_element("id", "loglink").click()
    wait_for(driver, "document.querySelector('#log-table tbody tr') && document.querySelector('#log-stats figure')")
    violations = axe_violations(driver)
    if violations:
        found["mission: log"] = describe(violations)
    open_screen(driver, server, "log", language)  # the dialogs of the log
    driver.find_element("css selector", "#log-table .actions button").click()
    wait_for(driver, "document.getElementById('log-edit').open && document.querySelector('#log-edit [name=survived]')")
    violations = axe_violations(driver)
    if violations:
        found["log: edit"] = describe(violations)
    assert not found, repr(found)


def test_every_control_is_a_44_px_touch_target_on_a_phone(server, open_browsers):
    driver = open_browsers(PHONE, True)
    found = {}
    for screen in SCREENS:
        open_screen(driver, server, screen)
        small = small_targets(driver)
        if screen == "setup":
            for tab in ("tab-gen", "tab-code", "tab-file"):  # each tab's form open too
                driver.find_element("id", tab).click()
                small += small_targets(driver)
        if small:
            found[screen] = small
    driver.find_element("css selector", "#log-table .actions button").click()
    wait_for(driver, "document.getElementById('log-edit').open")
    if small_targets(driver):
        found["log: edit"] = small_targets(driver)
    assert not found, repr(found)
    # the measure is real: a control made smaller than 44 px is found
    driver.execute_script("document.querySelector('#log-edit button').style.cssText = 'min-height: 0; padding: 0'")
    assert any(s["height"] < MIN_TARGET_PX for s in small_targets(driver))


def test_the_tab_list_works_from_the_keyboard(server, open_browsers):
    from selenium.webdriver.common.keys import Keys

    driver = open_browsers(LAPTOP)
    open_screen(driver, server, "setup")
    selected = "[...document.querySelectorAll('[role=tab]')].map(t => t.getAttribute('aria-selected') + t.tabIndex)"
    assert driver.execute_script(f"return {selected}") == ["false0", "false-1", "false-1"]
    first = driver.find_element("id", "tab-gen")
    first.click()
    assert driver.execute_script(f"return {selected}") == ["true0", "false-1", "false-1"]
    assert driver.find_element("id", "gen").is_displayed()
    first.send_keys(Keys.ARROW_RIGHT)
    assert driver.execute_script("return document.activeElement.id") == "tab-code"
    assert driver.execute_script(f"return {selected}") == ["false-1", "true0", "false-1"]
    assert driver.find_element("id", "code").is_displayed() and not driver.find_element("id", "gen").is_displayed()
    driver.switch_to.active_element.send_keys(Keys.END)
    assert driver.execute_script("return document.activeElement.id") == "tab-file"
    driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)  # round to the first
    assert driver.execute_script("return [document.activeElement.id, document.getElementById('gen').hidden]") == [
        "tab-gen", False]
    assert driver.execute_script("return document.getElementById('gen').getAttribute('aria-labelledby')") == "tab-gen"


CONTRAST = """
const banner = document.getElementById('banner');
const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => v / 255)
  .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const ratios = [];
const animation = banner.getAnimations()[0];
for (const at of [0, 150, 300, 450, 600, 750, 900, 1050]) {
  if (animation) { animation.pause(); animation.currentTime = at; }
  const style = getComputedStyle(banner);
  const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
  ratios.push({ratio: (a + 0.05) / (b + 0.05), opacity: Number(style.opacity), background: style.backgroundColor});
}
return {ratios, animated: Boolean(animation)};
"""


def test_the_banner_keeps_its_contrast_through_its_pulse_and_rests_for_reduced_motion(server, open_browsers):
    driver = open_browsers(PHONE, True)
    open_screen(driver, server, "mission")
    measured = driver.execute_script(CONTRAST)
    assert measured["animated"]
    assert len({r["background"] for r in measured["ratios"]}) > 1  # it does pulse
    assert all(r["ratio"] >= 4.5 and r["opacity"] == 1 for r in measured["ratios"]), measured
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    assert driver.execute_script("return document.getElementById('banner').getAnimations().length") == 0
    assert driver.execute_script(CONTRAST)["ratios"][0]["ratio"] >= 4.5


@pytest.mark.parametrize("language", ("de", "es", "fr", "it", "pl", "cs"))
def test_no_english_words_are_left_on_any_screen(server, open_browsers, language, tmp_path):
    """Every screen in every language: no word of the English page that the language's own
    catalogue never uses (names allowed), in the text, the labels, the titles and the options:
    the tracks' titles, the card, the log, and what a crew sees when a file, a pasted code or a
    log entry is refused (the scenario format's own words allowed there)."""
    driver = open_browsers(PHONE, True)
    found, shown_in = {}, {}  # each screen's English words; the lines that show them (the failure's message)
    for screen in SCREENS:
        open_screen(driver, server, screen, language)
        views = [(tab, "setup") for tab in ("tab-gen", "tab-code", "tab-file")] if screen == "setup" else []
        for tab, name in [*views, (None, screen)]:
            if tab:
                driver.find_element("id", tab).click()
            for word, lines in english_words_shown(driver, language).items():
                found.setdefault(name, []).append(word)
                shown_in.setdefault(word, lines)
    for view in ERRORS:
        open_error(driver, server, view, language, tmp_path)
        for word, lines in english_words_shown(driver, language, format_words()).items():
            found.setdefault(view, []).append(word)
            shown_in.setdefault(word, lines)
    found = {screen: sorted(set(words)) for screen, words in found.items() if words}
    assert not found, f"{found!r}, shown in: {shown_in!r}"
    # the check is real: an English label put back on the page is found
    english = sorted(english_only_words(language))[:3]
    driver.execute_script("const p = document.createElement('p'); p.textContent = arguments[0]; document.body.append(p);",
                          " ".join(english))
    assert english_words_left(driver, language) == english
