// timekeeper's page: choose and set up a track, then play it with a spoiler-free screen.
// The mission clock is the audio element's own position on the device that plays the sound;
// other screens follow the server's copy of it, corrected for their clock offset.
"use strict";

const $ = (selector) => document.querySelector(selector);
const HEADERS = { "X-Timekeeper": "1" };
const SILENCE = "data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";
const PROMPT_AHEAD_MS = 15000; // the prompter shows the next announcement this far ahead
const REPORT_EVERY_MS = 1000; // the sound device reports its position this often
const CAPTION_HOLD_MS = 6000; // a caption stays large this long after its cue ends

const clientId = sessionStorage.getItem("tk-client") || Math.random().toString(36).slice(2, 12);
sessionStorage.setItem("tk-client", clientId);

// ---- small helpers --------------------------------------------------------------------------
function clockText(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function toast(message, isError = false) {
  const box = $("#toast");
  box.textContent = message;
  box.classList.toggle("error", isError);
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), isError ? 8000 : 3000);
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { ...HEADERS, ...(options.headers || {}) } });
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const error = new Error((body && body.error) || `${response.status} ${response.statusText}`);
    error.body = body;
    throw error;
  }
  return body;
}

const postJson = (path, data) =>
  api(path, { method: "POST", body: JSON.stringify(data), headers: { "Content-Type": "application/json" } });

function option(value, label) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = label;
  return element;
}

// ---- set-up screen --------------------------------------------------------------------------
const GROUPS = {
  "test-run": "Test runs", simulation: "Simulations", "advanced-simulation": "Advanced simulations",
  mission: "Missions", "double-action": "Double action", example: "Examples", custom: "Custom",
  folder: "Scenario folder", added: "Made here (generated, imported, uploaded)",
};
let info = null;

async function serverInfo() {
  info = info || (await api("/api/info"));
  return info;
}

async function showSetup() {
  $("#setup").hidden = false;
  $("#game").hidden = true;
  await serverInfo();
  fillSettings();
  await fillTracks();
}

async function fillTracks(select) {
  const { tracks } = await api("/api/tracks");
  const list = $("#track");
  const keep = select || list.value || localStorage.getItem("tk-track") || "builtin:mission-1";
  list.replaceChildren();
  const groups = {};
  for (const track of tracks) {
    if (!groups[track.group]) {
      groups[track.group] = document.createElement("optgroup");
      groups[track.group].label = GROUPS[track.group] || track.group;
    }
    const label = `${track.title} (${track.length}${track.seed != null ? `, seed ${track.seed}` : ""})`;
    const element = option(track.id, track.problem ? `✗ ${track.problem}` : label);
    element.dataset.origin = track.origin || "";
    element.disabled = Boolean(track.problem); // listed with its first problem, not playable
    element.title = track.problem;
    groups[track.group].append(element);
  }
  const order = ["added", "folder", ...Object.keys(GROUPS)];
  for (const group of [...new Set([...order, ...Object.keys(groups)])]) if (groups[group]) list.append(groups[group]);
  list.value = keep;
  if (!list.value || list.selectedOptions[0].disabled) list.selectedIndex = [...list.options].findIndex((o) => !o.disabled);
  trackChanged();
}

function trackChanged() {
  const chosen = $("#track").selectedOptions[0];
  $("#track-info").textContent = chosen && chosen.dataset.origin ? chosen.dataset.origin : "";
  if (chosen) localStorage.setItem("tk-track", chosen.value);
}

function fillSettings() {
  const language = $("#language");
  if (language.options.length) return;
  for (const { code, name } of info.languages) language.append(option(code, name));
  language.value = localStorage.getItem("tk-language") || "en";
  fillVoices();
  const music = $("#music");
  for (const name of info.music) music.append(option(name, name));
  $("#music-field").hidden = info.music.length === 0;
  buildGenerateForm();
}

