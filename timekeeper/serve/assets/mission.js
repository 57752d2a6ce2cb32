// The mission screen: the game this screen shows, its sound (on the device that plays it), play
// and pause, the tap that lets the sound resume, and the end (undone within a few seconds from
// any screen). The mission clock is the audio element's own position on the device that plays
// the sound; other screens follow the server's copy of it, corrected for their clock offset.
import { showCard } from "./after.js";
import { keepAwake } from "./awake.js";
import { clockText, positionAt } from "./clock.js";
import { connect, handleWith, joined, ping, reconnect, report, send } from "./connection.js";
import { change, page, toast } from "./dom.js";
import { drawWith, wake } from "./frame.js";
import { say, t } from "./i18n.js";
import { showGameLink } from "./joining.js";
import { whenWordsChange } from "./language.js";
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
    return Math.min(audio.currentTime * 1000, duration);
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
  view.holder = game.playback.holder;
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
  page.dlPdf.href = `/api/games/${game.id}/card.pdf`;
  page.dlYaml.href = `/api/games/${game.id}/track.yaml`;
  setSound(sound && game.mode !== "quiet");
  if (joined(game.id)) {
    if (view.sound) send({ type: "claim" });
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
  const audio = page.audio;
  if (on) {
    sessionStorage.setItem("tk-sound", view.game.id); // a reload offers to resume the sound here
    if (!playsMission()) {
      audio.src = soundUrl();
      audio.currentTime = missionMs() / 1000;
    }
    send({ type: "claim" });
    follow();
  } else {
    if (sessionStorage.getItem("tk-sound") === (view.game && view.game.id)) sessionStorage.removeItem("tk-sound");
    if (view.holder === clientId) send({ type: "release" }); // the list shows that no device plays it here
    audio.pause();
  }
}

// What the play button says in each state: a paused mission is resumed, never started again.
const TOGGLE_WORDS = { playing: "page.game.pause", paused: "page.game.resume", ended: "page.game.over" };

// The mission's state on this screen; the sound device makes its audio follow it.
// The game's title in the page's words (an official track's name, a generated mission's).
function showTitle() {
  if (!view.game) return;
  page.gameTitle.textContent = say(view.game.title_said, view.game.title);
  document.title = `${page.gameTitle.textContent} · timekeeper`;
}

export function follow() {
  if (!view.game) return;
  const audio = page.audio;
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
  wake();
  if (!view.sound) return;
  const commanded = pb.changes !== view.changes; // a command (not a position report) moved the clock
  view.changes = pb.changes;
  if (pb.status === "playing") {
    const target = (pb.position_ms + (serverNow() - pb.at_ms)) / 1000;
    if ((audio.paused || commanded) && Math.abs(audio.currentTime - target) > 0.3) audio.currentTime = Math.max(0, target);
    if (audio.paused && page.resume.hidden) {
      playSound();
    }
  } else {
    if (!audio.paused) audio.pause();
    if (Math.abs(audio.currentTime * 1000 - pb.position_ms) > 50) audio.currentTime = pb.position_ms / 1000;
  }
}

// Start this device's sound. Only a refusal (the browser plays sound only after a tap on the page)
// offers the one-tap resume; a start cut short by a pause or a new source (the mission paused or
// ended meanwhile) is no refusal: the screen follows the mission again instead.
function playSound() {
  page.audio.play().catch((error) => {
    if (error && error.name === "AbortError") {
      setTimeout(follow, 250);
    } else if (view.playback.status === "playing") {
      offerResume();
    }
  });
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
  if (!view.sound) setSound(true);
  page.audio.currentTime = missionMs() / 1000;
  if (view.playback.status === "playing") playSound();
  follow();
}

function togglePlay() {
  const pb = view.playback;
  if (pb.status === "ended") return;
  if (pb.status === "playing") {
    const at = view.sound ? page.audio.currentTime * 1000 : undefined;
    if (view.sound) page.audio.pause();
    send({ type: "pause", at_ms: at });
  } else {
    if (view.sound) playSound();
    send({ type: "play" });
  }
}

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
  handleWith({ ended, follow, openGame, setSound, undone });
  drawWith({ missionMs, drawResume });
  const audio = page.audio;
  audio.addEventListener("playing", report);
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
  // the tap a joined screen asks for: on its button, or anywhere (Pause stays in reach above it)
  document.addEventListener("click", () => {
    if (page.joinTap.hidden) return;
    page.joinTap.hidden = true;
    keepAwake(view.playback.status === "playing");
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
