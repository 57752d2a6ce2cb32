"""The words the server gives the page, seen in a real headless Chromium: the generate form in the
UI language from the catalogue's generate.* entries (the same words the command line's help and
the server's messages use), voices by name. Debian's chromium against a real server."""

from __future__ import annotations

import test_serve_browser as browser_tests
from realparts import needs
from serving import LAPTOP, wait_for

server = browser_tests.server  # the same server: one for the module (open_browsers: conftest)

pytestmark = needs("chromium", "chromedriver")
FORM = """return [...document.querySelectorAll('#gen label[data-spec]')].map((label) => ({
  key: label.dataset.spec, name: label.querySelector('span').textContent, help: label.title,
  placeholder: (label.querySelector('input') || {}).placeholder || '',
  choices: [...label.querySelectorAll('option')].map((option) => option.textContent)}));"""


def german(driver) -> None:
    driver.execute_script("const l = document.getElementById('language'); l.value = 'de'; l.dispatchEvent(new Event('change'));")
    wait_for(driver, "document.documentElement.lang === 'de'")


def test_the_generate_form_speaks_the_page_language(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#gen label[data-spec]').length > 10"
                     " && [...document.querySelectorAll('#gen label[data-spec] span')].every((s) => s.textContent)")
    english = {field["key"]: field for field in driver.execute_script(FORM)}
    assert english["outages"]["name"] == "Communication outages" and english["ambush_chance"]["name"] == "Ambush chance (%)"
    assert english["outages"]["help"].startswith("How many communication outages")
    german(driver)
    fields = {field["key"]: field for field in driver.execute_script(FORM)}
    assert fields["outages"]["name"] == "Kommunikationsausfälle" and fields["outage_length"]["name"] == "Ausfalldauer (s)"
    assert fields["length"]["name"] == "Missionsdauer (m:ss)" and fields["outages"]["placeholder"] == "offiziell (z. B. 3)"
    assert fields["outages"]["help"].startswith("Wie viele Kommunikationsausfälle")
    assert fields["kind"]["choices"] == ["Mission", "Simulation", "Doppelaktion"]
    assert len(fields) == len(english) and all(field["name"] and field["help"] for field in fields.values())
    driver.execute_script("localStorage.setItem('tk-language', 'en')")


