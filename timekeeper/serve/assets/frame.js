// Drawing the mission screen: one frame per screen refresh while the clock runs, none while it
// is paused or ended. The clock and phase, the captions word by word (whole announcements for
// screen readers), the sound playing, the comms outage, quiet mode's flash and the prompter. The
// mission screen hands it its clock and its resume button's drawing (`drawWith`).
import { cuesBegun, historyText, outageAt, prompterPlan, soundAt, soundIcon, wordsOf } from "./captions.js";
import { clockText, leftText, mayEnd, phaseAt, secondsTo } from "./clock.js";
import { report } from "./connection.js";
import { change, element, page } from "./dom.js";
import { t } from "./i18n.js";
import { measured, view } from "./state.js";

const mission = {}; // missionMs: the mission's clock (ms); drawResume(ms): the resume button's time

export function drawWith({ missionMs, drawResume }) {
  Object.assign(mission, { missionMs, drawResume });
}

const PROMPT_AHEAD_MS = 15000; // the prompter shows the next announcement this far ahead
const REPORT_EVERY_MS = 1000; // the sound device reports its position this often
const CAPTION_HOLD_MS = 6000; // a caption stays large this long after its cue ends
const FLASH_MS = 2500; // quiet mode: an announcement fills the screen this long

export function wake() {
  if (view.frameId === null && view.game && !page.game.hidden) view.frameId = requestAnimationFrame(frame);
}

function frame() {
  view.frameId = null;
  if (page.game.hidden || !view.game) return;
  measured.frames++;
  const ms = mission.missionMs();
  const ends = view.game.timeline.phase_ends_ms;
  const { phase, leftMs, over } = phaseAt(ends, ms);
  const said = view.game.words;
  const isOver = view.playback.status === "ended";
  if (isOver) {
    change(page.phase, "textContent", t("page.over.phase"));
    change(page.left, "textContent", clockText(0));
    change(page.elapsed, "textContent", t("page.over.at", { time: clockText(ms) }));
  } else {
    change(page.phase, "textContent", over ? said.mission_end : `${said.phase} ${phase}`);
    change(page.left, "textContent", leftText(leftMs));
    change(page.elapsed, "textContent", `${clockText(ms)} / ${clockText(ends.at(-1))}`);
  }
  change(page.end, "disabled", !mayEnd(ends, ms) || isOver);
  const first = view.cues[0] && view.cues[0].speech[0];
  if (measured.alertAt === null && first && ms >= first.at_ms + 20) {
    measured.alertAt = performance.now(); // Play pressed -> the first words are being played
  }
  drawCaptions(ms);
  drawBanner(ms);
  drawPrompt(ms);
  mission.drawResume(ms);
  change(page.flash, "hidden", performance.now() > view.flashUntil);
  const audible = view.sound && !page.audio.paused;
  if (audible && performance.now() - view.lastReport > REPORT_EVERY_MS) report();
  if (view.playback.status === "playing" || audible || !page.flash.hidden) view.frameId = requestAnimationFrame(frame);
}

function captionElement(cue, ms) {
  const spoken = wordsOf(cue, ms);
  const caption = element("span", { className: `cue ${cue.kind}`, textContent: spoken.join(" ") });
  caption.dataset.words = spoken.length;
  if (cue.pile && spoken.length) {
    caption.append(" ", element("b", { className: `pile pile-${cue.pile.color}`, textContent: cue.pile.name }));
  }
  return caption;
}

// An announcement that has begun: the one before goes to the history, this one is the caption.
function announce(index, ms) {
  const cue = view.cues[index];
  measured.captionLags.push({ at_ms: cue.at_ms, lag_ms: ms - cue.at_ms });
  const fresh = ms - cue.at_ms < 2000;
  if (cue.alert && navigator.vibrate && fresh) navigator.vibrate([200, 100, 200]);
  if (fresh && view.game.mode === "quiet") flash(cue);
  if (fresh) page.said.textContent = cue.text; // whole announcements for screen readers, never word by word
  if (page.caption.firstChild) {
    const done = view.cues[index - 1];
    page.history.prepend(element("li", {}, element("time", { textContent: clockText(done.at_ms) }), " ",
      element("span", { textContent: historyText(done) })));
  }
  page.caption.replaceChildren(captionElement(cue, ms));
}

function drawCaptions(ms) {
  const begun = cuesBegun(view.cues, view.shown, ms);
  if (begun === null) {
    // the clock went back (a seek, a resync): draw the captions again from the start
    view.shown = 0;
    page.history.replaceChildren();
    page.caption.replaceChildren();
    return;
  }
  for (; view.shown < begun; view.shown++) announce(view.shown, ms);
  const current = view.cues[view.shown - 1];
  if (!current) return;
  const shown = page.caption.firstChild;
  if (shown && Number(shown.dataset.words) !== wordsOf(current, ms).length) page.caption.replaceChildren(captionElement(current, ms));
  page.caption.classList.toggle("fresh", ms < current.end_ms + CAPTION_HOLD_MS);
  const sound = soundAt(current, ms);
  change(page.sfx, "hidden", !sound);
  if (sound) change(page.sfx, "textContent", sound.name ? `${soundIcon(sound)} ${sound.name.toUpperCase()}` : "");
}

// Quiet mode: each announcement fills the screen for a moment, and the phone vibrates.
function flash(cue) {
  page.flashText.textContent = cue.text;
  page.flash.className = `flash ${cue.kind}`;
  page.flash.hidden = false;
  view.flashUntil = performance.now() + FLASH_MS;
  if (navigator.vibrate && !cue.alert) navigator.vibrate(300);
}

function drawBanner(ms) {
  const down = view.playback.status !== "ended" && outageAt(view.cues, ms);
  change(page.banner, "hidden", !down);
  if (down) change(page.banner, "textContent", view.game.words.comms_down.toUpperCase());
}

// The prompter's lines at `ms`, made again only when their words change.
function drawPrompt(ms) {
  const box = page.prompt;
  change(box, "hidden", !view.prompter);
  if (!view.prompter) return;
  const plan = prompterPlan(view.cues, ms, PROMPT_AHEAD_MS);
  const lines = plan.sounds.map((sound) => element("p", { className: "mark",
    textContent: `${soundIcon(sound)} ${t("page.prompt.sound_in", { name: sound.name, seconds: secondsTo(sound.at_ms, ms) })}` }));
  if (plan.soon) {
    const marks = plan.marks.map((s) => `${soundIcon(s)} ${t("page.prompt.sound_at", { name: s.name, time: clockText(s.at_ms) })}`);
    const when = element("b", { textContent: t("page.prompt.in", { seconds: secondsTo(plan.next.at_ms, ms) }) });
    lines.push(element("p", { className: "next" }, when, ` (${clockText(plan.next.at_ms)})${marks.length ? ` · ${marks.join(", ")}` : ""}`),
      element("p", { className: "say", textContent: plan.next.text }));
  } else if (plan.next) {
    lines.push(element("p", { className: "next", textContent: t("page.prompt.next_at", { time: clockText(plan.next.at_ms) }) }));
  }
  const drawn = lines.map((line) => `${line.className}:${line.textContent}`).join("\n");
  if (box.dataset.drawn !== drawn) {
    box.replaceChildren(...lines);
    box.dataset.drawn = drawn;
  }
}
