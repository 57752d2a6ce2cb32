"""Accessibility checks run inside the page in Chromium: axe-core (from npm, see package.json)
against WCAG 2 A and AA, and the size of every touch target. Shared by the browser tests and
benchmarks/bench_a11y.py."""

from __future__ import annotations

import re

from realparts import PARTS, ROOT, find

AXE_JS = ROOT / PARTS["axe-core"].file
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
MIN_TARGET_PX = 44  # WCAG 2.5.5 (AAA) and the platforms' guidelines: 44 x 44 CSS pixels

_RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]})
  .then((result) => done(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
  }))))
  .catch((error) => done([{id: "axe-error", impact: "critical", help: String(error), nodes: []}]));
"""

# Every visible control a finger can press: its box, or the box of the label that wraps it (a
# check box's label is its target), must be at least MIN_TARGET_PX in both directions.
_SMALL_TARGETS = """
const minimum = arguments[0];
const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1']), [role=tab]";
const small = [];
for (const element of document.querySelectorAll(selector)) {
  if (element.closest("[hidden], [inert]") || !element.getClientRects().length) continue;
  const style = getComputedStyle(element);
  if (style.visibility === "hidden" || element.closest("[aria-hidden=true]")) continue;
  if (element.closest("table.card, .card") && element.tagName === "A") continue;
  const target = element.closest("label") || element;
  const box = target.getBoundingClientRect();
  if (box.width < minimum - 0.5 || box.height < minimum - 0.5) {
    const name = element.id ? "#" + element.id : element.tagName.toLowerCase() + (element.name ? `[name=${element.name}]` : "");
    small.push({element: name, text: (target.textContent || element.value || "").trim().slice(0, 40),
                width: Math.round(box.width), height: Math.round(box.height)});
  }
}
return small;
"""

_SMALLEST = """
const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1'])";
let smallest = Infinity;
for (const element of document.querySelectorAll(selector)) {
  if (element.closest("[hidden], [inert], [aria-hidden=true]") || !element.getClientRects().length) continue;
  const box = (element.closest("label") || element).getBoundingClientRect();
  smallest = Math.min(smallest, box.width, box.height);
}
return smallest === Infinity ? null : smallest;
"""


def axe_available() -> bool:
    return find("axe-core") is not None


def axe_violations(driver) -> list[dict]:
    """axe-core's WCAG 2 A/AA violations of the page as it is now: id, impact, help and the elements."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    return driver.execute_async_script(_RUN_AXE, list(WCAG_TAGS))


def describe(violations: list[dict]) -> str:
    return "\n".join(f"{v['id']} ({v['impact']}): {v['help']}: " + "; ".join(n["target"] for n in v["nodes"][:6])
                     for v in violations)


def small_targets(driver, minimum: int = MIN_TARGET_PX) -> list[dict]:
    """The visible controls whose target (itself, or its label) is under `minimum` CSS pixels."""
    return driver.execute_script(_SMALL_TARGETS, minimum)


def smallest_target(driver) -> float | None:
    """The smallest side, in CSS pixels, of any visible control's target."""
    return driver.execute_script(_SMALLEST)


# ---- the screens checked ----------------------------------------------------------------------
SCREENS = ("setup", "mission", "ended", "log")


def open_screen(driver, server, screen: str, language: str = "en") -> None:
    """Bring the page to `screen` in `language`: the set-up screen, a mission playing with the
    outage banner up and its panels open, a mission ended with its card and log form, the log."""
    from serving import wait_for

    if screen in ("setup", "log"):  # the page's language is the one chosen last on this device
        driver.get(server.url + ("log" if screen == "log" else ""))
        driver.execute_script("localStorage.setItem('tk-language', arguments[0])", language)
        driver.refresh()
        wait_for(driver, f"document.documentElement.lang === '{language}'")
    if screen == "setup":
        wait_for(driver, "document.querySelectorAll('#track option').length > 5")
        return
    if screen == "log":
        wait_for(driver, "document.querySelector('#log-table tbody tr') && document.querySelector('#log-stats figure')")
        return
    reply = server.request("/api/games", method="POST",
                           json_body={"track": "builtin:mission-1", "settings": {"language": language}})
    assert reply.status == 200, reply.body
    game = reply.json()
    outage = next(c for c in game["timeline"]["cues"] if c["kind"] == "comms_down")
    ends = game["timeline"]["phase_ends_ms"]
    for command in ({"type": "play"}, {"type": "seek", "at_ms": outage["at_ms"] + 500}):
        assert server.request(f"/api/games/{game['id']}/command", method="POST", json_body=command).status == 200
    driver.get(game["join_url"])  # a joined screen speaks the game's language
    wait_for(driver, "window.timekeeper && window.timekeeper.view.game && !document.getElementById('join-tap').hidden"
                     f" && document.documentElement.lang === '{language}'")
    driver.find_element("css selector", "#join-tap button").click()
    if screen == "mission":
        wait_for(driver, "!document.getElementById('banner').hidden")
        driver.execute_script("for (const d of document.querySelectorAll('#game details')) d.open = true;")
        return
    for command in ({"type": "seek", "at_ms": ends[1] + 1000}, {"type": "end"}):
        assert server.request(f"/api/games/{game['id']}/command", method="POST", json_body=command).status == 200
    wait_for(driver, "document.querySelectorAll('#card tr').length > 5 && document.querySelector('#logform [name=survived]')")