// The generate form is built from the generator's own option table (as `generate --help` shows it).
const LABELS = { threat_level: "Threat level", phase_lengths: "Phase lengths", outage_length: "Outage length (s)",
  incoming_data: "Incoming data", data_transfers: "Data transfers", ambush_chance: "Ambush chance (%)",
  max_serious: "Max serious threats", max_internal: "Max internal threats", threat_colors: "Threat piles" };

function buildGenerateForm() {
  const form = $("#gen");
  const fields = $("#gen-fields");
  const first = fields.firstChild;
  for (const spec of info.generate.options) {
    const label = document.createElement("label");
    label.className = "field";
    label.title = spec.help;
    label.append(LABELS[spec.key] || spec.key[0].toUpperCase() + spec.key.slice(1).replace(/_/g, " "));
    let input;
    if (spec.type === "choice") {
      input = document.createElement("select");
      for (const choice of spec.choices) input.append(option(choice, choice));
      input.value = spec.default;
    } else {
      input = document.createElement("input");
      input.placeholder = spec.example ? `official (e.g. ${spec.example})` : "official";
    }
    input.name = spec.key;
    input.dataset.spec = "1";
    label.append(input);
    fields.insertBefore(label, first);
  }
  form.count.max = info.generate.max_count;
  form.seed.max = info.generate.max_seed;
}

function fillVoices() {
  const language = $("#language").value;
  const voice = $("#voice");
  voice.replaceChildren();
  for (const v of info.voices) if (!v.language || v.language === language) voice.append(option(v.id, v.name));
  const offer = (info.install || []).find((o) => o.language === language && !o.installed);
  $("#voice-offer").hidden = !offer;
  if (offer) $("#install-voice").textContent = `Install a natural voice: ${offer.name} (${offer.size_mb} MB, ${offer.licence})`;
}

// The recommended natural voice of the language: downloaded by the server, then its default voice.
async function installVoice() {
  const language = $("#language").value;
  const bar = $("#install-progress");
  $("#install-voice").disabled = true;
  bar.hidden = false;
  try {
    let job = await postJson("/api/voices/install", { language });
    while (!job.finished) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      job = await api(`/api/voices/install/${language}`);
      bar.max = job.total || 1;
      bar.value = job.done;
    }
    if (job.error) throw new Error(job.error);
    info = await api("/api/info");
    fillVoices();
    toast(`Installed ${job.voice}: the built-in ${language} voice now uses it`);
  } catch (error) {
    toast(error.message, true);
  } finally {
    $("#install-voice").disabled = false;
    bar.hidden = true;
  }
}

function settings() {
  const crew = document.querySelector("input[name=crew]:checked").value;
  return {
    language: $("#language").value,
    voice: $("#voice").value,
    players: crew === "solo" ? 1 : Number(crew),
    solo: crew === "solo",
    background: $("#background").checked,
    music: $("#music").value,
    computer_voice: $("#computer").checked,
  };
}

function showList(head, lines, warning = false) {
  const box = $("#problems");
  box.classList.toggle("warning", warning);
  box.replaceChildren(Object.assign(document.createElement("p"), { textContent: head }));
  if (lines.length) {
    const list = document.createElement("ul");
    for (const line of lines) list.append(Object.assign(document.createElement("li"), { textContent: line }));
    box.append(list);
  }
  box.hidden = false;
}

function showProblems(error) {
  const problems = (error.body && error.body.problems) || [];
  showList(problems.length ? "Nothing was added; the file has these problems:" : error.message,
    problems.map((p) => (p.line ? `line ${p.line}, column ${p.column}: ${p.message}` : p.message)));
}

async function added(request, what) {
  $("#problems").hidden = true;
  try {
    const body = await request;
    const made = body.tracks || [body.track];
    await fillTracks(made[0].id);
    const relaxed = body.relaxed && body.relaxed.length ? ` · relaxes ${body.relaxed.join("; ")}` : "";
    toast(`${what}: ${made.map((t) => t.title + (t.seed != null ? ` (seed ${t.seed})` : "")).join(", ")}${relaxed}`);
    if (body.warnings && body.warnings.length) {
      showList("Added, but the chosen voice makes these announcements overlap (another seed or voice avoids it):",
        body.warnings, true);
    }
  } catch (error) {
    showProblems(error);
  }
}

