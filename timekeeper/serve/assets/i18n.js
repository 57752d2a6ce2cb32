// The catalogue of the page's language: every word the page shows is looked up here by key.
// Pure: the words are put in by language.js, which fetches them.

export const UI_LANGUAGES = ["en", "de", "es", "fr", "it", "pl", "cs"];
export const words = { language: "", messages: {} };

// "{name}" placeholders filled from `values`; one not given stays as written.
export function fill(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// The words of `key`, or the key itself when the catalogue has none.
export function t(key, values = {}) {
  const text = words.messages[key];
  return text === undefined ? key : fill(text, values);
}

// Words the server sends as data (a Python `Said`: {key, values}), said in the page's language:
// values that are words themselves are said too, a list is joined with commas, anything else
// is shown as written. `fallback` stands in for nothing sent (an older server's plain text).
export function say(said, fallback = "") {
  if (said === null || said === undefined) return fallback;
  if (Array.isArray(said)) return said.map((item) => say(item)).join(", ");
  if (typeof said !== "object") return String(said);
  const values = {};
  for (const [name, value] of Object.entries(said.values || {})) values[name] = say(value);
  return t(said.key, values);
}

// The page's language: `wanted` when it is one, else the first of the browser's languages
// (`preferred`, as navigator.languages) that is one, else English.
export function uiLanguage(wanted, preferred = []) {
  if (UI_LANGUAGES.includes(wanted)) return wanted;
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0];
    if (UI_LANGUAGES.includes(base)) return base;
  }
  return "en";
}

// A failed request in the page's language: the server's words when it sent them (`said`); a server
// that could not be reached, or answered no JSON (a proxy's error page), says so; else (in another
// language than the server's English message) the words of its stable code, else the message.
export function errorText(error) {
  const body = (error && error.body) || {};
  if (body.said) return say(body.said);
  if (error && error.unreachable) return t("page.error.network");
  if (error && error.status && (typeof error.body !== "object" || error.body === null)) {
    return t("page.error.status", { status: error.status });
  }
  const known = body.code && words.messages[`error.${body.code}`];
  const message = (error && error.message) || "";
  return known && (words.language !== "en" || !message) ? t(`error.${body.code}`) : message || String(error);
}

// The words of the elements under `root` that name their key: data-i18n="key" for the text,
// data-i18n-attr="attribute:key,..." for attributes.
export function translateTree(root) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(",")) {
      const [attribute, key] = pair.split(":");
      element.setAttribute(attribute, t(key));
    }
  }
}
