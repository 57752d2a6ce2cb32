// timekeeper's page, started here: each screen's controls wired, then the screen the address
// asks for (the set-up, a game at /g/<id>, or the ship's log at /log). Back never leaves a
// running mission, and the log opens over the page (the sound plays on).
import { wireAfter } from "./after.js";
import { api } from "./api.js";
import { page, sayFailure, toast } from "./dom.js";
import { t } from "./i18n.js";
import { wireJoining } from "./joining.js";
import { useLanguage } from "./language.js";
import { wireLobby } from "./lobby.js";
import { closeLog, showLog, wireLog } from "./log.js";
import { inMission, offerResume, openGame, soundWasHere, wireMission } from "./mission.js";
import { keepOffline } from "./offline.js";
import { showSetup, wireSetup } from "./setup.js";
import { speakingElsewhere } from "./speaker.js";
import { view } from "./state.js";

function wireNavigation() {
  for (const link of [page.loglink, page.stageLog]) { // the header's, and the stage's for a phone held sideways
    link.addEventListener("click", (event) => {
      event.preventDefault();
      history.pushState({ ...(history.state || {}), sheet: "log" }, "", location.pathname);
      showLog();
    });
  }
  page.logClose.addEventListener("click", () => history.back());
  page.brand.addEventListener("click", (event) => {
    if (!inMission()) return;
    event.preventDefault(); // the logo does not leave a running mission
    page.scroller.scrollTo({ top: 0, behavior: "smooth" });
  });
  window.addEventListener("beforeunload", (event) => {
    // (a browser asks only on a page that was tapped: it refuses, and logs an error, on another)
    if (!inMission() || (navigator.userActivation && !navigator.userActivation.hasBeenActive)) return;
    event.preventDefault();
    event.returnValue = "";
  });
  window.addEventListener("popstate", (event) => {
    const state = event.state || {};
    if (!page.logview.hidden && state.sheet !== "log") return closeLog();
    if (state.sheet === "log") return showLog();
    if (inMission() && !state.guard) {
      // Back on the mission screen: the mission stays; the crew leaves it from the card
      history.pushState({ screen: "game", game: view.game.id, guard: true }, "", `/g/${view.game.id}`);
      toast(t("page.game.back_stays"));
      return;
    }
    if (!state.guard) location.reload();
  });
}

async function route() {
  const match = location.pathname.match(/^\/g\/([0-9a-f]{12})$/);
  if (location.pathname === "/log") {
    page.logClose.hidden = true;
    await useLanguage(localStorage.getItem("tk-language") || "").catch(sayFailure);
    return showLog();
  }
  if (!match) return showSetup();
  try {
    const game = await api(`/api/games/${match[1]}`);
    await useLanguage(game.settings.language); // a joined screen speaks the game's language
    const here = location.pathname + location.search; // one more entry: Back stays on the mission screen
    history.replaceState({ screen: "game", game: game.id }, "", here);
    history.pushState({ screen: "game", game: game.id, guard: true }, "", here);
    // this device played the sound (before a reload, or in a tab since closed) and no other tab of it does now
    const wasHere = soundWasHere(game.id) && !speakingElsewhere(game.id);
    openGame(game, { sound: false, prompter: new URLSearchParams(location.search).has("prompter") });
    if (wasHere && game.mode !== "quiet" && ["playing", "paused"].includes(game.playback.status)) {
      offerResume(); // one tap puts the sound back
    } else if (game.playback.status !== "ended") {
      page.joinTap.hidden = false; // phones let a page vibrate, and start a video (and its sound), only after a tap
    }
  } catch (error) {
    await useLanguage(localStorage.getItem("tk-language") || "").catch(() => {});
    sayFailure(error);
    history.replaceState({}, "", "/");
    return showSetup();
  }
}

wireSetup();
wireLobby();
wireJoining();
wireMission();
wireAfter();
wireLog();
wireNavigation();
keepOffline();
route().catch(sayFailure);
// the last net under every promise of the page: a failure nobody handled is still said on screen
window.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  sayFailure(event.reason);
});
