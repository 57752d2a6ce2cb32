// The lobby: the game exists while the crew sets up, so phones join and the mix is prepared
// before Play. Every change of the set-up is sent to it (one at a time, the last one winning);
// Play here, or on another screen, turns it into the mission.
import { api, postJson } from "./api.js";
import { keepAwake } from "./awake.js";
import { connect, handleWith } from "./connection.js";
import { page, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { showLobbyLink } from "./joining.js";
import { enterGame } from "./mission.js";
import { SETUP_CHANGED, settings } from "./setup.js";
import { clientId, lobby, measured, server, view } from "./state.js";

const SILENCE = "data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";
let changeTimer = null;

function setupChanged() {
  clearTimeout(changeTimer);
  changeTimer = setTimeout(sendSetup, 150);
}

async function sendSetup() {
  if (!page.track.value || !server.info) return;
  if (lobby.sending) {
    lobby.again = true; // sent once the answer to the last change is in
    return;
  }
  const body = { track: page.track.value, settings: settings(), mode: page.quiet.checked ? "quiet" : "sound" };
  if (lobby.id && JSON.stringify(body) === lobby.sent) return;
  lobby.sent = JSON.stringify(body);
  lobby.sending = (async () => {
    try {
      let made = null;
      if (lobby.id) made = await postJson(`/api/games/${lobby.id}/setup`, body).catch(() => null);
      if (!made) {
        const after = sessionStorage.getItem("tk-after"); // the game just played: its screens come along
        made = await postJson("/api/lobby", after ? { ...body, after } : body);
        sessionStorage.removeItem("tk-after");
      }
      lobby.id = made.id;
      sessionStorage.setItem("tk-lobby", made.id);
      showLobby(made);
    } catch (error) {
      lobby.sent = null;
      toast(errorText(error), true);
    }
  })();
  await lobby.sending;
  lobby.sending = null;
  if (lobby.again) {
    lobby.again = false;
    await sendSetup();
  }
}

async function showLobby(made) {
  await showLobbyLink(made);
  if (view.lobbyId !== made.id) {
    view.lobbyId = made.id;
    connect(made.id, false);
  }
}

// The lobby's game becomes this screen's mission; the next set-up makes a new game.
function leaveLobby() {
  sessionStorage.removeItem("tk-lobby");
  lobby.id = null;
  lobby.sent = null;
}

async function startGame(withSound, prompter = false) {
  measured.pressedAt = performance.now();
  measured.alertAt = null;
  measured.soundAt = null;
  if (withSound) {
    page.audio.src = SILENCE; // unlock playback inside the tap (phones allow play() only there)
    page.audio.play().catch(() => {});
  }
  keepAwake(true);
  const button = prompter ? page.prompterStart : page.playHere;
  button.disabled = true;
  button.classList.add("busy");
  const said = button.textContent;
  const slow = setTimeout(() => (button.textContent = t("page.setup.preparing")), 400); // the voice is still being made
  try {
    clearTimeout(changeTimer);
    await sendSetup(); // the choice as shown now (sent only when it differs from the lobby's)
    while (lobby.sending) await lobby.sending;
    const game = await api(`/api/games/${lobby.id}`);
    leaveLobby();
    enterGame(game, { sound: withSound, prompter, start: true });
  } catch (error) {
    keepAwake(false);
    toast(errorText(error), true);
  } finally {
    clearTimeout(slow);
    button.textContent = said;
    button.disabled = false;
    button.classList.remove("busy");
  }
}

// Another screen pressed Play while this one still shows the set-up: it joins the mission (the
// sound needs one tap here, as the browser allows sound only after a tap).
async function lobbyStarted(playback) {
  if (playback.status !== "playing" || !view.lobbyId) return;
  const game = await api(`/api/games/${view.lobbyId}`);
  leaveLobby();
  enterGame(game, { sound: game.mode !== "quiet" && (playback.speakers || []).includes(clientId) });
}

export function wireLobby() {
  handleWith({ lobbyStarted });
  page.setup.addEventListener(SETUP_CHANGED, setupChanged);
  page.playHere.addEventListener("click", () => startGame(!page.quiet.checked));
  page.prompterStart.addEventListener("click", () => startGame(false, true));
}
