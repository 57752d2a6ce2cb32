// This device as a speaker: its audio element follows the room's clock (the server's playback, on
// this device's estimate of the server's clock), ahead by the sound's way out, so every speaker is
// heard at the same moment; and it tells the server every half second where its sound is, so the
// server knows the sound is heard (serve/games/speakers.py). The maths are sync.js's.
//
// `window.timekeeper.soundMs()` is the mission position this device's sound is at (its element's
// position less what is still on its way out): tests and benchmarks read it.
import { positionAt } from "./clock.js";
import { page } from "./dom.js";
import { clientId, measured, serverNow, view } from "./state.js";
import { SYNC, aheadMs, boundedLate, correction, holds, learntRestart, playsOn, targetMs } from "./sync.js";

const TICK_MS = 100; // the element is checked this often while this device plays the sound
const REPORT_MS = 500; // and its position reported this often
const PAUSED_SLACK_MS = 50; // a paused element this close to its place stays where it is
const SETTLE_GIVE_UP_MS = 3000; // an element that has not played on this long after a seek is measured anyway
const RELOAD_AFTER_MS = 1000; // an element that waits for data this long after a seek and fetches none loads afresh
const LATE_KEY = "tk-late-ms"; // this device's own delay, kept on the device
const SPEAKING_KEY = "tk-speaking"; // which tab of this browser plays which game's sound, and when it last said so
const SPEAKING_FRESH_MS = 2000;

// Set by the mission screen (wireSpeaker): how a report is sent, what a refusal to play offers, and
// whether this device may play now (it plays the mission's sound, and no tap is awaited).
let hooks = { send: () => {}, refused: () => {}, ready: () => false };
let timer = null;
let reportedAt = -Infinity;
let latencyS = 0; // the output latency the browser reports (s)
// After a seek or a start the element stands still a moment: `since` (performance ms) it was
// asked, `guessMs` how long it was expected to stand, `before` its last reading while we wait,
// `teaches` whether its landing says how long it stood (it had the data there: sync.js holds).
const RESTART_KEY = "tk-restart-ms"; // how long this device's element stands still after a seek, as last learnt
const restart = { since: null, guessMs: learntBefore(), before: null, settleUntil: 0, teaches: false };

function learntBefore() {
  let kept = NaN;
  try {
    kept = Number(localStorage.getItem(RESTART_KEY));
  } catch {
    // no storage here (a private window): the first guess
  }
  return Number.isFinite(kept) && kept > 0 && kept <= SYNC.restartMaxMs ? kept : SYNC.restartGuessMs;
}

export function wireSpeaker(given) {
  hooks = { ...hooks, ...given };
  const audio = page.audio;
  // within 2 % a rate change without keeping the pitch is not heard, and keeps the element's clock smooth
  audio.preservesPitch = audio.mozPreservesPitch = audio.webkitPreservesPitch = false;
  measured.soundMs = soundMs;
}

// This device's own delay (ms; a Bluetooth speaker is late), as the crew set it, within ±500 ms.
export function lateMs() {
  return boundedLate(localStorage.getItem(LATE_KEY) || 0);
}

export function setLateMs(ms) {
  localStorage.setItem(LATE_KEY, String(boundedLate(ms)));
  return lateMs();
}

const ahead = () => aheadMs(latencyS, lateMs());
const online = () => Boolean(view.socket) && view.socket.readyState === WebSocket.OPEN;

// The mission position (ms) this device's sound is at.
export function soundMs() {
  return page.audio.currentTime * 1000 - ahead();
}

// This device plays the sound (`on`), or no longer does.
export function speak(on) {
  clearInterval(timer);
  timer = null;
  restart.since = null;
  page.audio.playbackRate = 1;
  if (!on) return;
  timer = setInterval(follow, TICK_MS);
  measureLatency();
}

// Another tab of this browser plays the game's sound now (so this one does not offer to resume it).
export function speakingElsewhere(gameId) {
  try {
    const said = JSON.parse(localStorage.getItem(SPEAKING_KEY) || "null");
    return Boolean(said) && said.game === gameId && said.client !== clientId && Date.now() - said.at < SPEAKING_FRESH_MS;
  } catch {
    return false;
  }
}