function wireSetup() {
  $("#track").addEventListener("change", trackChanged);
  $("#language").addEventListener("change", () => {
    localStorage.setItem("tk-language", $("#language").value);
    fillVoices();
  });
  $("#install-voice").addEventListener("click", installVoice);
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      for (const other of document.querySelectorAll(".tab")) {
        const open = other === tab && $(`#${other.dataset.tab}`).hidden;
        other.classList.toggle("active", open);
        $(`#${other.dataset.tab}`).hidden = !open;
      }
    });
  }
  $("#gen").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const data = Object.fromEntries([...form.querySelectorAll("[data-spec]")].map((input) => [input.name, input.value]));
    Object.assign(data, { seed: form.seed.value, count: form.count.value, campaign: form.campaign.checked,
      language: $("#language").value, voice: $("#voice").value }); // the voice's overlaps come back as warnings
    added(postJson("/api/tracks/generate", data), "Generated");
  });
  $("#code").addEventListener("submit", (event) => {
    event.preventDefault();
    added(postJson("/api/tracks/flashcode", { code: event.target.code.value, title: event.target.title.value }), "Imported");
  });
  $("#file").addEventListener("submit", (event) => {
    event.preventDefault();
    const file = event.target.file.files[0];
    if (!file) return toast("Choose a scenario file first", true);
    const name = encodeURIComponent(file.name);
    added(api(`/api/tracks/upload?name=${name}`, { method: "POST", body: file }), "Uploaded");
  });
  $("#play-here").addEventListener("click", () => startGame(true));
  $("#prompter-start").addEventListener("click", () => startGame(false));
}

async function startGame(withSound) {
  window.timekeeper.pressedAt = performance.now();
  window.timekeeper.alertAt = null;
  const audio = $("#audio");
  if (withSound) {
    audio.src = SILENCE; // unlock playback inside the tap (phones allow play() only there)
    audio.play().catch(() => {});
  }
  keepAwake(true);
  const button = withSound ? $("#play-here") : $("#prompter-start");
  button.disabled = true;
  button.classList.add("busy");
  try {
    const game = await postJson("/api/games", { track: $("#track").value, settings: settings() });
    history.pushState({}, "", `/g/${game.id}`);
    openGame(game, { sound: withSound, prompter: !withSound, start: true });
  } catch (error) {
    keepAwake(false);
    toast(error.message, true);
  } finally {
    button.disabled = false;
    button.classList.remove("busy");
  }
}

// ---- the mission screen ---------------------------------------------------------------------
const view = {
  game: null,
  cues: [],
  playback: { status: "ready", position_ms: 0, at_ms: 0 },
  offsetMs: 0, // server clock - this device's clock
  bestRttMs: Infinity,
  sound: false, // this device plays the sound
  holder: null,
  prompter: false,
  shown: 0, // cues shown so far
  socket: null,
  retryMs: 500,
  wakeLock: null,
  lastReport: 0,
  changes: -1, // the last command the sound followed
};
window.timekeeper = { captionLags: [], view, clockMs: () => missionMs(), pressedAt: null, alertAt: undefined };

function serverNow() {
  return Date.now() + view.offsetMs;
}

function missionMs() {
  const audio = $("#audio");
  const pb = view.playback;
  const duration = view.game ? view.game.timeline.duration_ms : 0;
  if (view.sound && audio.src.includes("/sound.wav") && audio.readyState > 0 && $("#resume").hidden) {
    return Math.min(audio.currentTime * 1000, duration);
  }
  const ms = pb.status === "playing" ? pb.position_ms + (serverNow() - pb.at_ms) : pb.position_ms;
  return Math.min(Math.max(0, ms), duration);
}

