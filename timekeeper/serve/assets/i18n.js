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

// A server error with a stable code is said in the page's language; else the server's message.
export function errorText(error) {
  const code = error.body && error.body.code;
  return code && words.messages[`error.${code}`] ? t(`error.${code}`) : error.message;
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
