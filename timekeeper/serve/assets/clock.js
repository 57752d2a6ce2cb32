// The mission clock's maths, shared by every screen: times as the page writes them, where the
// mission is on the server's clock, the phase at a moment, and this device's clock offset. Pure.

// 83 000 ms -> "1:23" (whole seconds, never below zero)
export function clockText(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// Seconds from `ms` to `at_ms` with one decimal: "4.5"
export function secondsTo(atMs, ms) {
  return ((atMs - ms) / 1000).toFixed(1);
}

// A span of whole seconds as "2 h", "30 min" or "45 s": the largest unit that divides it.
export function spanText(seconds) {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

// The mission's position on the server's clock at `serverMs`: a playing mission moves on from
// where the server last put it. Kept between 0 and `durationMs`.
export function positionAt(playback, serverMs, durationMs) {
  const ms = playback.status === "playing" ? playback.position_ms + (serverMs - playback.at_ms) : playback.position_ms;
  return Math.min(Math.max(0, ms), durationMs);
}

// The phase (from 1) at `ms` and the time left in it; past the last end: the last phase, over.
export function phaseAt(phaseEndsMs, ms) {
  for (let i = 0; i < phaseEndsMs.length; i++) if (ms < phaseEndsMs[i]) return { phase: i + 1, leftMs: phaseEndsMs[i] - ms };
  return { phase: phaseEndsMs.length, leftMs: 0, over: true };
}

// The time left as the big clock shows it: rounded up to the whole second.
export function leftText(leftMs) {
  return clockText(Math.ceil(leftMs / 1000) * 1000);
}

// The mission may be ended once the last phase has begun (its start is the end of the one before).
export function mayEnd(phaseEndsMs, ms) {
  return ms >= (phaseEndsMs.at(-2) ?? Infinity);
}

// A ping's answer: the server read its clock (`serverMs`) between this device sending the ping
// (`sentMs`) and receiving the answer (`receivedMs`). The last `keep` answers are kept, newest last.
export function clockSample(samples, sentMs, receivedMs, serverMs, keep = 16) {
  const rttMs = receivedMs - sentMs;
  if (!(rttMs >= 0)) return samples;
  return [...samples, { rttMs, offsetMs: serverMs - (sentMs + rttMs / 2) }].slice(-keep);
}

// The clock offset (server - device) the kept answers give: the quickest one's, whose ways there and
// back were the most alike (a jittery link's slow answers are uneven); null without any. As old
// answers leave, a device clock that drifts or jumped is followed.
export function bestOffset(samples) {
  if (!samples.length) return null;
  const quickest = samples.reduce((best, sample) => (sample.rttMs < best.rttMs ? sample : best));
  return { offsetMs: quickest.offsetMs, bestRttMs: quickest.rttMs };
}