function openGame(game, { sound = false, prompter = false, start = false } = {}) {
  view.game = game;
  view.cues = game.timeline.cues;
  view.playback = game.playback;
  view.shown = 0;
  view.prompter = prompter;
  $("#setup").hidden = true;
  $("#game").hidden = false;
  window.scrollTo(0, 0);
  $("#after").hidden = true;
  $("#game-title").textContent = game.title;
  document.title = `${game.title} · timekeeper`;
  $("#history").replaceChildren();
  $("#caption").replaceChildren();
  $("#prompter").checked = prompter;
  $("#join").href = game.join_url;
  $("#join").textContent = game.join_url;
  showJoin(game);
  $("#dl-pdf").href = `/api/games/${game.id}/card.pdf`;
  $("#dl-yaml").href = `/api/games/${game.id}/track.yaml`;
  setSound(sound);
  connect(start);
  requestAnimationFrame(frame);
}

// Phones reach the server only in LAN mode; without it the link serves this machine's other windows.
async function showJoin(game) {
  const lan = await serverInfo().then((i) => i.lan, () => false);
  $("#qr").hidden = !lan;
  $("#join-local").hidden = lan;
  if (lan) $("#qr").src = `/api/games/${game.id}/qr.svg`;
}

function setSound(on) {
  view.sound = on;
  $("#sound-here").checked = on;
  const audio = $("#audio");
  if (on) {
    const src = `/api/games/${view.game.id}/sound.wav`;
    if (!audio.src.endsWith(src)) {
      audio.src = src;
      audio.currentTime = missionMs() / 1000;
    }
    send({ type: "claim" });
    follow();
  } else {
    audio.pause();
  }
}

function send(message) {
  if (view.socket && view.socket.readyState === WebSocket.OPEN) view.socket.send(JSON.stringify(message));
}

