// The game's WebSocket: joining it, the commands this screen sends, the clock offset measured by
// pings, and the messages every screen of the game receives. Without the server (the network is
// gone) the device that plays the sound goes on alone: its audio is the clock; Play and Pause act
// here, and the server is told once the socket is back. The screens above hand it what to do with
// a message (`handleWith`): it imports none of them.
import { api, socketUrl } from "./api.js";
import { bestOffset, clockSample } from "./clock.js";
import { page, sayFailure, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { showPresence } from "./joining.js";
import { useLanguage } from "./language.js";
import { showLogged } from "./log.js";
import { lateMs, soundMs } from "./speaker.js";
import { clientId, deviceNow, serverNow, view } from "./state.js";

const SPEAKER_PING_MS = 2000; // a speaker keeps measuring its clock offset this often (a screen: at each connection)

// What the screens do with the game's messages: the lobby's lobbyStarted; the mission's ended,
// follow, openGame and undone (each screen hands its own when it is wired).
const on = {};
const PINGS = 5; // clock pings when a screen first joins

export function handleWith(handlers) {
  Object.assign(on, handlers);
}

export function send(message) {
  if (view.socket && view.socket.readyState === WebSocket.OPEN) view.socket.send(JSON.stringify(message));
  else if (view.sound && view.game && ["play", "pause"].includes(message.type)) playOffline(message);
}

function playOffline(message) {
  const at = soundMs();
  view.playback = { ...view.playback, status: message.type === "pause" ? "paused" : "playing", position_ms: at,
    at_ms: serverNow() };
  view.offline = { type: message.type, game: view.game.id };
  on.follow();
}

// What was pressed offline, told to the server: true when there was something.
function sendOffline(socket) {
  const missed = view.offline;
  view.offline = null;
  if (!missed || !view.game || missed.game !== view.game.id) return false;
  const at = Math.max(0, soundMs());
  if (missed.type === "pause") socket.send(JSON.stringify({ type: "pause", at_ms: at }));
  else for (const command of [{ type: "seek", at_ms: at }, { type: "play" }]) socket.send(JSON.stringify(command));
  return true;
}

// Join the game's socket. `moving`: the open socket of a worker that is stopping; it stays this
// screen's socket (commands go through it) until the new one is open, and is closed then.
export function connect(gameId, start, moving = null) {
  if (view.socket && view.socketGame !== gameId) {
    const old = view.socket;
    view.socket = null;
    old.close();
  }
  const socket = new WebSocket(socketUrl(gameId));
  if (!moving) view.socket = socket;
  view.socketGame = gameId;
  socket.onopen = () => {
    if (moving) {
      if (view.socket !== moving) return socket.close(); // the page joined another way meanwhile
      view.socket = socket;
      moving.onmessage = moving.onclose = null;
      moving.close();
    }
    view.retryMs = 500;
    page.conn.className = "conn on";
    const kind = matchMedia("(pointer: coarse)").matches ? "phone" : "screen";
    send({ type: "hello", client: clientId, kind });
    if (view.sound || (!view.game && !page.quiet.checked)) send({ type: "claim", late_ms: lateMs() }); // the set-up device plays the sound
    view.skipSnapshot = sendOffline(socket); // what was pressed offline wins over the state the server had
    ping(Number.isFinite(view.bestRttMs) ? 1 : PINGS); // joined before: its offset is kept, one ping refines it
    if (start) {
      start = false;
      send({ type: "play" });
    }
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data)).catch(sayFailure);
  socket.onclose = () => {
    if (view.socket !== socket) return;
    page.conn.className = "conn off";
    // spread over half to one and a half times the wait: the screens of a worker that died do not
    // all knock on the surviving one in the same millisecond
    setTimeout(() => view.socket === socket && connect(gameId, false), view.retryMs * (0.5 + Math.random()));
    view.retryMs = Math.min(view.retryMs * 2, 5000);
  };
}

// A new socket (through the proxy: to another worker) before this one is closed, so no command is lost.
function move() {
  const current = view.socket;
  if (current && current.readyState === WebSocket.OPEN && view.socketGame) connect(view.socketGame, false, current);
}

// The socket of the game `gameId` is open (or is opened); true when it already was.
export function joined(gameId) {
  return view.socketGame === gameId && view.socket && view.socket.readyState === WebSocket.OPEN;
}

// Back from sleep: the socket again, or a fresh clock offset.
export function reconnect() {
  view.clockSamples = []; // this device's clock may have stood still while it slept: measured afresh
  view.bestRttMs = Infinity;
  if (!view.socket || view.socket.readyState > WebSocket.OPEN) connect(view.game.id, false);
  else ping();
}

// Measure the clock offset: `count` pings 150 ms apart (the quickest of the last answers counts,
// clock.js bestOffset).
export function ping(count = PINGS) {
  for (let i = 0; i < count; i++) setTimeout(() => send({ type: "ping", t: deviceNow() }), i * 150);
}

// A speaker keeps measuring: its sound follows the room's clock only as well as it knows the server's.
setInterval(() => view.sound && send({ type: "ping", t: deviceNow() }), SPEAKER_PING_MS);

// The next mission's lobby, joined on this page: no reload, so no new tap (this screen was tapped
// already) and nothing put over its controls. A phone's Back returns to the mission before.
async function followNext(gameId) {
  const game = await api(`/api/games/${gameId}`);
  if (game.settings.language !== view.game.settings.language) await useLanguage(game.settings.language);
  history.replaceState({ screen: "game", game: game.id, guard: true }, "", `/g/${game.id}`);
  on.openGame(game, { sound: false, prompter: view.prompter });
}

// The game as the crew set it up, fetched again. One that could not be fetched (the failure is
// said) is fetched with the next state message, so a screen never plays on with the old track.
async function followSetup() {
  view.setupMissed = true;
  const game = await api(`/api/games/${view.game.id}`);
  view.setupMissed = false;
  if (game.settings.language !== view.game.settings.language) await useLanguage(game.settings.language);
  on.openGame(game, { sound: view.sound, prompter: view.prompter });
}

async function receive(message) {
  if (message.type === "pong") {
    view.clockSamples = clockSample(view.clockSamples, message.t, deviceNow(), message.server_ms);
    const best = bestOffset(view.clockSamples);
    if (best) Object.assign(view, best);
  } else if (message.type === "move") {
    move(); // the worker is stopping (a rolling restart): another one takes this screen
  } else if (message.type === "next" && view.game && view.playback.status === "ended") {
    await followNext(message.id); // the crew set up the next mission: this screen joins it
  } else if (message.type === "presence") {
    showPresence(message.screens);
  } else if (message.type === "setup" && view.game && view.playback.status === "ready") {
    await followSetup(); // the crew changed the track or a setting
  } else if (message.type === "state") {
    if (!view.game) return on.lobbyStarted(message.playback);
    if (view.setupMissed) return followSetup(); // (its state comes with the game)
    if (view.skipSnapshot && "screens" in message) return (view.skipSnapshot = false); // older than the offline press
    const was = view.playback.status;
    view.playback = message.playback;
    view.speakers = message.playback.speakers || [];
    if (was !== "ended" && view.playback.status === "ended") on.ended();
    if (was === "ended" && view.playback.status !== "ended") on.undone();
    on.follow();
  } else if (message.type === "logged") {
    showLogged(message.recorded); // this game's mission was recorded, changed or removed
  } else if (message.type === "error") {
    toast(t("page.error.server", { message: errorText({ message: message.error, body: message }) }), true);
  }
}