def test_the_voice_list_names_voices_in_the_browsers_language(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#voice option').length > 1")
    names = driver.execute_script("return [...document.querySelectorAll('#voice option')].map((o) => [o.value, o.textContent]);")
    shown = dict(names)
    assert shown[""] == "Built-in voice" and shown.get("tts:en-GB-x-rp") == "English (United Kingdom, Received Pronunciation)"
    assert all(text != value.removeprefix("tts:") for value, text in names), names
    driver.execute_script("const l = document.getElementById('language'); l.value = 'en'; l.dispatchEvent(new Event('change'));")
    german(driver)  # the German voices, named in German
    wait_for(driver, "document.querySelector('#voice option').textContent === 'Eingebaute Stimme'")
    shown = dict(driver.execute_script("return [...document.querySelectorAll('#voice option')].map((o) => [o.value, o.textContent]);"))
    assert shown.get("tts:de") == "Deutsch", shown
    driver.execute_script("localStorage.setItem('tk-language', 'en')")


def test_a_relaxed_rule_is_reported_with_the_form_labels_in_the_page_language(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#gen label[data-spec]').length > 10")
    german(driver)
    driver.find_element("css selector", "[data-tab=gen]").click()
    driver.find_element("css selector", "#gen input[name=seed]").send_keys("4711")
    driver.find_element("css selector", "#gen input[name=outages]").send_keys("6")
    driver.find_element("css selector", "#gen button[type=submit]").click()
    wait_for(driver, "document.body.textContent.includes('Kommunikationsausfälle“ 6')", 30)
    text = driver.execute_script("return document.body.textContent")
    assert "Anzahl der Ereignisse — „Kommunikationsausfälle“ 6 (offiziell 2-5" in text and "--outages" not in text
    driver.execute_script("localStorage.setItem('tk-language', 'en')")


def test_a_training_pace_chosen_in_the_page_stretches_the_game(server, open_browsers):
    from test_serve_browser import start

    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "!document.getElementById('pace-field').hidden")  # offered: the server takes a pace
    driver.execute_script("localStorage.setItem('tk-pace', '1.5')")
    game = start(driver, server)
    assert game["settings"]["pace"] == 1.5
    assert game["timeline"]["phase_ends_ms"] == [338_000, 675_000, 900_000]  # mission 1's 3:45, 7:30, 10:00
    driver.execute_script("localStorage.setItem('tk-pace', '1')")


def test_track_titles_are_said_in_the_page_language_and_again_when_it_changes(server, open_browsers):
    driver = open_browsers(LAPTOP)
    driver.get(server.url)
    wait_for(driver, "document.querySelectorAll('#track option').length > 30")
    german(driver)
    options = "return [...document.querySelectorAll('#track option')].map((o) => o.textContent);"
    shown = wait_for(driver, "[...document.querySelectorAll('#track option')].some((o) => o.textContent.startsWith('Erster'))"
                     " && [...document.querySelectorAll('#track option')].map((o) => o.textContent)")
    assert "Erster Testlauf (7:00)" in shown and "Doppelaktions-Mission 1 (leichtere Reihe) (12:30)" in shown
    assert not [title for title in shown if "Test Run" in title or "Double Action" in title]
    assert driver.execute_script("return document.querySelector('#track optgroup[data-group=test-run]').label") == "Testläufe"
    driver.execute_script("const l = document.getElementById('language'); l.value = 'cs'; l.dispatchEvent(new Event('change'));")
    wait_for(driver, "document.documentElement.lang === 'cs'")
    assert "První zkušební let (7:00)" in driver.execute_script(options)
    driver.execute_script("localStorage.setItem('tk-language', 'en')")


PRESETS = "return [...document.querySelectorAll('#gen-presets-length option')].map((o) => [o.value, o.textContent]);"


def test_a_quick_game_is_offered_and_made_in_the_page_language(server, open_browsers, tmp_path):
    """The mission length offers a quick game (5:00) and a short one (7:00), named in the page's
    language; a quick game made in the page is a 5:00 mission whose note says it carries less."""
    from serving import PHONE
    from test_serve_browser import shot

    sizes = {"phone": PHONE, "landscape": (640, 360), "laptop": LAPTOP}
    for name, size in sizes.items():
        driver = open_browsers(size)
        driver.get(server.url)
        wait_for(driver, "document.querySelectorAll('#gen-presets-length option').length === 2")
        assert driver.execute_script(PRESETS) == [["5:00", "Quick game (5:00)"], ["7:00", "Short game (7:00)"]]
        assert driver.execute_script("return document.querySelector('#gen input[name=length]').list.id") == "gen-presets-length"
        german(driver)
        wait_for(driver, "document.querySelector('#gen-presets-length option').textContent === 'Schnelles Spiel (5:00)'")
        assert driver.execute_script(PRESETS)[1] == ["7:00", "Kurzes Spiel (7:00)"]
        driver.find_element("css selector", "[data-tab=gen]").click()
        driver.find_element("css selector", "#gen input[name=seed]").send_keys("4711")
        driver.find_element("css selector", "#gen input[name=length]").send_keys("5:00")
        driver.find_element("css selector", "#gen button[type=submit]").click()
        wait_for(driver, "document.body.textContent.includes('kürzer als die offiziellen Szenarien')", 30)
        text = driver.execute_script("return document.body.textContent")
        assert ("„Missionsdauer“ 5:00 ist kürzer als die offiziellen Szenarien (3:25-4:00, 3:35-3:55, 2:20-2:35) und bringt "
                "darum weniger, wie die Trainingsszenarien: 4 Bedrohungspunkte") in text, text
        chosen = driver.execute_script("return document.getElementById('track').selectedOptions[0].textContent")
        assert chosen.startswith("Generierte Mission 4711 (5:00,"), chosen
        shot(driver, f"quick-game-{name}-de", tmp_path)
        driver.execute_script("localStorage.setItem('tk-language', 'en')")
