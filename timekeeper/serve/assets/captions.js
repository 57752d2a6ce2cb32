// What the mission screen says at a moment: the words of an announcement spoken so far, the
// sound playing, the comms outage under way and what the prompter shows next. Pure: the screen
// (frame.js) draws what these choose.

// The words spoken by `ms`: each phrase's words appear across its length, by characters.
export function wordsOf(cue, ms) {
  const out = [];
  for (const part of cue.speech) {
    if (ms < part.at_ms) break;
    const total = part.text.length || 1;
    let chars = 0;
    for (const word of part.text.split(/\s+/)) {
      if (ms < part.at_ms + (part.duration_ms * chars) / total) break;
      out.push(word);
      chars += word.length + 1;
    }
  }
  return out;
}

// The sound of `cue` playing at `ms`, if one is.
export function soundAt(cue, ms) {
  return cue.sounds.find((sound) => sound.at_ms <= ms && ms < sound.at_ms + sound.duration_ms);
}

// The comms outage under way at `ms`, if one is.
export function outageAt(cues, ms) {
  return cues.find((cue) => cue.kind === "comms_down" && cue.at_ms <= ms && ms < cue.until_ms);
}

// A sound the server names in the game's words (klaxon, transfer beep) gets a mark of its kind.
export function soundIcon(sound) {
  return sound.key === "beep" ? "◉" : "⚠";
}

// An announcement as the history lists it: its words and its threat pile.
export function historyText(cue) {
  return cue.text + (cue.pile ? ` [${cue.pile.name}]` : "");
}

// How many of `cues` have begun by `ms`, counting on from `shown`; null when the clock went back
// before the last one shown (a seek, a resync): the captions are then drawn again from the start.
export function cuesBegun(cues, shown, ms) {
  if (shown > 0 && shown < cues.length && ms < cues[shown - 1].at_ms) return null;
  let count = shown;
  while (count < cues.length && cues[count].at_ms <= ms) count++;
  return count;
}

// What the prompter shows at `ms`: the announcement being read (from its start to its end, and
// `graceMs` more for a reader a little slower than the voice, never past the next one's start) with
// how many of its words the voice would have said, the named sounds still to come in it, and the
// next announcement (`soon` once it is `aheadMs` or less away, with its named sounds).
export function prompterPlan(cues, ms, aheadMs, graceMs = 0) {
  const index = cues.findIndex((cue) => cue.at_ms > ms);
  const next = index === -1 ? null : cues[index];
  const last = cues[(index === -1 ? cues.length : index) - 1];
  const reading = last && ms < last.end_ms + graceMs ? last : null;
  const sounds = cues.flatMap((cue) => cue.sounds.filter((s) => s.name && s.at_ms > ms && cue.at_ms <= ms));
  return {
    reading,
    said: reading ? wordsOf(reading, ms).length : 0,
    sounds,
    next,
    soon: Boolean(next) && next.at_ms - ms <= aheadMs,
    marks: next ? next.sounds.filter((s) => s.name) : [],
  };
}
