// The page's elements, looked up once: every module reaches them by name here (page.playHere is
// the element with the id play-here), never by its own lookup. A missing id stops the page at
// once, so index.html and the scripts cannot drift apart unseen.
import { errorText } from "./i18n.js";

const IDS = [
  // the bar
  "brand", "loglink", "conn",
  // the set-up screen
  "setup", "track", "track-info", "gen", "gen-fields", "code", "file", "problems", "language", "voice", "voice-offer",
  "install-voice", "install-progress", "music-field", "music", "pace-field", "pace", "background", "computer", "quiet", "remote",
  "play-here", "prompter-start", "join-code", "lobby", "lobby-code", "lobby-local", "lobby-qr", "lobby-link",
  // the mission screen
  "game", "game-title", "status", "stage-log", "banner", "silent", "phase", "left", "elapsed", "sfx", "caption", "scroller",
  "said", "waiting", "prompt", "notes", "history", "after", "card", "print", "replay", "new-random", "prompter", "sound-here",
  "late-field", "late-ms",
  "game-code", "join-local", "qr", "join", "dl-pdf", "dl-yaml", "show-code", "render-progress", "render-queue",
  "code-text", "controls", "toggle", "end", "audio",
  // the ship's log
  "logform", "log-fields", "log-result", "logview", "log-close", "log-home", "log-table", "log-stats", "crewlink",
  "crewlink-url", "crewlink-copy", "log-edit", "log-edit-title", "log-edit-fields", "log-edit-result", "log-delete",
  "log-delete-text", "log-pdf",
  // over everything
  "resume", "join-tap", "flash", "notices", "undo", "toast", "awake",
];

const camel = (id) => id.replace(/-([a-z])/g, (dash, letter) => letter.toUpperCase());

function found(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no element #${id}`);
  return element;
}

export const page = Object.fromEntries(IDS.map((id) => [camel(id), found(id)]));
Object.assign(page, {
  resumeButton: page.resume.querySelector("button"),
  joinTapButton: page.joinTap.querySelector("button"),
  silentText: page.silent.querySelector("span"),
  silentButton: page.silent.querySelector("button"),
  undoText: page.undo.querySelector("span"),
  undoButton: page.undo.querySelector("button"),
  flashText: page.flash.querySelector("p"),
  logEditForm: page.logEdit.querySelector("form"),
  logDeleteForm: page.logDelete.querySelector("form"),
  logformSubmit: page.logform.querySelector("button[type=submit]"),
  tabs: [...page.setup.querySelectorAll("[role=tab]")],
  crew: [...page.setup.querySelectorAll("input[name=crew]")],
  renderButtons: [...page.game.querySelectorAll("[data-render]")],
  presences: [...document.querySelectorAll(".presence")], // who is connected, on both screens
  expiries: [...document.querySelectorAll(".expiry")], // how long a hosted game is kept
});

// An element made in one call: element("p", { className: "hint", textContent: words }, child ...).
export function element(tag, props = {}, ...children) {
  const made = Object.assign(document.createElement(tag), props);
  made.append(...children);
  return made;
}

// Set a property of `node` (its text, hidden, disabled ...) only if that changes it: a frame that
// writes what is shown already makes the browser lay out and paint again for nothing (a phone's battery).
export function change(node, property, value) {
  if (node[property] !== value) node[property] = value;
}

export function option(value, label) {
  return element("option", { value, textContent: label });
}

let toastTimer = null;

// A request that failed in the background (a screen drawn, a message followed), said on screen in
// the page's words: what every background promise of the page ends in, never an unhandled rejection.
export function sayFailure(error) {
  toast(errorText(error), true);
}

export function toast(message, isError = false) {
  const box = page.toast;
  box.textContent = message;
  box.classList.toggle("error", isError);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), isError ? 8000 : 3000);
}
