// The page's language: its catalogue fetched from the server, the words of the page put in, and
// every screen told to draw its words again. The server also names the voices and the generate
// form's fields in it (/api/info?lang=), so those are asked for again when it changes.
import { api } from "./api.js";
import { translateTree, uiLanguage, words } from "./i18n.js";
import { server } from "./state.js";

const redraws = [];

// `redraw` is called whenever the page's words change (after the catalogue's are put in).
export function whenWordsChange(redraw) {
  redraws.push(redraw);
}

export async function serverInfo() {
  server.info = server.info || (await api("/api/info"));
  return server.info;
}

export async function useLanguage(wanted) {
  const language = uiLanguage(wanted, navigator.languages || []);
  const info = server.info;
  const rename = info && info.ui_language !== language; // voices by name in the page's language ("Englisch (Karibik)")
  if (words.language !== language || rename) {
    const [body, named] = await Promise.all([
      words.language === language ? { messages: words.messages } : api(`/api/messages/${language}`),
      rename && api(`/api/info?lang=${language}`)]);
    words.messages = body.messages;
    words.language = language;
    if (named) {
      const names = new Map(named.voices.map((voice) => [voice.id, voice.name]));
      for (const voice of info.voices) if (names.has(voice.id)) voice.name = names.get(voice.id);
      info.generate.options = named.generate.options;
      info.ui_language = language;
    }
  }
  document.documentElement.lang = language;
  translateTree(document);
  for (const redraw of redraws) redraw();
}
