// "Nobody plays the sound": a playing mission had speakers and none is heard now (the last one's
// tab closed or was killed, its sound stalled). Every screen says so, with one tap that plays the
// sound here (the mission screen wires it) and how soon the mission pauses itself; once it has, it
// says why. The game's history lists each time it paused itself.
import { clockText } from "./clock.js";
import { change, element, page } from "./dom.js";
import { t } from "./i18n.js";
import { serverNow, view } from "./state.js";

const TICK_MS = 250;
let timer = null;

// The bar and the history as the playback says now (and, while the mission counts down, every TICK_MS).
export function drawSilence() {
  const pb = view.playback;
  const silent = pb.status === "playing" && pb.silent_since_ms != null && view.game.mode !== "quiet";
  const pausedSilent = pb.status === "paused" && pb.reason === "silent";
  change(page.silent, "hidden", !(silent || pausedSilent));
  clearTimeout(timer);
  timer = null;
  if (silent) {
    const pauseMs = pb.silence_pause_ms || 0;
    const left = Math.max(0, Math.ceil((pb.silent_since_ms + pauseMs - serverNow()) / 1000));
    const text = pauseMs > 0 ? `${t("page.silent.nobody")} ${t("page.silent.pausing", { seconds: left })}` : t("page.silent.nobody");
    change(page.silentText, "textContent", text);
    if (pauseMs > 0) timer = setTimeout(drawSilence, TICK_MS);
  } else if (pausedSilent) {
    change(page.silentText, "textContent", t("page.silent.paused"));
  }
  drawNotes(pb.notes || []);
}

function drawNotes(notes) {
  const drawn = `${document.documentElement.lang}:${notes.map((note) => `${note.kind}@${note.position_ms}`).join(",")}`;
  if (page.notes.dataset.drawn === drawn) return;
  page.notes.dataset.drawn = drawn;
  page.notes.hidden = !notes.length;
  page.notes.replaceChildren(...notes.slice().reverse().map((note) => element("li", {},
    element("time", { textContent: clockText(note.position_ms) }), " ", t(`page.note.${note.kind}`))));
}
