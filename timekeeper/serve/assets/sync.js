// A speaker's maths: where its audio element must be for its sound to be heard at the room's
// moment, and how it gets there. Pure (unit-tested with node --test tests/js/).
//
// The element plays ahead of the room by the sound's way out (the output latency the browser
// reports, plus the crew's own "this speaker is N ms late" for a Bluetooth speaker), so what comes
// out of the speaker is the room's moment. A small error is worked off by the playback rate (the
// pitch is not kept: within 2 % no one hears it, and the element's clock stays smooth); a large one
// by a seek that lands where the room will be once the element plays again. Just after a start or a
// seek (settling: the device has just joined, resumed or woken) the element is not yet where the
// room is: a seek that missed by more than settleSeekBeyondMs is made again (each one aimed with
// the start-up time the last one showed), and the rate may go as far as settleStep, so the speaker
// is in step within a second or two instead of the ten seconds 2 % would take.

export const SYNC = {
  seekBeyondMs: 200, // further off than this: a seek (at 2 % the rate would take longer than 10 s)
  spanMs: 1000, // the rate works an error off at error/spanMs: it halves in about 0.7 s
  maxStep: 0.02, // the rate stays within 1 ± this
  deadbandMs: 1, // closer than this: the rate is 1
  lateLimitMs: 500, // a speaker's own delay, as the crew sets it: -500..+500 ms
  restartGuessMs: 80, // a first guess at how long an element takes to play on after a seek
  restartMaxMs: 1000,
  settleMs: 4000, // settling lasts this long after a start or a seek
  settleSeekBeyondMs: 25, // while settling, further off than this: a seek again
  settleStep: 0.04, // while settling, the rate stays within 1 ± this
  settleSpanMs: 300, // and works an error off at error/settleSpanMs
};

// The element's position (ms) for the room's moment `roomMs`, with the sound `aheadMs` on its way out.
export function targetMs(roomMs, aheadMs) {
  return roomMs + aheadMs;
}

// How far ahead the element plays: the output latency (s, as the browser reports it; not a number:
// 0) and the crew's own delay for this speaker (kept within ±lateLimitMs).
export function aheadMs(outputLatencyS, lateMs) {
  const latency = Number.isFinite(outputLatencyS) && outputLatencyS > 0 ? outputLatencyS * 1000 : 0;
  return latency + boundedLate(lateMs);
}

// The crew's delay for one speaker, as a whole number of ms within ±lateLimitMs (0 when not a number).
export function boundedLate(lateMs) {
  const ms = Math.round(Number(lateMs));
  return Number.isFinite(ms) ? Math.min(SYNC.lateLimitMs, Math.max(-SYNC.lateLimitMs, ms)) : 0;
}

// What to do about an element `errorMs` ahead of its target (negative: behind): seek, or play at
// `rate`; `settling` just after a start or a seek (see above).
export function correction(errorMs, settling = false) {
  if (Math.abs(errorMs) > (settling ? SYNC.settleSeekBeyondMs : SYNC.seekBeyondMs)) return { seek: true, rate: 1 };
  if (Math.abs(errorMs) < SYNC.deadbandMs) return { seek: false, rate: 1 };
  const bound = settling ? SYNC.settleStep : SYNC.maxStep;
  const step = Math.min(bound, Math.max(-bound, errorMs / (settling ? SYNC.settleSpanMs : SYNC.spanMs)));
  return { seek: false, rate: 1 - step };
}

// After a seek aimed `guessMs` ahead (the time the element was expected to stand still), the error
// once it plays on says how long it really stood: the next guess, learnt three quarters of the way
// (one slow start does not undo what the others showed), within bounds.
export function learntRestart(guessMs, errorMs) {
  const stood = guessMs - errorMs;
  const next = guessMs + ((stood - guessMs) * 3) / 4;
  return Math.min(SYNC.restartMaxMs, Math.max(0, next));
}

// Whether the element holds the data at `seconds` already (`ranges`: its `buffered` TimeRanges).
// Only a seek there teaches how long the element stands still: one that waits for a download (the
// first start, a file still being made) would teach the network's time, not the element's.
export function holds(ranges, seconds) {
  for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= seconds && seconds < ranges.end(i)) return true;
  return false;
}

// Whether an element read at `ms` has played on since it was read at `beforeMs`, `elapsedMs` ago:
// it moved at least half as far as the time that passed (a stalled or seeking element stands still).
export function playsOn(beforeMs, ms, elapsedMs) {
  return elapsedMs > 0 && ms - beforeMs >= elapsedMs / 2;
}
