// The mission screen: the game this screen shows, its sound (on every device that plays it: a
// speaker, speaker.js), play and pause, the tap that lets the sound resume, and the end (undone
// within a few seconds from any screen). The mission clock is the room's: the server's playback on
// this device's estimate of the server's clock. A speaker shows what its sound is at (which
// follows the room's clock within milliseconds), so its captions come with its words.
import { showCard } from "./after.js";
import { keepAwake } from "./awake.js";
import { clockText, positionAt } from "./clock.js";
import { connect, handleWith, joined, ping, reconnect, send } from "./connection.js";
import { change, page, toast } from "./dom.js";
import { drawWith, wake } from "./frame.js";
import { say, t } from "./i18n.js";
import { showGameLink } from "./joining.js";
import { whenWordsChange } from "./language.js";
import { drawSilence } from "./silence.js";
import { follow as followRoom, lateMs, report, setLateMs, soundMs, speak, wireSpeaker } from "./speaker.js";
import { clientId, measured, serverNow, view } from "./state.js";

export const inMission = () => Boolean(view.game) && !page.game.hidden && ["playing", "paused"].includes(view.playback.status);

// The mission's sound: an mp3 made once per mix, at the game's `sound.url` (a game kept by an older
// server has none: its WAV then).
const soundUrl = () => (view.game.sound ? view.game.sound.url : `/api/games/${view.game.id}/sound.wav`);
export const playsMission = () => Boolean(view.game) && page.audio.src.endsWith(soundUrl());

export function missionMs() {
  const audio = page.audio;
  const duration = view.game ? view.game.timeline.duration_ms : 0;
  if (view.sound && playsMission() && audio.readyState > 0 && page.resume.hidden) {
    return Math.min(Math.max(0, soundMs()), duration);
  }
  return positionAt(view.playback, serverNow(), duration);
}
measured.clockMs = missionMs;

// Entering a game from the set-up screen: the address becomes the game's, with one more entry in
// the history so that Back (Android's gesture) stays on the mission screen.
export function enterGame(game, options) {
  history.replaceState({ screen: "setup" }, "", "/");
  history.pushState({ screen: "game", game: game.id }, "", `/g/${game.id}`);
  history.pushState({ screen: "game", game: game.id, guard: true }, "", `/g/${game.id}`);
  openGame(game, options);
}

export function openGame(game, { sound = false, prompter = false, start = false } = {}) {
  view.game = game;
  view.cues = game.timeline.cues;
  view.playback = game.playback;
  view.speakers = game.playback.speakers || [];
  view.shown = 0;
  view.prompter = prompter;
  page.setup.hidden = true;
  page.game.hidden = false;
  document.body.classList.add("in-game");
  window.scrollTo(0, 0);
  page.scroller.scrollTo(0, 0);
  page.after.hidden = true;
  showTitle();
  page.history.replaceChildren();
  page.caption.replaceChildren();
  page.prompter.checked = prompter;
  showGameLink(game);
  const tap = page.joinTapButton; // a crew apart: the tap to join plays the sound here too
  tap.dataset.i18n = game.settings.remote && game.mode !== "quiet" ? "page.join.tap_remote" : "page.join.tap";
  tap.textContent = t(tap.dataset.i18n);
  page.dlPdf.href = `/api/games/${game.id}/card.pdf`;
  page.dlYaml.href = `/api/games/${game.id}/track.yaml`;
  setSound((sound || (view.tapped && game.settings.remote)) && game.mode !== "quiet");
  if (joined(game.id)) {
    if (view.sound) send({ type: "claim", late_ms: lateMs() });
    if (start) send({ type: "play" });
    ping();
  } else {
    connect(game.id, start);
  }
  follow();
  if (game.playback.status === "ended") ended(); // a screen that joins after the end: the card and log form
}