function connect(start) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/games/${view.game.id}/ws`);
  view.socket = socket;
  socket.onopen = () => {
    view.retryMs = 500;
    $("#conn").className = "conn on";
    send({ type: "hello", client: clientId, sound: view.sound });
    if (view.sound) send({ type: "claim" });
    ping();
    if (start) {
      start = false;
      send({ type: "play" });
    }
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    $("#conn").className = "conn off";
    if (view.socket !== socket) return;
    setTimeout(() => view.socket === socket && connect(false), view.retryMs);
    view.retryMs = Math.min(view.retryMs * 2, 5000);
  };
}

function ping() {
  for (let i = 0; i < 5; i++) setTimeout(() => send({ type: "ping", t: Date.now() }), i * 150);
}

function receive(message) {
  if (message.type === "pong") {
    const now = Date.now();
    const rtt = now - message.t;
    if (rtt <= view.bestRttMs + 5) {
      view.bestRttMs = Math.min(rtt, view.bestRttMs);
      view.offsetMs = message.server_ms - (message.t + rtt / 2);
    }
  } else if (message.type === "state") {
    view.playback = message.playback;
    if ("holder" in message.playback) view.holder = message.playback.holder;
    if (view.sound && view.holder && view.holder !== clientId) {
      setSound(false);
      toast("The sound moved to another device");
    }
    follow();
  } else if (message.type === "error") {
    toast(message.error, true);
  }
}

// The sound device makes its audio follow the mission's state.
function follow() {
  const audio = $("#audio");
  const pb = view.playback;
  $("#status").textContent = pb.status;
  $("#status").className = `pill ${pb.status}`;
  $("#toggle").textContent = pb.status === "playing" ? "Pause" : pb.status === "ended" ? "Over" : "Play";
  $("#toggle").disabled = pb.status === "ended";
  $("#game").classList.toggle("over", pb.status === "ended"); // the controls stop following the screen's foot
  keepAwake(pb.status === "playing");
  if (!view.sound) return;
  const commanded = pb.changes !== view.changes; // a command (not a position report) moved the clock
  view.changes = pb.changes;
  if (pb.status === "playing") {
    const target = (pb.position_ms + (serverNow() - pb.at_ms)) / 1000;
    if ((audio.paused || commanded) && Math.abs(audio.currentTime - target) > 0.3) audio.currentTime = Math.max(0, target);
    if (audio.paused) {
      audio.play().then(() => ($("#resume").hidden = true)).catch(() => ($("#resume").hidden = false));
    }
  } else {
    if (!audio.paused) audio.pause();
    if (Math.abs(audio.currentTime * 1000 - pb.position_ms) > 50) audio.currentTime = pb.position_ms / 1000;
  }
}

function report() {
  const audio = $("#audio");
  view.lastReport = performance.now();
  send({ type: "report", at_ms: audio.currentTime * 1000, playing: !audio.paused });
}

function togglePlay() {
  const pb = view.playback;
  if (pb.status === "ended") return;
  if (pb.status === "playing") {
    const at = view.sound ? $("#audio").currentTime * 1000 : undefined;
    if (view.sound) $("#audio").pause();
    send({ type: "pause", at_ms: at });
  } else {
    if (view.sound) $("#audio").play().catch(() => ($("#resume").hidden = false));
    send({ type: "play" });
  }
}

// The screen stays awake while the mission plays: by the Wake Lock API where the page may use it
// (https, or this machine), else (a phone over --lan, plain http) by a muted video playing behind
// the page. Call it inside a tap first: some phones start a video only there.
async function keepAwake(on) {
  if (!("wakeLock" in navigator)) return awakeVideo(on);
  try {
    if (on && !view.wakeLock && document.visibilityState === "visible") {
      view.wakeLock = await navigator.wakeLock.request("screen");
      view.wakeLock.addEventListener("release", () => (view.wakeLock = null));
    } else if (!on && view.wakeLock) {
      await view.wakeLock.release();
      view.wakeLock = null;
    }
  } catch (error) {
    view.wakeLock = null; // not allowed here (battery saver): the screen may sleep
  }
}

function awakeVideo(on) {
  const video = $("#awake");
  if (on && video.paused) video.play().catch(() => {});
  else if (!on && !video.paused) video.pause();
}

// ---- drawing --------------------------------------------------------------------------------
function phaseAt(ms) {
  const ends = view.game.timeline.phase_ends_ms;
  for (let i = 0; i < ends.length; i++) if (ms < ends[i]) return { phase: i + 1, leftMs: ends[i] - ms };
  return { phase: ends.length, leftMs: 0, over: true };
}

function wordsOf(cue, ms) {
  // the words spoken by `ms`: each phrase's words appear across its length, by characters
  const out = [];
  for (const part of cue.speech) {
    if (ms < part.at_ms) break;
    const words = part.text.split(/\s+/);
    const total = part.text.length || 1;
    let chars = 0;
    for (const word of words) {
      if (ms < part.at_ms + (part.duration_ms * chars) / total) break;
      out.push(word);
      chars += word.length + 1;
    }
  }
  return out;
}

function captionFor(cue, ms) {
  const p = document.createElement("span");
  p.className = `cue ${cue.kind}`;
  const words = wordsOf(cue, ms);
  p.textContent = words.join(" ");
  p.dataset.words = words.length;
  if (cue.pile && words.length) {
    const pile = document.createElement("b");
    pile.className = `pile pile-${cue.pile.color}`;
    pile.textContent = cue.pile.name;
    p.append(" ", pile);
  }
  return p;
}

function frame() {
  if ($("#game").hidden || !view.game) return;
  const ms = missionMs();
  const { phase, leftMs, over } = phaseAt(ms);
  const words = view.game.words;
  $("#phase").textContent = over ? words.mission_end : `${words.phase} ${phase}`;
  $("#left").textContent = clockText(Math.ceil(leftMs / 1000) * 1000);
  $("#elapsed").textContent = `${clockText(ms)} / ${clockText(view.game.timeline.phase_ends_ms.at(-1))}`;
  $("#end").disabled = !(ms >= (view.game.timeline.phase_ends_ms.at(-2) ?? Infinity)) || view.playback.status === "ended";
  const first = view.cues[0] && view.cues[0].speech[0];
  if (window.timekeeper.alertAt === null && first && ms >= first.at_ms + 20) {
    window.timekeeper.alertAt = performance.now(); // Play pressed -> the first words are being played
  }
  drawCaptions(ms);
  drawBanner(ms);
  drawPrompt(ms);
  if (view.sound && !$("#audio").paused && performance.now() - view.lastReport > REPORT_EVERY_MS) report();
  if (view.playback.status === "ended" && $("#after").hidden) showCard();
  requestAnimationFrame(frame);
}

function drawCaptions(ms) {
  // only what has been announced: cues whose start has passed
  while (view.shown < view.cues.length && view.cues[view.shown].at_ms <= ms) {
    const cue = view.cues[view.shown];
    window.timekeeper.captionLags.push({ at_ms: cue.at_ms, lag_ms: ms - cue.at_ms });
    if (cue.alert && navigator.vibrate && ms - cue.at_ms < 2000) navigator.vibrate([200, 100, 200]);
    const previous = $("#caption").firstChild;
    if (previous) {
      const item = document.createElement("li");
      item.innerHTML = `<time></time> <span></span>`;
      item.firstChild.textContent = clockText(view.cues[view.shown - 1].at_ms);
      const done = view.cues[view.shown - 1];
      item.lastChild.textContent = done.text + (done.pile ? ` [${done.pile.name}]` : "");
      $("#history").prepend(item);
    }
    $("#caption").replaceChildren(captionFor(cue, ms));
    view.shown++;
  }
  if (view.shown < view.cues.length && view.shown > 0 && ms < view.cues[view.shown - 1].at_ms) {
    // the clock went back (a seek, a resync): draw the captions again from the start
    view.shown = 0;
    $("#history").replaceChildren();
    $("#caption").replaceChildren();
    return;
  }
  const current = view.cues[view.shown - 1];
  if (!current) return;
  const shown = $("#caption").firstChild;
  const count = wordsOf(current, ms).length;
  if (shown && Number(shown.dataset.words) !== count) $("#caption").replaceChildren(captionFor(current, ms));
  $("#caption").classList.toggle("fresh", ms < current.end_ms + CAPTION_HOLD_MS);
  const sound = current.sounds.find((s) => s.at_ms <= ms && ms < s.at_ms + s.duration_ms);
  $("#sfx").hidden = !sound;
  if (sound) $("#sfx").textContent = sound.name ? `${soundIcon(sound)} ${sound.name.toUpperCase()}` : "";
}

function soundIcon(sound) {
  // a sound the server names in the game's words (klaxon, transfer beep)
  return sound.key === "beep" ? "◉" : "⚠";
}

function escaped(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function drawBanner(ms) {
  const down = view.cues.find((c) => c.kind === "comms_down" && c.at_ms <= ms && ms < c.until_ms);
  $("#banner").hidden = !down;
  if (down) $("#banner").textContent = view.game.words.comms_down.toUpperCase();
}

function drawPrompt(ms) {
  const box = $("#prompt");
  box.hidden = !view.prompter;
  if (!view.prompter) return;
  const next = view.cues.find((c) => c.at_ms > ms);
  const beeps = view.cues.flatMap((c) => c.sounds.filter((s) => s.name && s.at_ms > ms && c.at_ms <= ms));
  const lines = [];
  for (const sound of beeps) lines.push(`<p class="mark">${soundIcon(sound)} ${escaped(sound.name)} in ${((sound.at_ms - ms) / 1000).toFixed(1)} s</p>`);
  if (next && next.at_ms - ms <= PROMPT_AHEAD_MS) {
    const marks = next.sounds.filter((s) => s.name).map((s) =>
      `${soundIcon(s)} ${escaped(s.name)} at ${clockText(s.at_ms)}`).join(", ");
    lines.push(`<p class="next"><b>in ${((next.at_ms - ms) / 1000).toFixed(1)} s</b> (${clockText(next.at_ms)})${marks ? ` · ${marks}` : ""}</p>`);
    lines.push(`<p class="say"></p>`);
  } else if (next) {
    lines.push(`<p class="next">Next announcement at ${clockText(next.at_ms)}</p>`);
  }
  const html = lines.join("");
  if (box.dataset.html !== html) {
    box.innerHTML = html;
    box.dataset.html = html;
    const say = box.querySelector(".say");
    if (say) say.textContent = next.text;
  }
}

async function showCard() {
  $("#after").hidden = false;
  $("#sfx").hidden = true;
  keepAwake(false);
  try {
    const body = await api(`/api/games/${view.game.id}/card.html`);
    $("#card").innerHTML = body;
  } catch (error) {
    $("#card").textContent = error.message;
  }
  buildLogForm();
}

// ---- the ship's log -------------------------------------------------------------------------
async function buildLogForm() {
  const box = $("#log-fields");
  if (box.dataset.game === view.game.id) return;
  box.dataset.game = view.game.id;
  box.replaceChildren();
  $("#log-result").textContent = "";
  let form;
  try {
    form = await api(`/api/games/${view.game.id}/log`);
  } catch (error) {
    $("#log-result").textContent = error.message;
    return;
  }
  for (const field of form.fields) {
    const label = document.createElement("label");
    label.className = `field${field.kind === "crew" || field.kind === "text" ? " wide" : ""}`;
    label.dataset.name = field.name;
    label.append(field.label);
    let input;
    if (field.choices.length) {
      input = document.createElement("select");
      for (const choice of field.choices) input.append(option(choice, choice));
    } else {
      input = document.createElement("input");
      if (field.kind === "count") Object.assign(input, { type: "number", min: 0, inputMode: "numeric" });
      if (field.kind === "date") input.type = "date";
      if (field.high != null) input.max = field.high;
      input.placeholder = field.hint;
    }
    input.name = field.name;
    input.value = form.values[field.name] ?? field.default;
    if (field.campaign_fixed && form.values.campaign) input.disabled = true; // the campaign decides these
    const why = document.createElement("span");
    why.className = "why";
    label.append(input, why);
    box.append(label);
  }
  $("#logform").dataset.campaign = form.values.campaign || "";
}

async function recordMission(event) {
  event.preventDefault();
  const form = event.target;
  const values = Object.fromEntries([...form.querySelectorAll("[name]")].map((input) => [input.name, input.value]));
  if (form.dataset.campaign) values.campaign = form.dataset.campaign;
  for (const label of form.querySelectorAll(".field")) {
    label.classList.remove("bad");
    label.querySelector(".why").textContent = "";
  }
  try {
    const entry = await postJson(`/api/games/${view.game.id}/log`, values);
    const score = entry.score == null ? (entry.won ? "scored with its campaign" : "the ship was lost") : `score ${entry.score}`;
    $("#log-result").innerHTML = `Recorded as mission ${entry.id}: ${score}. <a href="/log">Open the ship's log</a>`;
    form.querySelector("button").disabled = true;
  } catch (error) {
    $("#log-result").textContent = error.message;
    for (const [name, why] of Object.entries((error.body && error.body.fields) || {})) {
      const label = form.querySelector(`.field[data-name="${name}"]`) || form.querySelector(`.field[data-name^="${name}"]`);
      if (label) {
        label.classList.add("bad");
        label.querySelector(".why").textContent = why;
      }
    }
  }
}

