// What the mission screen says at a moment (timekeeper/serve/assets/captions.js), run by Node's
// own test runner on cues shaped as the server sends them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cuesBegun, historyText, outageAt, prompterPlan, soundAt, soundIcon, wordsOf }
  from "../../timekeeper/serve/assets/captions.js";

const alert = {
  kind: "threat", at_ms: 10_000, end_ms: 14_000, text: "Time T plus 1. Threat. Zone red.",
  speech: [{ at_ms: 11_000, duration_ms: 1_000, text: "Time T plus 1." }, { at_ms: 12_500, duration_ms: 1_500, text: "Threat. Zone red." }],
  sounds: [{ key: "alert", name: "Alert klaxon", at_ms: 10_000, duration_ms: 1_000 }],
  pile: { name: "White pile", color: "white" },
};
const outage = { kind: "comms_down", at_ms: 20_000, until_ms: 30_000, end_ms: 21_000, text: "Communications down.",
  speech: [{ at_ms: 20_000, duration_ms: 1_000, text: "Communications down." }], sounds: [] };
const transfer = { kind: "data_transfer", at_ms: 40_000, end_ms: 43_000, text: "Data transfer.",
  speech: [{ at_ms: 40_500, duration_ms: 1_000, text: "Data transfer." }],
  sounds: [{ key: "beep", name: "Transfer beep", at_ms: 42_000, duration_ms: 500 }, { key: "jump", name: null, at_ms: 42_600, duration_ms: 300 }] };
const cues = [alert, outage, transfer];

test("words appear across their phrase by characters, none before it", () => {
  assert.deepEqual(wordsOf(alert, 10_999), []);
  assert.deepEqual(wordsOf(alert, 11_000), ["Time"]);
  assert.deepEqual(wordsOf(alert, 11_500), ["Time", "T", "plus"]);
  assert.deepEqual(wordsOf(alert, 12_000), ["Time", "T", "plus", "1."]);
  assert.deepEqual(wordsOf(alert, 60_000), "Time T plus 1. Threat. Zone red.".split(" "));
});

test("the sound playing at a moment, and its mark", () => {
  assert.equal(soundAt(alert, 10_500).key, "alert");
  assert.equal(soundAt(alert, 11_000), undefined); // over: its end is not part of it
  assert.equal(soundIcon(soundAt(transfer, 42_100)), "◉");
  assert.equal(soundIcon(soundAt(alert, 10_000)), "⚠");
});

test("an outage lasts from its announcement until its end", () => {
  assert.equal(outageAt(cues, 19_999), undefined);
  assert.equal(outageAt(cues, 20_000), outage);
  assert.equal(outageAt(cues, 29_999), outage);
  assert.equal(outageAt(cues, 30_000), undefined);
});

test("the history names an announcement's threat pile", () => {
  assert.equal(historyText(alert), "Time T plus 1. Threat. Zone red. [White pile]");
  assert.equal(historyText(outage), "Communications down.");
});

test("announcements begin in order; a clock that went back starts them again", () => {
  assert.equal(cuesBegun(cues, 0, 9_999), 0);
  assert.equal(cuesBegun(cues, 0, 20_000), 2); // two at once after a jump forward
  assert.equal(cuesBegun(cues, 2, 25_000), 2);
  assert.equal(cuesBegun(cues, 2, 15_000), null); // before the last one shown
  assert.equal(cuesBegun(cues, 3, 15_000), 3); // all shown: nothing to start again
});

test("the prompter names the sounds still to come and the next announcement once it is near", () => {
  const far = prompterPlan(cues, 22_000, 15_000);
  assert.equal(far.next, transfer);
  assert.equal(far.soon, false);
  assert.deepEqual(far.sounds, []);
  const near = prompterPlan(cues, 26_000, 15_000);
  assert.equal(near.soon, true);
  assert.deepEqual(near.marks.map((s) => s.key), ["beep"]); // only the named sounds
  const during = prompterPlan(cues, 41_000, 15_000);
  assert.deepEqual(during.sounds.map((s) => s.key), ["beep"]);
  assert.equal(during.next, null);
});

test("the prompter keeps the announcement being read until its end, the next one below it", () => {
  const before = prompterPlan(cues, 9_000, 15_000, 2_000);
  assert.equal(before.reading, null);
  assert.equal(before.next, alert);
  const start = prompterPlan(cues, 10_000, 15_000, 2_000); // the moment it must be read: still shown, whole
  assert.equal(start.reading, alert);
  assert.equal(start.said, 0);
  assert.equal(start.next, outage);
  const midway = prompterPlan(cues, 11_500, 15_000, 2_000);
  assert.equal(midway.reading, alert);
  assert.equal(midway.said, 3); // "Time T plus": the voice's pace, for the reader to keep
  assert.equal(prompterPlan(cues, 15_900, 15_000, 2_000).reading, alert); // a little slower than the voice
  assert.equal(prompterPlan(cues, 16_000, 15_000, 2_000).reading, null);
  assert.equal(prompterPlan(cues, 20_500, 15_000, 2_000).reading, outage);
  assert.equal(prompterPlan(cues, 43_500, 15_000, 2_000).reading, transfer); // the last one, to its end
  assert.equal(prompterPlan(cues, 50_000, 15_000, 2_000).reading, null);
});
