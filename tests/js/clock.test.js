// The mission clock's maths (timekeeper/serve/assets/clock.js), run by Node's own test runner.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bestOffset, clockSample, clockText, leftText, mayEnd, phaseAt, positionAt, secondsTo, spanText }
  from "../../timekeeper/serve/assets/clock.js";

test("a time is written in minutes and whole seconds, never below zero", () => {
  assert.equal(clockText(0), "0:00");
  assert.equal(clockText(83_999), "1:23");
  assert.equal(clockText(600_000), "10:00");
  assert.equal(clockText(-5_000), "0:00");
});

test("the time left is rounded up to the whole second", () => {
  assert.equal(leftText(59_001), "1:00");
  assert.equal(leftText(59_000), "0:59");
  assert.equal(leftText(0), "0:00");
});

test("seconds to a moment have one decimal", () => {
  assert.equal(secondsTo(20_000, 15_550), "4.5");
  assert.equal(secondsTo(1_000, 1_000), "0.0");
});

test("a span is said in its largest whole unit", () => {
  assert.equal(spanText(7200), "2 h");
  assert.equal(spanText(1800), "30 min");
  assert.equal(spanText(45), "45 s");
  assert.equal(spanText(90), "90 s");
});

test("a playing mission moves on from where the server put it; a paused one stays", () => {
  const playing = { status: "playing", position_ms: 10_000, at_ms: 1_000_000 };
  assert.equal(positionAt(playing, 1_002_500, 60_000), 12_500);
  assert.equal(positionAt({ ...playing, status: "paused" }, 1_002_500, 60_000), 10_000);
  assert.equal(positionAt(playing, 2_000_000, 60_000), 60_000); // never past the end
  assert.equal(positionAt(playing, 990_000, 60_000), 0); // nor before the start
});

test("the phase at a moment and the time left in it", () => {
  const ends = [225_000, 450_000, 600_000];
  assert.deepEqual(phaseAt(ends, 0), { phase: 1, leftMs: 225_000 });
  assert.deepEqual(phaseAt(ends, 225_000), { phase: 2, leftMs: 225_000 });
  assert.deepEqual(phaseAt(ends, 599_999), { phase: 3, leftMs: 1 });
  assert.deepEqual(phaseAt(ends, 600_000), { phase: 3, leftMs: 0, over: true });
});

test("the mission may be ended from the start of its last phase", () => {
  const ends = [225_000, 450_000, 600_000];
  assert.equal(mayEnd(ends, 449_999), false);
  assert.equal(mayEnd(ends, 450_000), true);
  assert.equal(mayEnd([600_000], 599_000), false); // one phase: never before its end
});

test("the clock offset is the quickest recent ping's", () => {
  let samples = clockSample([], 1_000, 1_040, 5_020);
  assert.deepEqual(bestOffset(samples), { bestRttMs: 40, offsetMs: 4_000 }); // the server read its clock halfway
  samples = clockSample(samples, 2_000, 2_100, 6_080); // a slow, uneven answer
  assert.deepEqual(bestOffset(samples), { bestRttMs: 40, offsetMs: 4_000 });
  samples = clockSample(samples, 3_000, 3_030, 7_017);
  assert.deepEqual(bestOffset(samples), { bestRttMs: 30, offsetMs: 4_002 });
  assert.equal(bestOffset([]), null);
  assert.equal(clockSample(samples, 5_000, 4_990, 9_000), samples); // a clock that went back: no answer
});

test("old answers leave, so a device clock that jumped is followed", () => {
  let samples = clockSample([], 0, 20, 1_010); // offset 1 000 ms
  for (let n = 1; n <= 4; n++) samples = clockSample(samples, n * 1_000, n * 1_000 + 50, n * 1_000 + 25 + 61_000, 4);
  assert.equal(samples.length, 4);
  assert.equal(bestOffset(samples).offsetMs, 61_000); // the quick answer from before the jump is gone
});