async function showLog() {
  $("#setup").hidden = true;
  $("#game").hidden = true;
  $("#logview").hidden = false;
  document.title = "Ship's log · timekeeper";
  const log = await api("/api/log");
  const table = $("#log-table");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const column of log.columns) head.append(Object.assign(document.createElement("th"), { textContent: column }));
  const body = table.createTBody();
  for (const line of log.lines) {
    const row = body.insertRow();
    if (line.campaign) {
      row.className = "campaign";
      Object.assign(row.insertCell(), { colSpan: log.columns.length, textContent: line.campaign });
    } else {
      row.className = line.bracket;
      for (const cell of line.cells) row.insertCell().textContent = cell;
    }
  }
  if (!log.lines.length) Object.assign(body.insertRow().insertCell(), { colSpan: log.columns.length, textContent: "No missions recorded yet." });
  $("#log-stats").textContent = log.stats;
}

async function download(format) {
  const bar = $("#render-progress");
  bar.hidden = false;
  bar.value = 0;
  try {
    let job = await postJson(`/api/games/${view.game.id}/renders`, { format });
    while (!job.finished) {
      bar.max = job.total;
      bar.value = job.done;
      // the server renders one soundtrack at a time: say how many are ahead of this one
      $("#render-queue").hidden = !job.position;
      $("#render-queue").textContent = job.position ? `waiting: ${job.position} ahead` : "";
      await new Promise((resolve) => setTimeout(resolve, 300));
      job = await api(`/api/renders/${job.id}`);
    }
    if (job.error) throw new Error(job.error);
    bar.value = bar.max;
    location.href = `/api/games/${view.game.id}/soundtrack.${format}`;
  } catch (error) {
    toast(error.message, true);
  } finally {
    $("#render-queue").hidden = true;
    setTimeout(() => (bar.hidden = true), 1500);
  }
}

