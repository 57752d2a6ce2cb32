// Drawing the mission screen: one frame per screen refresh while the clock runs, none while it
// is paused or ended. The clock and phase, the captions word by word (whole announcements for
// screen readers), the sound playing, the comms outage, quiet mode's flash and the prompter. The
// mission screen hands it its clock and its resume button's drawing (`drawWith`).
import { cuesBegun, historyText, outageAt, prompterPlan, soundAt, soundIcon, wordsOf } from "./captions.js";
import { clockText, leftText, mayEnd, phaseAt, secondsTo } from "./clock.js";
import { change, element, page } from "./dom.js";
import { t } from "./i18n.js";
import { measured, view } from "./state.js";

const mission = {}; // missionMs: the mission's clock (ms); drawResume(ms): the resume button's time

export function drawWith({ missionMs, drawResume }) {
  Object.assign(mission, { missionMs, drawResume });
}

const PROMPT_AHEAD_MS = 15000; // the prompter shows the next announcement this far ahead
const READ_GRACE_MS = 2000; // and the one being read this long after the voice would have ended it
const PROMPT_MIN_PX = 12; // the prompter's announcements are drawn this large at the least ...
const PROMPT_MAX_PX = 44; // ... and at the most (CSS pixels)
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
  if (cue.alert && fresh) buzz([200, 100, 200]);
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

// A phone vibrates (`pattern` in ms) only for a page it was tapped on: Chrome refuses, and logs an
// error, before the first tap.
function buzz(pattern) {
  const tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (navigator.vibrate && tapped) navigator.vibrate(pattern);
}

// Quiet mode: each announcement fills the screen for a moment, and the phone vibrates.
function flash(cue) {
  page.flashText.textContent = cue.text;
  page.flash.className = `flash ${cue.kind}`;
  page.flash.hidden = false;
  view.flashUntil = performance.now() + FLASH_MS;
  if (!cue.alert) buzz(300);
}

function drawBanner(ms) {
  const down = view.playback.status !== "ended" && outageAt(view.cues, ms);
  change(page.banner, "hidden", !down);
  if (down) change(page.banner, "textContent", view.game.words.comms_down.toUpperCase());
}

// The prompter, in the stage where the caption would be: the announcement being read (its words
// the voice would have said by now brighter), the sounds to make in it, and the next announcement
// below it. Made again only when its words change; its type is sized so that every line fits.
function drawPrompt(ms) {
  const box = page.prompt;
  change(box, "hidden", !view.prompter);
  page.game.classList.toggle("prompting", view.prompter);
  if (!view.prompter) return;
  const plan = prompterPlan(view.cues, ms, PROMPT_AHEAD_MS, READ_GRACE_MS);
  const lines = [];
  if (plan.reading) {
    const words = plan.reading.text.split(" ");
    lines.push(element("p", { className: "read-now", textContent: t("page.prompt.now", { time: clockText(plan.reading.at_ms) }) }),
      element("p", { className: "say reading" }, element("span", { className: "said", textContent: words.slice(0, plan.said).join(" ") }),
        plan.said && plan.said < words.length ? " " : "", words.slice(plan.said).join(" ")));
  }
  lines.push(...plan.sounds.map((sound) => element("p", { className: "mark",
    textContent: `${soundIcon(sound)} ${t("page.prompt.sound_in", { name: sound.name, seconds: secondsTo(sound.at_ms, ms) })}` })));
  if (plan.soon) {
    const marks = plan.marks.map((s) => `${soundIcon(s)} ${t("page.prompt.sound_at", { name: s.name, time: clockText(s.at_ms) })}`);
    const when = element("b", { textContent: t("page.prompt.in", { seconds: secondsTo(plan.next.at_ms, ms) }) });
    lines.push(element("p", { className: "next" }, when, ` (${clockText(plan.next.at_ms)})${marks.length ? ` · ${marks.join(", ")}` : ""}`),
      element("p", { className: "say", textContent: plan.next.text }));
  } else if (plan.next) {
    lines.push(element("p", { className: "next", textContent: t("page.prompt.next_at", { time: clockText(plan.next.at_ms) }) }));
  }
  const drawn = lines.map((line) => `${line.className}:${line.textContent}:${line.firstChild && line.firstChild.textContent}`).join("\n");
  if (box.dataset.drawn === drawn) return;
  box.replaceChildren(...lines);
  box.dataset.drawn = drawn;
  // the type is sized again when the announcements shown change (or when a line grew too long for it)
  const texts = [plan.reading && plan.reading.text, plan.soon && plan.next.text, plan.sounds.length, plan.marks.length].join("\n");
  if (box.dataset.fitted !== texts || box.scrollHeight > box.clientHeight) {
    fitPrompt(box);
    box.dataset.fitted = texts;
  }
}

// The prompter's box changes size with the screen around it (a banner, a line more in the title, a
// phone turned): its type is sized again.
new ResizeObserver(() => view.prompter && !page.prompt.hidden && fitPrompt(page.prompt)).observe(page.prompt);

// The largest type (in whole CSS pixels) at which the prompter's lines all fit its box.
function fitPrompt(box) {
  const size = (px) => box.style.setProperty("--say", `${px}px`);
  const fits = () => box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth;
  let low = PROMPT_MIN_PX;
  let high = PROMPT_MAX_PX;
  size(high);
  if (fits()) return;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    size(middle);
    if (fits()) low = middle;
    else high = middle;
  }
  size(low);
}
