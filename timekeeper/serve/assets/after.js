// After the mission: the card of what happened, the same track again or a new random one, and
// the downloads (a soundtrack rendered by the server, the PDF card, the track file, its code).
import { api, finished, postJson } from "./api.js";
import { keepAwake } from "./awake.js";
import { page, toast } from "./dom.js";
import { errorText, t, words } from "./i18n.js";
import { serverInfo } from "./language.js";
import { buildLogForm } from "./log.js";
import { view } from "./state.js";

export async function showCard() {
  page.after.hidden = false;
  page.sfx.hidden = true;
  keepAwake(false);
  try {
    page.card.innerHTML = await api(`/api/games/${view.game.id}/card.html`); // the server's own HTML, escaped there
  } catch (error) {
    page.card.textContent = errorText(error);
  }
  page.after.scrollIntoView({ block: "start" }); // the card, not the frozen clock, is what the crew needs now
  page.after.focus({ preventScroll: true });
  buildLogForm();
}

// The set-up screen again, with `trackId` chosen; this game's screens come along.
function setUpNext(trackId) {
  localStorage.setItem("tk-track", trackId);
  sessionStorage.setItem("tk-after", view.game.id);
  sessionStorage.removeItem("tk-lobby");
  location.href = "/";
}

async function newRandom() {
  const chosen = JSON.parse(localStorage.getItem("tk-generate") || "{}");
  const { language, voice } = view.game.settings;
  try {
    const offered = (await serverInfo()).voices.find((v) => v.id && voice && (v.id.endsWith(voice) || voice.endsWith(v.id.slice(5))));
    const made = await postJson(`/api/tracks/generate?lang=${words.language}`, { ...chosen, seed: null, count: 1, campaign: false,
      language, voice: offered ? offered.id : "" });
    setUpNext(made.tracks[0].id);
  } catch (error) {
    toast(errorText(error), true);
  }
}

async function download(format) {
  const bar = page.renderProgress;
  const queue = page.renderQueue;
  bar.hidden = false;
  bar.value = 0;
  try {
    await finished(await postJson(`/api/games/${view.game.id}/renders`, { format }), (job) => `/api/renders/${job.id}`, (job) => {
      bar.max = job.total;
      bar.value = job.done;
      // the server renders one soundtrack at a time: say how many are ahead of this one
      queue.hidden = !job.position;
      queue.textContent = job.position ? t("page.dl.queue", { count: job.position }) : "";
    });
    bar.value = bar.max;
    location.href = `/api/games/${view.game.id}/soundtrack.${format}`;
  } catch (error) {
    toast(errorText(error), true);
  } finally {
    queue.hidden = true;
    setTimeout(() => (bar.hidden = true), 1500);
  }
}

async function showCode() {
  try {
    page.codeText.textContent = await api(`/api/games/${view.game.id}/track.txt`);
  } catch (error) {
    page.codeText.textContent = errorText(error);
  }
  page.codeText.hidden = false;
}

export function wireAfter() {
  page.print.addEventListener("click", () => window.print());
  page.replay.addEventListener("click", () => setUpNext(view.game.track_id));
  page.newRandom.addEventListener("click", newRandom);
  for (const button of page.renderButtons) button.addEventListener("click", () => download(button.dataset.render));
  page.showCode.addEventListener("click", showCode);
}