function wireGame() {
  const audio = $("#audio");
  audio.addEventListener("playing", report);
  audio.addEventListener("pause", () => view.sound && report());
  audio.addEventListener("ended", () => send({ type: "end" }));
  $("#toggle").addEventListener("click", togglePlay);
  $("#logform").addEventListener("submit", recordMission);
  $("#end").addEventListener("click", () => send({ type: "end" }));
  $("#resume").addEventListener("click", () => {
    $("#resume").hidden = true;
    follow();
  });
  $("#join-tap").addEventListener("click", () => {
    $("#join-tap").hidden = true;
    keepAwake(view.playback.status === "playing");
  });
  $("#prompter").addEventListener("change", (e) => (view.prompter = e.target.checked));
  $("#sound-here").addEventListener("change", (e) => setSound(e.target.checked));
  for (const button of document.querySelectorAll("[data-render]")) {
    button.addEventListener("click", () => download(button.dataset.render));
  }
  $("#show-code").addEventListener("click", async () => {
    const box = $("#code-text");
    try {
      box.textContent = await api(`/api/games/${view.game.id}/track.txt`);
    } catch (error) {
      box.textContent = error.message;
    }
    box.hidden = false;
  });
  document.addEventListener("keydown", (event) => {
    if ($("#game").hidden || event.code !== "Space" || event.target.closest("input, textarea, select, button")) return;
    event.preventDefault();
    togglePlay();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || !view.game) return;
    // back from sleep: reconnect, take the state again, and put the sound back at the right moment
    if (!view.socket || view.socket.readyState > WebSocket.OPEN) connect(false);
    else ping();
    follow();
  });
}

// ---- start ----------------------------------------------------------------------------------
async function route() {
  if (location.pathname === "/log") return showLog();
  const match = location.pathname.match(/^\/g\/([0-9a-f]{12})$/);
  if (!match) return showSetup();
  try {
    const game = await api(`/api/games/${match[1]}`);
    openGame(game, { sound: false, prompter: new URLSearchParams(location.search).has("prompter") });
    $("#join-tap").hidden = false; // phones let a page vibrate, and start a video, only after a tap
  } catch (error) {
    toast(error.message, true);
    history.replaceState({}, "", "/");
    showSetup();
  }
}

wireSetup();
wireGame();
window.addEventListener("popstate", () => location.reload());
route();
