// The page's shared state, in one place: what the server said about itself, the lobby's game
// (made while the crew sets up), and the mission this screen shows. Modules read and change these
// objects; nothing else is shared between them.

export const clientId = sessionStorage.getItem("tk-client") || Math.random().toString(36).slice(2, 12);
sessionStorage.setItem("tk-client", clientId);

// /api/info, once asked (its voice names and generate form in the page's language)
export const server = { info: null };

// the game made while the crew sets up: phones join it and its mix is prepared before Play
export const lobby = { id: sessionStorage.getItem("tk-lobby"), sending: null, again: false, sent: null };

// the mission on this screen
export const view = {
  game: null,
  cues: [],
  playback: { status: "ready", position_ms: 0, at_ms: 0 },
  offsetMs: 0, // server clock - this device's clock (deviceNow)
  bestRttMs: Infinity,
  clockSamples: [], // the last pings' answers (clock.js clockSample)
  sound: false, // this device plays the sound
  tapped: false, // this screen's user tapped to join (a crew apart: it plays the sound)
  speakers: [], // the client ids whose devices play the sound (heard), as the server last said
  prompter: false,
  shown: 0, // cues shown so far
  socket: null,
  socketGame: null, // the game the socket is joined to (the lobby's before Play)
  lobbyId: null,
  retryMs: 500,
  wakeLock: null,
  changes: -1, // the last command the sound followed
  frameId: null, // the next animation frame, only while the clock runs
  flashUntil: 0,
  screens: [],
  offline: null, // Play or Pause pressed while the server could not be reached
  skipSnapshot: false,
  setupMissed: false, // the crew changed the set-up and this screen could not fetch it yet
};

// Now on this device's steady clock (ms since the epoch when the page loaded, then never set back
// or forward as Date.now() may be), and on the server's.
export const deviceNow = () => performance.timeOrigin + performance.now();
export const serverNow = () => deviceNow() + view.offsetMs;

// What the tests and benchmarks read: the clock, caption lags and the moments of Play and sound.
export const measured = { captionLags: [], view, clockMs: null, pressedAt: null, alertAt: undefined, soundAt: undefined,
  frames: 0, soundKept: undefined };
window.timekeeper = measured;