// Tell the server where the sound is now (read now, on the server's clock), and this browser's other tabs.
export function report() {
  reportedAt = performance.now();
  const audio = page.audio;
  if (!audio.paused) localStorage.setItem(SPEAKING_KEY, JSON.stringify({ game: view.game.id, client: clientId, at: Date.now() }));
  const loading = !audio.paused && (restart.since !== null || audio.readyState < HTMLMediaElement.HAVE_FUTURE_DATA);
  hooks.send({ type: "report", at_ms: Math.max(0, soundMs()), playing: !audio.paused, loading, read_ms: serverNow() });
}

// Put the element where the room is (at once: a state message came; or every TICK_MS).
export function follow() {
  if (!view.sound || !view.game || !hooks.ready()) return;
  const audio = page.audio;
  const pb = view.playback;
  const now = performance.now();
  if (pb.status !== "playing") {
    restart.since = null;
    if (!audio.paused) audio.pause();
    const place = Math.max(0, targetMs(pb.position_ms, ahead()));
    if (audio.readyState > 0 && Math.abs(audio.currentTime * 1000 - place) > PAUSED_SLACK_MS) audio.currentTime = place / 1000;
  } else {
    keepUp(now);
  }
  if (now - reportedAt >= REPORT_MS) report();
}

function keepUp(now) {
  const audio = page.audio;
  const target = targetMs(positionAt(view.playback, serverNow(), view.game.timeline.duration_ms), ahead());
  if (audio.paused) {
    seekTo(target);
    play();
    return;
  }
  if (!online()) return; // without the server the sound goes on alone: it is the clock (connection.js)
  const at = audio.currentTime * 1000;
  if (restart.since !== null) {
    const before = restart.before;
    restart.before = { at, now };
    const played = before !== null && playsOn(before.at, at, now - before.now);
    if (!played && starved(audio) && now - restart.since >= RELOAD_AFTER_MS) {
      // it waits for data and fetches none: its download ended under it (a tab the system froze, a
      // network that changed). The element starts afresh from the same file (the browser's cache,
      // the service worker, a byte range) and the next tick puts it where the room is.
      restart.since = null;
      audio.load();
      return;
    }
    if (!played && now - restart.since < SETTLE_GIVE_UP_MS) return;
    if (played && restart.teaches) {
      restart.guessMs = learntRestart(restart.guessMs, at - target);
      localStorage.setItem(RESTART_KEY, String(Math.round(restart.guessMs))); // a reload or the next visit starts with it
    }
    restart.since = null;
  }
  const { seek, rate } = correction(at - target, now < restart.settleUntil);
  if (seek) {
    seekTo(target);
  } else if (Math.abs(audio.playbackRate - rate) > 0.0005) {
    audio.playbackRate = rate;
  }
}

// The element needs data to play on and is not fetching any (a fetch under way on a slow network
// is waited for: loading afresh would only start it again).
function starved(audio) {
  return audio.readyState < HTMLMediaElement.HAVE_FUTURE_DATA && audio.networkState !== HTMLMediaElement.NETWORK_LOADING;
}

// Seek where the room will be once the element plays again.
function seekTo(target) {
  const audio = page.audio;
  audio.playbackRate = 1;
  const at = Math.max(0, target + restart.guessMs) / 1000;
  restart.teaches = holds(audio.buffered, at);
  audio.currentTime = at;
  restart.since = performance.now();
  restart.before = null;
  restart.settleUntil = restart.since + SYNC.settleMs;
}

// Only a refusal (the browser plays sound only after a tap on the page) offers the one-tap resume;
// a start cut short by a pause or a new source is none: the element follows the room again soon.
function play() {
  page.audio.play().catch((error) => {
    if (error && error.name === "AbortError") setTimeout(follow, TICK_MS);
    else if (view.playback.status === "playing") hooks.refused();
  });
}

// The output latency the browser reports for this device's sound (Web Audio's, for the same output).
async function measureLatency() {
  if (typeof AudioContext === "undefined") return;
  let context = null;
  try {
    context = new AudioContext();
    for (let n = 0; n < 20 && !(context.outputLatency > 0) && context.state === "running"; n++) {
      await new Promise((done) => setTimeout(done, 50));
    }
    if (context.outputLatency > 0) latencyS = context.outputLatency;
  } catch {
    // no Web Audio here: the crew's own delay is all there is
  } finally {
    if (context) context.close().catch(() => {});
  }
}