export function setSound(on) {
  view.sound = on;
  page.soundHere.checked = on;
  page.lateField.hidden = !on;
  const audio = page.audio;
  if (on) {
    rememberSound(view.game.id); // a reload, or the link opened again in a new tab, offers to resume the sound here
    if (!playsMission()) {
      audio.src = soundUrl();
      audio.currentTime = missionMs() / 1000;
    }
    send({ type: "claim", late_ms: lateMs() });
    speak(true);
    follow();
  } else {
    forgetSound(view.game && view.game.id);
    if (view.speakers.includes(clientId)) send({ type: "release" }); // the list shows that this device no longer plays it
    speak(false);
    audio.pause();
  }
}

// What the play button says in each state: a paused mission is resumed, never started again.
const TOGGLE_WORDS = { playing: "page.game.pause", paused: "page.game.resume", ended: "page.game.over" };

// The game's title in the page's words (an official track's name, a generated mission's).
function showTitle() {
  if (!view.game) return;
  page.gameTitle.textContent = say(view.game.title_said, view.game.title);
  document.title = `${page.gameTitle.textContent} · timekeeper`;
}

// The mission's state on this screen; a speaker's sound follows it.
export function follow() {
  if (!view.game) return;
  const pb = view.playback;
  page.status.textContent = t(`page.status.${pb.status}`);
  page.status.className = `pill ${pb.status}`;
  page.toggle.textContent = t(TOGGLE_WORDS[pb.status] || "page.game.play");
  page.toggle.disabled = pb.status === "ended";
  page.game.classList.toggle("over", pb.status === "ended"); // the controls stop following the screen's foot
  page.game.classList.toggle("quiet", view.game.mode === "quiet");
  page.game.classList.toggle("ready", pb.status === "ready");
  page.waiting.hidden = pb.status !== "ready";
  keepAwake(pb.status === "playing");
  drawSilence();
  wake();
  followRoom();
}

// One tap that says what it does: the browser plays sound only after a tap on this page.
export function offerResume() {
  page.resume.hidden = false;
  page.joinTap.hidden = true;
  drawResume(missionMs());
}

export function drawResume(ms) {
  if (page.resume.hidden) return;
  change(page.resumeButton, "textContent", t("page.resume.button", { time: clockText(ms) }));
}

function resumeHere() {
  page.resume.hidden = true;
  keepAwake(view.playback.status === "playing");
  playHere();
}

// This device plays the sound from now on (a tap: the browser lets it), where the mission is. A
// mission that paused itself because nobody played the sound plays on.
function playHere() {
  if (!view.game || view.game.mode === "quiet") return;
  if (!view.sound) setSound(true);
  else send({ type: "claim", late_ms: lateMs() });
  if (view.playback.status === "paused" && view.playback.reason === "silent") resume();
  else if (view.playback.status !== "playing") unlock();
  else follow();
}

// A sound started inside a tap may start later without one (phones allow play() only in a tap):
// started muted and stopped at once, for a mission that does not play yet.
function unlock() {
  const audio = page.audio;
  audio.muted = true;
  const done = () => {
    if (view.playback.status !== "playing") audio.pause();
    audio.muted = false;
  };
  audio.play().then(done, done);
}

// Play or pause pressed here. A speaker acts at once (inside the tap, as browsers want for sound),
// from where its sound is; the server's answer then places every speaker.
function togglePlay() {
  const pb = view.playback;
  if (pb.status === "ended") return;
  if (pb.status === "playing") {
    const at = view.sound ? soundMs() : undefined;
    if (view.sound) page.audio.pause();
    send({ type: "pause", at_ms: at === undefined ? undefined : Math.max(0, at) });
  } else {
    resume();
  }
}

function resume() {
  if (view.sound) {
    view.playback = { ...view.playback, status: "playing", at_ms: serverNow() }; // until the server's answer
    follow();
  }
  send({ type: "play" });
}

// The devices that played the sound of a game, kept by the browser: a reload, or the game's link
// opened again in a new tab, offers the one tap that resumes the sound here.
const SOUND_KEY = "tk-sound";