# Words of the English catalogue a translated page may still show: names and words the languages share.
NAMES = {"timekeeper", "space", "alert", "ann", "bob", "cid", "dee", "mission", "piper", "espeak", "flashplayercode",
         "yaml", "qr", "pdf", "mp3", "ogg", "wav", "flac", "lan", "wcag", "joe"}
VISIBLE_WORDS = """
const seen = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length) && getComputedStyle(e).visibility !== 'hidden';
const parts = [document.title, document.body.innerText];  // the tracks' titles too: timekeeper's are translated
for (const e of document.querySelectorAll('[aria-label], [title], [placeholder], [alt], [aria-roledescription]')) {
  if (!seen(e)) continue;
  for (const a of ['aria-label', 'title', 'placeholder', 'alt', 'aria-roledescription']) if (e.getAttribute(a)) parts.push(e.getAttribute(a));
}
for (const o of document.querySelectorAll('option')) parts.push(o.textContent);
return parts.join('\\n');
"""


def _catalogue_words(language: str) -> set[str]:
    """The words of `language`'s page catalogue and of its phrase table (the card's and captions' words)."""
    import yaml

    from timekeeper.i18n import read_catalogue

    def strings(node) -> list[str]:
        if isinstance(node, dict):
            return [text for value in node.values() for text in strings(value)]
        if isinstance(node, list):
            return [text for value in node for text in strings(value)]
        return [node] if isinstance(node, str) else []

    table = yaml.safe_load((ROOT / "voices" / f"{language}.yaml").read_text(encoding="utf-8"))
    words: set[str] = set()
    for text in [*read_catalogue(language).values(), *strings(table)]:
        words.update(re.findall(r"[^\W\d_]{3,}", re.sub(r"\{[^}]*\}", " ", text).lower()))
    return words


def english_only_words(language: str) -> set[str]:
    """The English page's words that `language`'s catalogue and phrase table never use, names aside."""
    return _catalogue_words("en") - _catalogue_words(language) - NAMES


def english_words_left(driver, language: str) -> list[str]:
    """Words of the English page (its catalogue) shown on this screen of a page in `language` that
    `language`'s own catalogue never uses: chrome left untranslated. Names are allowed."""
    return sorted(english_words_shown(driver, language))


def english_words_shown(driver, language: str, allowed: set[str] = frozenset()) -> dict[str, list[str]]:
    """english_words_left's words, each with the lines of the screen's text that show it; the
    `allowed` words aside (the scenario format's, in a message about a file)."""
    english_only = english_only_words(language) - allowed
    lines = driver.execute_script(VISIBLE_WORDS).lower().splitlines()
    found: dict[str, list[str]] = {}
    for line in lines:
        for word in set(re.findall(r"[^\W\d_]{3,}", line)) & english_only:
            found.setdefault(word, []).append(line.strip()[:200])
    return found


# ---- the error paths checked: what a crew sees when a file, a code or a log entry is refused ----
ERRORS = ("upload", "code", "log form")
BAD_FILE = """title: Bad
phase_ends: ['3:00', '2:00']
events:
  - {at: '1:00', type: threat, t: 9, zone: green}
  - {at: '1:70', type: data_transfer}
  - {at: '1:20', type: nope}
  - {at: '1:30', type: comms_down, untill: '1:50'}
  - [oops]
"""
BAD_CODE = "010AL1TW,050XX,120AL9TR,330CS0,400AL3ITR"


def format_words() -> set[str]:
    """The words of the scenario format a message names as they are written in a file (`zone:
    red`, `type: comms_down`): kept in English in every language, as the file must say them."""
    from timekeeper.model import EventType, Pile, TrackKind, Zone
    from timekeeper.scenario.load import EVENT_KEYS, TOP_KEYS

    names = [*(e.value for e in EventType), *(z.value for z in Zone), *(k.value for k in TrackKind),
             *(p.value for p in Pile), *TOP_KEYS, *(key for keys in EVENT_KEYS.values() for key in keys),
             "until", "duration", "true", "false", "captain"]
    return {word for name in names for word in re.split(r"[_\-]", name.lower()) if len(word) >= 3}


def open_error(driver, server, view: str, language: str, folder) -> None:
    """Bring the page, in `language`, to a refusal: an uploaded file's problems listed, a pasted
    code's problems listed, or the ship's log form with its fields marked."""
    from serving import wait_for

    if view in ("upload", "code"):
        open_screen(driver, server, "setup", language)
        driver.find_element("id", "tab-file" if view == "upload" else "tab-code").click()
        if view == "upload":
            bad = folder / f"bad-{language}.yaml"
            bad.write_text(BAD_FILE, encoding="utf-8")
            driver.find_element("css selector", "#file input[name=file]").send_keys(str(bad))
            driver.find_element("css selector", "#file button[type=submit]").click()
        else:
            driver.find_element("css selector", "#code textarea[name=code]").send_keys(BAD_CODE)
            driver.find_element("css selector", "#code button[type=submit]").click()
        wait_for(driver, "!document.getElementById('problems').hidden"
                         " && document.querySelectorAll('#problems li').length > 1", 30)
        return
    open_screen(driver, server, "ended", language)
    form = driver.find_element("id", "logform")
    for name, value in (("crew", "Ann:pilot, Bob"), ("damage_red", "9"), ("destroyed_by", "12")):
        field = form.find_element("css selector", f"[name={name}]")
        field.clear()
        field.send_keys(value)
    form.find_element("css selector", "button[type=submit]").click()
    wait_for(driver, "document.querySelectorAll('#logform .field.bad').length >= 2"
                     " && document.getElementById('log-result').textContent")
