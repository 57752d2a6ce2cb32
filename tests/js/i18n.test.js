// The page's catalogue lookup (timekeeper/serve/assets/i18n.js), run by Node's own test runner
// on the real English and German catalogues as the server sends them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { UI_LANGUAGES, errorText, fill, say, t, uiLanguage, words } from "../../timekeeper/serve/assets/i18n.js";

const LOCALES = new URL("../../timekeeper/locales/", import.meta.url);

// msgid/msgstr pairs of a .po file (one line each, as timekeeper's catalogues are written)
function catalogue(language) {
  const text = readFileSync(new URL(`${language}.po`, LOCALES), "utf-8");
  const unquote = (quoted) => JSON.parse(quoted);
  return Object.fromEntries([...text.matchAll(/^msgid ("(?:[^"\\]|\\.)+")\nmsgstr ("(?:[^"\\]|\\.)*")$/gm)]
    .map(([, id, str]) => [unquote(id), unquote(str)]));
}

test("placeholders are filled; one not given stays as written", () => {
  assert.equal(fill("{a} and {b}", { a: 1 }), "1 and {b}");
  assert.equal(fill("{n} {n}", { n: 0 }), "0 0");
});

test("a key is looked up in the page's catalogue, and stands for itself when missing", () => {
  words.messages = catalogue("de");
  words.language = "de";
  assert.equal(t("page.undo.text", { seconds: 4 }).includes("4"), true);
  assert.equal(t("page.gen.official"), "offiziell");
  assert.equal(t("no.such.key"), "no.such.key");
  words.messages = catalogue("en");
  assert.equal(t("page.gen.official"), "official");
});

test("the page's language: the one wanted, else the browser's first shipped one, else English", () => {
  assert.equal(uiLanguage("de", ["fr-FR"]), "de");
  assert.equal(uiLanguage("", ["pt-BR", "pl-PL", "de"]), "pl");
  assert.equal(uiLanguage("xx", ["EN-gb"]), "en");
  assert.equal(uiLanguage("", []), "en");
  assert.ok(UI_LANGUAGES.every((language) => Object.keys(catalogue(language)).length > 100), "every language has a catalogue");
});

test("a server error with a known code is said in the page's language; an English page keeps its message", () => {
  words.messages = catalogue("de");
  words.language = "de";
  assert.equal(errorText({ message: "in English", body: { code: "too_busy" } }), words.messages["error.too_busy"]);
  assert.equal(errorText({ message: "in English", body: { code: "no_such_code" } }), "in English");
  assert.equal(errorText(new Error("network down")), "network down");
  assert.equal(errorText({ message: "disk full", body: { code: "job_failed" } }), words.messages["error.job_failed"]);
  words.messages = catalogue("en");
  words.language = "en";
  assert.equal(errorText({ message: "the server's own words", body: { code: "too_busy" } }), "the server's own words");
  words.language = "de";
});

test("a server that cannot be reached, or answers with a proxy's page, is said in the page's language", () => {
  words.messages = catalogue("de");
  const lost = Object.assign(new Error("/api/tracks: Failed to fetch"), { unreachable: true }); // as api.js throws it
  assert.equal(errorText(lost), words.messages["page.error.network"]);
  const proxy = Object.assign(new Error("502 Bad Gateway"), { status: 502, body: "<html>Bad Gateway</html>" });
  assert.equal(errorText(proxy), words.messages["page.error.status"].replace("{status}", "502"));
  assert.equal(errorText("a reason that is no error"), "a reason that is no error");
});

test("words the server sends as data are said in the page's language, values that are words too", () => {
  words.messages = catalogue("de");
  assert.equal(say({ key: "title.official.test-run-1", values: {} }), "Erster Testlauf");
  assert.equal(say({ key: "title.generated.mission", values: { seed: 338695 } }), "Generierte Mission 338695");
  words.messages = { "x.outer": "{inner}: {list}", "x.inner": "innen {n}" };
  assert.equal(say({ key: "x.outer", values: { inner: { key: "x.inner", values: { n: 2 } }, list: ["a", 3] } }), "innen 2: a, 3");
  assert.equal(say(null, "as sent"), "as sent");
  assert.equal(say("plain"), "plain");
  assert.equal(errorText({ message: "in English", body: { code: "invalid_field", said: { key: "x.inner", values: { n: 1 } } } }),
    "innen 1");
});