function rememberSound(gameId) {
  sessionStorage.setItem(SOUND_KEY, gameId);
  localStorage.setItem(SOUND_KEY, gameId);
}

function forgetSound(gameId) {
  for (const store of [sessionStorage, localStorage]) if (gameId && store.getItem(SOUND_KEY) === gameId) store.removeItem(SOUND_KEY);
}

export const soundWasHere = (gameId) => sessionStorage.getItem(SOUND_KEY) === gameId || localStorage.getItem(SOUND_KEY) === gameId;

// ---- ending: deliberate, undone within a few seconds from any screen -------------------------
let undoTimer = null;

// The mission ended: every screen offers to undo it for a few seconds, and shows the card (what
// was still to come, phase 3 included) only once that window has passed and the end stands.
export function ended() {
  const until = view.playback.undo_until_ms || 0;
  clearTimeout(undoTimer);
  const tick = () => {
    if (view.playback.status !== "ended") return (page.undo.hidden = true); // undone meanwhile
    const left = Math.ceil((until - serverNow()) / 1000);
    page.undo.hidden = left <= 0;
    if (left <= 0) return showCard();
    change(page.undoText, "textContent", t("page.undo.text", { seconds: left }));
    undoTimer = setTimeout(tick, 250);
  };
  tick();
}

export function undone() {
  clearTimeout(undoTimer);
  page.undo.hidden = true;
  page.after.hidden = true;
  page.scroller.scrollTo(0, 0);
  toast(t("page.undo.done"));
}

// Space pauses and resumes anywhere but in a text field or on a button (which Space presses).
function spaceToggles(target) {
  if (target.closest("textarea, select, button, a, summary")) return false;
  const input = target.closest("input");
  return !input || input.type === "checkbox" || input.type === "radio";
}

export function wireMission() {
  handleWith({ ended, follow, openGame, undone });
  drawWith({ missionMs, drawResume });
  const audio = page.audio;
  wireSpeaker({ send, refused: offerResume, ready: () => playsMission() && page.resume.hidden });
  audio.addEventListener("playing", () => view.sound && report());
  audio.addEventListener("playing", wake);
  audio.addEventListener("playing", () => {
    if (measured.soundAt === null && playsMission()) measured.soundAt = performance.now();
  });
  audio.addEventListener("pause", () => view.sound && report());
  audio.addEventListener("ended", () => view.sound && playsMission() && send({ type: "end" }));
  page.toggle.addEventListener("click", togglePlay);
  page.end.addEventListener("click", () => send({ type: "end" }));
  page.undoButton.addEventListener("click", () => send({ type: "undo" }));
  page.resume.addEventListener("click", resumeHere);
  page.silentButton.addEventListener("click", playHere);
  page.lateMs.value = lateMs();
  page.lateMs.addEventListener("change", () => {
    page.lateMs.value = setLateMs(page.lateMs.value);
    if (view.sound) send({ type: "claim", late_ms: lateMs() });
  });
  // the tap a joined screen asks for: on its button, or anywhere (Pause stays in reach above it); in
  // a crew apart it plays the sound here too
  document.addEventListener("click", () => {
    if (page.joinTap.hidden) return;
    page.joinTap.hidden = true;
    view.tapped = true;
    keepAwake(view.playback.status === "playing");
    if (view.game && view.game.settings.remote) playHere();
  }, { capture: true });
  page.prompter.addEventListener("change", (event) => {
    view.prompter = event.target.checked;
    wake();
  });
  page.soundHere.addEventListener("change", (event) => setSound(event.target.checked));
  document.addEventListener("keydown", (event) => {
    if (page.game.hidden || !page.logview.hidden || event.code !== "Space" || !spaceToggles(event.target)) return;
    event.preventDefault(); // a focused "Sound on this device" is not unticked by the space bar
    togglePlay();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || !view.game) return;
    // back from sleep: reconnect, take the state again, and put the sound back at the right moment
    reconnect();
    follow();
  });
  whenWordsChange(() => {
    showTitle();
    follow();
  });
}
