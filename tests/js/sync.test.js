// A speaker's maths (timekeeper/serve/assets/sync.js), run by Node's own test runner.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SYNC, aheadMs, boundedLate, correction, holds, learntRestart, playsOn, targetMs }
  from "../../timekeeper/serve/assets/sync.js";

test("a speaker plays ahead by its output latency and its own delay", () => {
  assert.equal(targetMs(60_000, 40), 60_040);
  assert.equal(aheadMs(0.032, 0), 32);
  assert.equal(aheadMs(0.032, 120), 152);
  assert.equal(aheadMs(undefined, 0), 0); // a browser that reports no latency
  assert.equal(aheadMs(Number.NaN, -40), -40);
});

test("a speaker's own delay stays within ±500 ms and whole", () => {
  assert.equal(boundedLate(120.4), 120);
  assert.equal(boundedLate(9_999), SYNC.lateLimitMs);
  assert.equal(boundedLate(-9_999), -SYNC.lateLimitMs);
  assert.equal(boundedLate("12x"), 0);
  assert.equal(boundedLate(""), 0);
});

test("a small error is worked off by the rate, a large one by a seek", () => {
  assert.deepEqual(correction(0.5), { seek: false, rate: 1 });
  assert.deepEqual(correction(10), { seek: false, rate: 0.99 }); // ahead: slower
  assert.deepEqual(correction(-10), { seek: false, rate: 1.01 }); // behind: faster
  assert.deepEqual(correction(150), { seek: false, rate: 1 - SYNC.maxStep }); // never beyond the bound
  assert.deepEqual(correction(-201), { seek: true, rate: 1 });
  // just after a start or a seek: a miss beyond 25 ms is sought again, the rate may go to 4 %
  assert.deepEqual(correction(-30, true), { seek: true, rate: 1 });
  assert.deepEqual(correction(-30), { seek: false, rate: 1 + SYNC.maxStep });
  assert.deepEqual(correction(6, true), { seek: false, rate: 1 - 6 / SYNC.settleSpanMs }); // worked off faster
  assert.deepEqual(correction(-20, true), { seek: false, rate: 1 + SYNC.settleStep });
  assert.equal(correction(-25, true).rate <= 1 + SYNC.settleStep, true);
});

test("the rate halves an error in well under a second and a half", () => {
  let error = 30;
  let elapsed = 0;
  while (error > 15) {
    const { rate } = correction(error);
    error += (rate - 1) * 100; // 100 ms of playing at that rate
    elapsed += 100;
  }
  assert.ok(elapsed <= 1_000, elapsed);
});

test("a seek's landing teaches how long the element stands still", () => {
  assert.equal(learntRestart(80, 0), 80); // it landed on time
  assert.equal(learntRestart(80, -40), 110); // it stood 120 ms: learnt three quarters of the way
  assert.equal(learntRestart(80, 100), 5); // it landed 100 ms ahead: learnt three quarters of the way
  assert.equal(learntRestart(10, 500), 0); // never below 0
  assert.equal(learntRestart(900, -900), SYNC.restartMaxMs);
});

test("an element plays on when it moved at least half the time that passed", () => {
  assert.equal(playsOn(1_000, 1_250, 250), true);
  assert.equal(playsOn(1_000, 1_010, 250), false); // seeking or stalled
  assert.equal(playsOn(1_000, 1_000, 0), false);
});

test("only a seek into data the element holds teaches its standing time", () => {
  const ranges = (...spans) => ({ length: spans.length, start: (i) => spans[i][0], end: (i) => spans[i][1] });
  assert.equal(holds(ranges([0, 30], [60, 90]), 10), true);
  assert.equal(holds(ranges([0, 30], [60, 90]), 45), false); // a download to wait for
  assert.equal(holds(ranges([0, 30]), 30), false);
  assert.equal(holds(ranges(), 0), false); // nothing yet (the first start, a reload)
});
