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

// ---- words: every text the page shows comes from the catalogue of the UI language ------------
const UI_LANGUAGES = ["en", "de", "es", "fr", "it", "pl", "cs"];
const words = { language: "", messages: {} };

function t(key, values = {}) {
  const text = words.messages[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

function uiLanguage(wanted) {
  if (UI_LANGUAGES.includes(wanted)) return wanted;
  for (const tag of navigator.languages || []) {
    const base = tag.toLowerCase().split("-")[0];
    if (UI_LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function useLanguage(language) {
  language = uiLanguage(language);
  if (words.language !== language) {
    const rename = info && info.ui_language !== language; // voices by name in the page's language ("Englisch (Karibik)")
    const [body, named] = await Promise.all([api(`/api/messages/${language}`), rename && api(`/api/info?lang=${language}`)]);
    words.messages = body.messages;
    words.language = language;
    if (named) {
      renameVoices(named.voices);
      relabelChoices(named.generate.options);
      info.ui_language = language;
    }
  }
  document.documentElement.lang = language;
  translatePage();
}

function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(",")) {
      const [attribute, key] = pair.split(":");
      element.setAttribute(attribute, t(key));
    }
  }
  translateGenerateForm();
  drawExpiry();
  wordVoiceOffer();
  if (view.game) follow();
}

// Hosted mode: a game nobody uses is forgotten after the server's idle time; its link says so.
function drawExpiry() {
  const idle = info && info.public ? info.room_idle_s : 0;
  const time = idle % 3600 === 0 ? `${idle / 3600} h` : idle % 60 === 0 ? `${idle / 60} min` : `${idle} s`;
  for (const element of document.querySelectorAll(".expiry")) {
    element.hidden = !idle;
    element.textContent = idle ? t("page.join.expiry", { time }) : "";
  }
}

function errorText(error) {
  // a server error with a stable code is said in the page's language; else the server's message
  const code = error.body && error.body.code;
  return code && words.messages[`error.${code}`] ? t(`error.${code}`) : error.message;
}

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
const GROUPS = ["added", "folder", "test-run", "simulation", "advanced-simulation", "mission", "double-action",
  "example", "custom"]; // the order of the track list's groups; each is named page.group.<name>
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
  await useLanguage($("#language").value);
  await fillTracks();
  const wanted = new URLSearchParams(location.search).get("join");
  if (wanted) joinByCode(wanted);
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
      groups[track.group].label = t(`page.group.${track.group}`);
    }
    const label = track.seed != null ? t("page.setup.track_seeded", { title: track.title, length: track.length, seed: track.seed })
      : t("page.setup.track_entry", { title: track.title, length: track.length });
    const element = option(track.id, track.problem ? `✗ ${track.problem}` : label);
    element.dataset.origin = track.origin || "";
    element.disabled = Boolean(track.problem); // listed with its first problem, not playable
    element.title = track.problem;
    groups[track.group].append(element);
  }
  for (const group of [...new Set([...GROUPS, ...Object.keys(groups)])]) if (groups[group]) list.append(groups[group]);
  list.value = keep;
  if (!list.value || list.selectedOptions[0].disabled) list.selectedIndex = [...list.options].findIndex((o) => !o.disabled);
  trackChanged();
}

function trackChanged() {
  const chosen = $("#track").selectedOptions[0];
  $("#track-info").textContent = chosen && chosen.dataset.origin ? chosen.dataset.origin : "";
  if (chosen) localStorage.setItem("tk-track", chosen.value);
  setupChanged();
}

function fillSettings() {
  const language = $("#language");
  if (language.options.length) return;
  for (const { code, name } of info.languages) language.append(option(code, name));
  const remembered = localStorage.getItem("tk-language");
  language.value = remembered || uiLanguage("");
  if (!language.value) language.value = "en";
  $("#pace").value = localStorage.getItem("tk-pace") || "1";
  $("#pace-field").hidden = !info.pace; // offered once the server's mix settings have a training pace
  fillVoices();
  const music = $("#music");
  for (const name of info.music) music.append(option(name, name));
  $("#music-field").hidden = info.music.length === 0;
  buildGenerateForm();
}

// The generate form is built from the generator's own option table (as `generate --help` shows it);
// its words are the catalogue's generate.* entries, the ones the server's messages use too.
function buildGenerateForm() {
  const form = $("#gen");
  const fields = $("#gen-fields");
  const first = fields.firstChild;
  for (const spec of info.generate.options) {
    const label = document.createElement("label");
    label.className = "field";
    label.dataset.spec = spec.key;
    const name = document.createElement("span");
    name.dataset.unit = spec.unit;
    label.append(name);
    let input;
    if (spec.type === "choice") {
      input = document.createElement("select");
      spec.choices.forEach((choice, index) => input.append(option(choice, spec.choice_labels[index])));
      input.value = spec.default;
    } else {
      input = document.createElement("input");
      input.dataset.example = spec.example || "";
    }
    input.name = spec.key;
    input.dataset.spec = "1";
    label.append(input);
    fields.insertBefore(label, first);
  }
  form.count.max = info.generate.max_count;
  form.seed.max = info.generate.max_seed;
}

function translateGenerateForm() {
  for (const label of document.querySelectorAll("#gen label[data-spec]")) {
    const key = label.dataset.spec;
    const name = label.querySelector("span");
    const text = t(`generate.label.${key}`);
    name.textContent = name.dataset.unit ? t(`generate.unit.${name.dataset.unit}`, { label: text }) : text;
    label.title = t(`generate.help.${key}`);
  }
  for (const choice of document.querySelectorAll("#gen select[name=kind] option")) choice.textContent = t(`generate.kind.${choice.value}`);
  for (const input of document.querySelectorAll("#gen input[data-spec]")) {
    input.placeholder = input.dataset.example ? t("generate.official_example", { example: input.dataset.example }) : t("page.gen.official");
  }
}

// The generate form's choices the server words ("5 Spieler"), in the page's new language.
function relabelChoices(specs) {
  for (const spec of specs) {
    if (!spec.choice_labels) continue;
    const select = document.querySelector(`#gen select[name="${spec.key}"]`);
    if (select) spec.choices.forEach((choice, index) => { if (select.options[index]) select.options[index].textContent = spec.choice_labels[index]; });
  }
  if (info) info.generate.options = specs;
}

function renameVoices(voices) {
  const names = new Map(voices.map((v) => [v.id, v.name]));
  for (const v of info.voices) if (names.has(v.id)) v.name = names.get(v.id);
  for (const choice of $("#voice").options) if (names.has(choice.value)) choice.textContent = names.get(choice.value);
}

function fillVoices() {
  const language = $("#language").value;
  const voice = $("#voice");
  voice.replaceChildren();
  for (const v of info.voices) if (!v.language || v.language === language) voice.append(option(v.id, v.name));
  const offer = (info.install || []).find((o) => o.language === language && !o.installed);
  $("#voice-offer").hidden = !offer;
  wordVoiceOffer();
}

function wordVoiceOffer() {
  const offer = info && (info.install || []).find((o) => o.language === $("#language").value && !o.installed);
  if (offer) $("#install-voice").textContent = t("page.setup.install_voice", { name: offer.name, size: offer.size_mb, licence: offer.licence || t("page.setup.licence_on_card") });
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
    toast(t("page.setup.voice_installed", { voice: job.voice }));
  } catch (error) {
    toast(errorText(error), true);
  } finally {
    $("#install-voice").disabled = false;
    bar.hidden = true;
  }
}

function settings() {
  const crew = document.querySelector("input[name=crew]:checked").value;
  const chosen = {
    language: $("#language").value,
    voice: $("#voice").value,
    players: crew === "solo" ? 1 : Number(crew),
    solo: crew === "solo",
    background: $("#background").checked,
    music: $("#music").value,
    computer_voice: $("#computer").checked,
  };
  if ($("#pace").value !== "1" && info.pace) chosen.pace = Number($("#pace").value);
  return chosen;
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
  showList(problems.length ? t("page.problems.file") : errorText(error),
    problems.map((p) => (p.line ? t("page.problems.line", { line: p.line, column: p.column, message: p.message }) : p.message)));
}

async function added(request, what) {
  $("#problems").hidden = true;
  try {
    const body = await request;
    const made = body.tracks || [body.track];
    await fillTracks(made[0].id);
    const names = made.map((m) => (m.seed != null ? t("page.added.seeded", { title: m.title, seed: m.seed }) : m.title)).join(", ");
    const relaxed = body.relaxed && body.relaxed.length ? t("page.added.relaxed", { what: body.relaxed.join("; ") }) : "";
    toast(`${t(what, { names })}${relaxed}`);
    if (body.warnings && body.warnings.length) showList(t("page.problems.overlaps"), body.warnings, true);
    return made;
  } catch (error) {
    showProblems(error);
    return null;
  }
}

function generatorChoice(form) {
  const data = Object.fromEntries([...form.querySelectorAll("[data-spec]")].map((input) => [input.name, input.value]));
  return Object.assign(data, { seed: form.seed.value, count: form.count.value, campaign: form.campaign.checked });
}

// ---- the lobby: the game exists while the crew sets up, so phones join and the mix is prepared
const lobby = { id: sessionStorage.getItem("tk-lobby"), sending: null, again: false, sent: null };

function setupChanged() {
  clearTimeout(setupChanged.timer);
  setupChanged.timer = setTimeout(sendSetup, 150);
}

async function sendSetup() {
  if (!$("#track").value || !info) return;
  if (lobby.sending) {
    lobby.again = true; // sent once the answer to the last change is in
    return;
  }
  const body = { track: $("#track").value, settings: settings(), mode: $("#quiet").checked ? "quiet" : "sound" };
  if (lobby.id && JSON.stringify(body) === lobby.sent) return;
  lobby.sent = JSON.stringify(body);
  lobby.sending = (async () => {
    try {
      let made = null;
      if (lobby.id) made = await postJson(`/api/games/${lobby.id}/setup`, body).catch(() => null);
      if (!made) {
        const after = sessionStorage.getItem("tk-after"); // the game just played: its screens come along
        made = await postJson("/api/lobby", after ? { ...body, after } : body);
        sessionStorage.removeItem("tk-after");
      }
      lobby.id = made.id;
      sessionStorage.setItem("tk-lobby", made.id);
      showLobby(made);
    } catch (error) {
      lobby.sent = null;
      toast(errorText(error), true);
    }
  })();
  await lobby.sending;
  lobby.sending = null;
  if (lobby.again) {
    lobby.again = false;
    await sendSetup();
  }
}

async function showLobby(made) {
  $("#lobby").hidden = false;
  $("#lobby-code").textContent = made.code;
  $("#lobby-link").href = made.join_url;
  $("#lobby-link").textContent = made.join_url;
  const lan = await serverInfo().then((i) => i.lan, () => false);
  drawExpiry();
  $("#lobby-qr").hidden = !lan;
  $("#lobby-local").hidden = lan;
  if (lan) $("#lobby-qr").src = `/api/games/${made.id}/qr.svg`;
  if (view.lobbyId !== made.id) {
    view.lobbyId = made.id;
    connect(made.id, false);
  }
}

function showPresence(screens) {
  const names = screens.map((s) => {
    const name = t(`page.presence.${s.kind}`, { n: s.number });
    const mine = s.me ? t("page.presence.me", { name }) : name;
    return s.sound ? t("page.presence.sound", { name: mine }) : mine;
  });
  for (const element of document.querySelectorAll(".presence")) element.textContent = names.join(" · ");
  view.screens = screens;
}

async function joinByCode(code) {
  try {
    const { id } = await api(`/api/join/${encodeURIComponent(code.trim())}`);
    location.href = `/g/${id}`;
  } catch (error) {
    toast(errorText(error), true);
  }
}

function wireSetup() {
  $("#track").addEventListener("change", trackChanged);
  $("#language").addEventListener("change", async () => {
    localStorage.setItem("tk-language", $("#language").value);
    fillVoices();
    await useLanguage($("#language").value);
    setupChanged();
  });
  $("#install-voice").addEventListener("click", installVoice);
  for (const id of ["#voice", "#music", "#background", "#computer", "#quiet"]) $(id).addEventListener("change", setupChanged);
  $("#pace").addEventListener("change", () => {
    localStorage.setItem("tk-pace", $("#pace").value);
    setupChanged();
  });
  for (const radio of document.querySelectorAll("input[name=crew]")) radio.addEventListener("change", setupChanged);
  wireTabs();
  $("#gen").addEventListener("submit", (event) => {
    event.preventDefault();
    const data = generatorChoice(event.target);
    localStorage.setItem("tk-generate", JSON.stringify({ ...data, seed: "" })); // "new random mission" reuses them
    // the voice's overlaps come back as warnings
    added(postJson(`/api/tracks/generate?lang=${words.language}`, { ...data, language: $("#language").value, voice: $("#voice").value }), "page.added.generated");
  });
  $("#code").addEventListener("submit", (event) => {
    event.preventDefault();
    added(postJson("/api/tracks/flashcode", { code: event.target.code.value, title: event.target.title.value }), "page.added.imported");
  });
  $("#file").addEventListener("submit", (event) => {
    event.preventDefault();
    const file = event.target.file.files[0];
    if (!file) return toast(t("page.file.choose"), true);
    const name = encodeURIComponent(file.name);
    added(api(`/api/tracks/upload?name=${name}`, { method: "POST", body: file }), "page.added.uploaded");
  });
  $("#join-code").addEventListener("submit", (event) => {
    event.preventDefault();
    joinByCode(event.target.code.value);
  });
  $("#play-here").addEventListener("click", () => startGame(!$("#quiet").checked));
  $("#prompter-start").addEventListener("click", () => startGame(false, true));
}

// The ways to add a track are a tab list (ARIA tabs): a click opens a tab's form, or closes it
// again; the arrow keys, Home and End move between the tabs and open the one they reach.
function wireTabs() {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  const choose = (tab, toggle) => {
    for (const other of tabs) {
      const open = other === tab && (!toggle || $(`#${other.dataset.tab}`).hidden);
      other.classList.toggle("active", open);
      other.setAttribute("aria-selected", String(open));
      other.tabIndex = other === tab ? 0 : -1;
      $(`#${other.dataset.tab}`).hidden = !open;
    }
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => choose(tab, true));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      const to = event.key === "Home" ? 0 : event.key === "End" ? tabs.length - 1 : step ? (index + step + tabs.length) % tabs.length : null;
      if (to === null) return;
      event.preventDefault();
      tabs[to].focus();
      choose(tabs[to], false);
    });
  });
}

async function startGame(withSound, prompter = false) {
  window.timekeeper.pressedAt = performance.now();
  window.timekeeper.alertAt = null;
  window.timekeeper.soundAt = null;
  const audio = $("#audio");
  if (withSound) {
    audio.src = SILENCE; // unlock playback inside the tap (phones allow play() only there)
    audio.play().catch(() => {});
  }
  keepAwake(true);
  const button = prompter ? $("#prompter-start") : $("#play-here");
  button.disabled = true;
  button.classList.add("busy");
  const said = button.textContent;
  const slow = setTimeout(() => (button.textContent = t("page.setup.preparing")), 400); // the voice is still being made
  try {
    clearTimeout(setupChanged.timer);
    await sendSetup(); // the choice as shown now (sent only when it differs from the lobby's)
    while (lobby.sending) await lobby.sending;
    const game = await api(`/api/games/${lobby.id}`);
    sessionStorage.removeItem("tk-lobby"); // the next set-up makes a new game
    lobby.id = null;
    lobby.sent = null;
    enterGame(game, { sound: withSound, prompter, start: true });
  } catch (error) {
    keepAwake(false);
    toast(errorText(error), true);
  } finally {
    clearTimeout(slow);
    button.textContent = said;
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
  socketGame: null, // the game the socket is joined to (the lobby's before Play)
  lobbyId: null,
  retryMs: 500,
  wakeLock: null,
  lastReport: 0,
  changes: -1, // the last command the sound followed
  frameId: null, // the next animation frame, only while the clock runs
  flashUntil: 0,
  screens: [],
};
window.timekeeper = { captionLags: [], view, clockMs: () => missionMs(), pressedAt: null, alertAt: undefined, soundAt: undefined,
  frames: 0 };

const inMission = () => Boolean(view.game) && !$("#game").hidden && ["playing", "paused"].includes(view.playback.status);

function serverNow() {
  return Date.now() + view.offsetMs;
}

// The mission's sound: an mp3 made once per mix, at the game's `sound.url` (a game kept by an older
// server has none: its WAV then).
const soundUrl = () => (view.game.sound ? view.game.sound.url : `/api/games/${view.game.id}/sound.wav`);
const playsMission = (audio) => Boolean(view.game) && audio.src.endsWith(soundUrl());

function missionMs() {
  const audio = $("#audio");
  const pb = view.playback;
  const duration = view.game ? view.game.timeline.duration_ms : 0;
  if (view.sound && playsMission(audio) && audio.readyState > 0 && $("#resume").hidden) {
    return Math.min(audio.currentTime * 1000, duration);
  }
  const ms = pb.status === "playing" ? pb.position_ms + (serverNow() - pb.at_ms) : pb.position_ms;
  return Math.min(Math.max(0, ms), duration);
}

// Entering a game from the set-up screen: the address becomes the game's, with one more entry in
// the history so that Back (Android's gesture) stays on the mission screen.
function enterGame(game, options) {
  history.replaceState({ screen: "setup" }, "", "/");
  history.pushState({ screen: "game", game: game.id }, "", `/g/${game.id}`);
  history.pushState({ screen: "game", game: game.id, guard: true }, "", `/g/${game.id}`);
  openGame(game, options);
}

function openGame(game, { sound = false, prompter = false, start = false } = {}) {
  view.game = game;
  view.cues = game.timeline.cues;
  view.playback = game.playback;
  view.holder = game.playback.holder;
  view.shown = 0;
  view.prompter = prompter;
  $("#setup").hidden = true;
  $("#game").hidden = false;
  document.body.classList.add("in-game");
  window.scrollTo(0, 0);
  $("#scroller").scrollTo(0, 0);
  $("#after").hidden = true;
  $("#game-title").textContent = game.title;
  document.title = `${game.title} · timekeeper`;
  $("#history").replaceChildren();
  $("#caption").replaceChildren();
  $("#prompter").checked = prompter;
  $("#join").href = game.join_url;
  $("#join").textContent = game.join_url;
  $("#game-code").textContent = game.code;
  showJoin(game);
  $("#dl-pdf").href = `/api/games/${game.id}/card.pdf`;
  $("#dl-yaml").href = `/api/games/${game.id}/track.yaml`;
  setSound(sound && game.mode !== "quiet");
  if (view.socketGame === game.id && view.socket && view.socket.readyState === WebSocket.OPEN) {
    if (view.sound) send({ type: "claim" });
    if (start) send({ type: "play" });
    ping();
  } else {
    connect(game.id, start);
  }
  follow();
  if (game.playback.status === "ended") showCard(); // a screen that joins after the end: the card and log form
}

// Phones reach the server only in LAN mode; without it the link serves this machine's other windows.
async function showJoin(game) {
  const lan = await serverInfo().then((i) => i.lan, () => false);
  drawExpiry();
  $("#qr").hidden = !lan;
  $("#join-local").hidden = lan;
  if (lan) $("#qr").src = `/api/games/${game.id}/qr.svg`;
}

function setSound(on) {
  view.sound = on;
  $("#sound-here").checked = on;
  const audio = $("#audio");
  if (on) {
    sessionStorage.setItem("tk-sound", view.game.id); // a reload offers to resume the sound here
    if (!playsMission(audio)) {
      audio.src = soundUrl();
      audio.currentTime = missionMs() / 1000;
    }
    send({ type: "claim" });
    follow();
  } else {
    if (sessionStorage.getItem("tk-sound") === (view.game && view.game.id)) sessionStorage.removeItem("tk-sound");
    if (view.holder === clientId) send({ type: "release" }); // the list shows that no device plays it here
    audio.pause();
  }
}

function send(message) {
  if (view.socket && view.socket.readyState === WebSocket.OPEN) view.socket.send(JSON.stringify(message));
  else if (view.sound && view.game && ["play", "pause"].includes(message.type)) playOffline(message);
}

// Without the server (the network is gone) the device that plays the sound goes on alone: its
// audio is the clock. Play and pause act here, and the server is told once the socket is back.
function playOffline(message) {
  const audio = $("#audio");
  const at = audio.currentTime * 1000;
  view.playback = { ...view.playback, status: message.type === "pause" ? "paused" : "playing", position_ms: at,
    at_ms: serverNow() };
  view.offline = { type: message.type, game: view.game.id };
  follow();
}

function sendOffline(socket) {
  const missed = view.offline;
  view.offline = null;
  if (!missed || !view.game || missed.game !== view.game.id) return false;
  const at = $("#audio").currentTime * 1000;
  if (missed.type === "pause") socket.send(JSON.stringify({ type: "pause", at_ms: at }));
  else for (const command of [{ type: "seek", at_ms: at }, { type: "play" }]) socket.send(JSON.stringify(command));
  return true;
}

function connect(gameId, start) {
  if (view.socket && view.socketGame !== gameId) {
    const old = view.socket;
    view.socket = null;
    old.close();
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/ws`);
  view.socket = socket;
  view.socketGame = gameId;
  socket.onopen = () => {
    view.retryMs = 500;
    $("#conn").className = "conn on";
    const kind = matchMedia("(pointer: coarse)").matches ? "phone" : "screen";
    send({ type: "hello", client: clientId, kind });
    if (view.sound || (!view.game && !$("#quiet").checked)) send({ type: "claim" }); // the set-up device plays the sound
    view.skipSnapshot = sendOffline(socket); // what was pressed offline wins over the state the server had
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
    // spread over half to one and a half times the wait: the screens of a worker that died do not
    // all knock on the surviving one in the same millisecond
    setTimeout(() => view.socket === socket && connect(gameId, false), view.retryMs * (0.5 + Math.random()));
    view.retryMs = Math.min(view.retryMs * 2, 5000);
  };
}

function ping() {
  for (let i = 0; i < 5; i++) setTimeout(() => send({ type: "ping", t: Date.now() }), i * 150);
}

async function receive(message) {
  if (message.type === "pong") {
    const now = Date.now();
    const rtt = now - message.t;
    if (rtt <= view.bestRttMs + 5) {
      view.bestRttMs = Math.min(rtt, view.bestRttMs);
      view.offsetMs = message.server_ms - (message.t + rtt / 2);
    }
  } else if (message.type === "next" && view.game && view.playback.status === "ended") {
    location.href = `/g/${message.id}`; // the crew set up the next mission: this screen joins it
  } else if (message.type === "presence") {
    showPresence(message.screens);
  } else if (message.type === "setup" && view.game && view.playback.status === "ready") {
    const game = await api(`/api/games/${view.game.id}`); // the crew changed the track or a setting
    if (game.settings.language !== view.game.settings.language) await useLanguage(game.settings.language);
    openGame(game, { sound: view.sound, prompter: view.prompter });
  } else if (message.type === "state") {
    if (!view.game) return lobbyStarted(message.playback);
    if (view.skipSnapshot && "screens" in message) return (view.skipSnapshot = false); // older than the offline press
    const was = view.playback.status;
    view.playback = message.playback;
    if ("holder" in message.playback) view.holder = message.playback.holder;
    if (view.sound && view.holder && view.holder !== clientId) {
      setSound(false);
      toast(t("page.game.sound_moved"));
    }
    if (was !== "ended" && view.playback.status === "ended") ended();
    if (was === "ended" && view.playback.status !== "ended") undone();
    follow();
  } else if (message.type === "logged") {
    showLogged(message.recorded); // this game's mission was recorded, changed or removed (log.js)
  } else if (message.type === "error") {
    toast(t("page.error.server", { message: errorText({ message: message.error, body: message }) }), true);
  }
}

// Another screen pressed Play while this one still shows the set-up: it joins the mission (the
// sound needs one tap here, as the browser allows sound only after a tap).
async function lobbyStarted(playback) {
  if (playback.status !== "playing" || !view.lobbyId) return;
  const game = await api(`/api/games/${view.lobbyId}`);
  sessionStorage.removeItem("tk-lobby");
  lobby.id = null;
  lobby.sent = null;
  enterGame(game, { sound: game.mode !== "quiet" && playback.holder === clientId });
}

// The mission's state on this screen; the sound device makes its audio follow it.
function follow() {
  if (!view.game) return;
  const audio = $("#audio");
  const pb = view.playback;
  $("#status").textContent = t(`page.status.${pb.status}`);
  $("#status").className = `pill ${pb.status}`;
  $("#toggle").textContent = t(pb.status === "playing" ? "page.game.pause" : pb.status === "ended" ? "page.game.over" : "page.game.play");
  $("#toggle").disabled = pb.status === "ended";
  $("#game").classList.toggle("over", pb.status === "ended"); // the controls stop following the screen's foot
  $("#game").classList.toggle("quiet", view.game.mode === "quiet");
  $("#game").classList.toggle("ready", pb.status === "ready");
  $("#waiting").hidden = pb.status !== "ready";
  keepAwake(pb.status === "playing");
  wake();
  if (!view.sound) return;
  const commanded = pb.changes !== view.changes; // a command (not a position report) moved the clock
  view.changes = pb.changes;
  if (pb.status === "playing") {
    const target = (pb.position_ms + (serverNow() - pb.at_ms)) / 1000;
    if ((audio.paused || commanded) && Math.abs(audio.currentTime - target) > 0.3) audio.currentTime = Math.max(0, target);
    if (audio.paused && $("#resume").hidden) {
      audio.play().catch(() => offerResume());
    }
  } else {
    if (!audio.paused) audio.pause();
    if (Math.abs(audio.currentTime * 1000 - pb.position_ms) > 50) audio.currentTime = pb.position_ms / 1000;
  }
}

// One tap that says what it does: the browser plays sound only after a tap on this page.
function offerResume() {
  $("#resume").hidden = false;
  $("#join-tap").hidden = true;
  drawResume(missionMs());
}

function drawResume(ms) {
  if ($("#resume").hidden) return;
  $("#resume button").textContent = t("page.resume.button", { time: clockText(ms) });
}

function resumeHere() {
  $("#resume").hidden = true;
  keepAwake(view.playback.status === "playing");
  const audio = $("#audio");
  if (!view.sound) setSound(true);
  audio.currentTime = missionMs() / 1000;
  if (view.playback.status === "playing") audio.play().catch(() => offerResume());
  follow();
}

function report() {
  const audio = $("#audio");
  view.lastReport = performance.now();
  // read_ms: when the position was read, on the server's clock (its travel time does not move the clock)
  send({ type: "report", at_ms: audio.currentTime * 1000, playing: !audio.paused, read_ms: serverNow() });
}

function togglePlay() {
  const pb = view.playback;
  if (pb.status === "ended") return;
  if (pb.status === "playing") {
    const at = view.sound ? $("#audio").currentTime * 1000 : undefined;
    if (view.sound) $("#audio").pause();
    send({ type: "pause", at_ms: at });
  } else {
    if (view.sound) $("#audio").play().catch(() => offerResume());
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

// ---- ending: deliberate, undone within a few seconds from any screen -------------------------
function ended() {
  const until = view.playback.undo_until_ms;
  if (until && until > serverNow()) {
    const box = $("#undo");
    box.hidden = false;
    const tick = () => {
      const left = Math.ceil((until - serverNow()) / 1000);
      if (left <= 0 || view.playback.status !== "ended") {
        box.hidden = true;
        return;
      }
      box.querySelector("span").textContent = t("page.undo.text", { seconds: left });
      ended.timer = setTimeout(tick, 250);
    };
    clearTimeout(ended.timer);
    tick();
  }
  showCard();
}

function undone() {
  $("#undo").hidden = true;
  $("#after").hidden = true;
  $("#scroller").scrollTo(0, 0);
  toast(t("page.undo.done"));
}

// ---- drawing: one frame per screen refresh while the clock runs; none while paused or ended ---
function wake() {
  if (view.frameId === null && view.game && !$("#game").hidden) view.frameId = requestAnimationFrame(frame);
}

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
    const parts = part.text.split(/\s+/);
    const total = part.text.length || 1;
    let chars = 0;
    for (const word of parts) {
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
  const spoken = wordsOf(cue, ms);
  p.textContent = spoken.join(" ");
  p.dataset.words = spoken.length;
  if (cue.pile && spoken.length) {
    const pile = document.createElement("b");
    pile.className = `pile pile-${cue.pile.color}`;
    pile.textContent = cue.pile.name;
    p.append(" ", pile);
  }
  return p;
}

function frame() {
  view.frameId = null;
  if ($("#game").hidden || !view.game) return;
  window.timekeeper.frames++;
  const ms = missionMs();
  const { phase, leftMs, over } = phaseAt(ms);
  const said = view.game.words;
  const isOver = view.playback.status === "ended";
  if (isOver) {
    $("#phase").textContent = t("page.over.phase");
    $("#left").textContent = clockText(0);
    $("#elapsed").textContent = t("page.over.at", { time: clockText(ms) });
  } else {
    $("#phase").textContent = over ? said.mission_end : `${said.phase} ${phase}`;
    $("#left").textContent = clockText(Math.ceil(leftMs / 1000) * 1000);
    $("#elapsed").textContent = `${clockText(ms)} / ${clockText(view.game.timeline.phase_ends_ms.at(-1))}`;
  }
  $("#end").disabled = !(ms >= (view.game.timeline.phase_ends_ms.at(-2) ?? Infinity)) || isOver;
  const first = view.cues[0] && view.cues[0].speech[0];
  if (window.timekeeper.alertAt === null && first && ms >= first.at_ms + 20) {
    window.timekeeper.alertAt = performance.now(); // Play pressed -> the first words are being played
  }
  drawCaptions(ms);
  drawBanner(ms);
  drawPrompt(ms);
  drawResume(ms);
  $("#flash").hidden = performance.now() > view.flashUntil;
  if (view.sound && !$("#audio").paused && performance.now() - view.lastReport > REPORT_EVERY_MS) report();
  const audible = view.sound && !$("#audio").paused;
  const flashing = !$("#flash").hidden;
  if (view.playback.status === "playing" || audible || flashing) view.frameId = requestAnimationFrame(frame);
}

function drawCaptions(ms) {
  // only what has been announced: cues whose start has passed
  while (view.shown < view.cues.length && view.cues[view.shown].at_ms <= ms) {
    const cue = view.cues[view.shown];
    window.timekeeper.captionLags.push({ at_ms: cue.at_ms, lag_ms: ms - cue.at_ms });
    const fresh = ms - cue.at_ms < 2000;
    if (cue.alert && navigator.vibrate && fresh) navigator.vibrate([200, 100, 200]);
    if (fresh && view.game.mode === "quiet") flash(cue);
    if (fresh) $("#said").textContent = cue.text; // whole announcements for screen readers, never word by word
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

// Quiet mode: each announcement fills the screen for a moment, and the phone vibrates.
const FLASH_MS = 2500;

function flash(cue) {
  $("#flash p").textContent = cue.text;
  $("#flash").className = `flash ${cue.kind}`;
  $("#flash").hidden = false;
  view.flashUntil = performance.now() + FLASH_MS;
  if (navigator.vibrate && !cue.alert) navigator.vibrate(300);
}

function soundIcon(sound) {
  // a sound the server names in the game's words (klaxon, transfer beep)
  return sound.key === "beep" ? "◉" : "⚠";
}

function escaped(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function drawBanner(ms) {
  const down = view.playback.status !== "ended" && view.cues.find((c) => c.kind === "comms_down" && c.at_ms <= ms && ms < c.until_ms);
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
  const seconds = (at) => ((at - ms) / 1000).toFixed(1);
  for (const sound of beeps) {
    lines.push(`<p class="mark">${soundIcon(sound)} ${escaped(t("page.prompt.sound_in", { name: sound.name, seconds: seconds(sound.at_ms) }))}</p>`);
  }
  if (next && next.at_ms - ms <= PROMPT_AHEAD_MS) {
    const marks = next.sounds.filter((s) => s.name).map((s) =>
      `${soundIcon(s)} ${escaped(t("page.prompt.sound_at", { name: s.name, time: clockText(s.at_ms) }))}`).join(", ");
    const when = escaped(t("page.prompt.in", { seconds: seconds(next.at_ms) }));
    lines.push(`<p class="next"><b>${when}</b> (${clockText(next.at_ms)})${marks ? ` · ${marks}` : ""}</p>`);
    lines.push(`<p class="say"></p>`);
  } else if (next) {
    lines.push(`<p class="next">${escaped(t("page.prompt.next_at", { time: clockText(next.at_ms) }))}</p>`);
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
    $("#card").textContent = errorText(error);
  }
  $("#after").scrollIntoView({ block: "start" }); // the card, not the frozen clock, is what the crew needs now
  $("#after").focus({ preventScroll: true });
  buildLogForm();
}

// ---- after the mission: the same track again, or a new random one ----------------------------
function setUpNext(trackId) {
  localStorage.setItem("tk-track", trackId);
  sessionStorage.setItem("tk-after", view.game.id);
  sessionStorage.removeItem("tk-lobby");
  location.href = "/";
}

function replay() {
  setUpNext(view.game.track_id);
}

async function newRandom() {
  const chosen = JSON.parse(localStorage.getItem("tk-generate") || "{}");
  const { language, voice } = view.game.settings;
  const offered = (await serverInfo()).voices.find((v) => v.id && voice && (v.id.endsWith(voice) || voice.endsWith(v.id.slice(5))));
  try {
    const made = await postJson(`/api/tracks/generate?lang=${words.language}`, { ...chosen, seed: "", count: 1, campaign: false, language,
      voice: offered ? offered.id : "" });
    setUpNext(made.tracks[0].id);
  } catch (error) {
    toast(errorText(error), true);
  }
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
    toast(errorText(error), true);
  } finally {
    $("#render-queue").hidden = true;
    setTimeout(() => (bar.hidden = true), 1500);
  }
}

// Space pauses and resumes anywhere but in a text field or on a button (which Space presses).
function spaceToggles(target) {
  if (target.closest("textarea, select, button, a, summary")) return false;
  const input = target.closest("input");
  return !input || input.type === "checkbox" || input.type === "radio";
}

function wireGame() {
  const audio = $("#audio");
  audio.addEventListener("playing", report);
  audio.addEventListener("playing", wake);
  audio.addEventListener("playing", () => {
    if (window.timekeeper.soundAt === null && playsMission(audio)) window.timekeeper.soundAt = performance.now();
  });
  audio.addEventListener("pause", () => view.sound && report());
  audio.addEventListener("ended", () => view.sound && playsMission(audio) && send({ type: "end" }));
  $("#toggle").addEventListener("click", togglePlay);
  $("#end").addEventListener("click", () => send({ type: "end" }));
  $("#undo button").addEventListener("click", () => send({ type: "undo" }));
  $("#print").addEventListener("click", () => window.print());
  $("#replay").addEventListener("click", replay);
  $("#new-random").addEventListener("click", newRandom);
  $("#resume").addEventListener("click", resumeHere);
  $("#join-tap").addEventListener("click", () => {
    $("#join-tap").hidden = true;
    keepAwake(view.playback.status === "playing");
  });
  $("#prompter").addEventListener("change", (e) => {
    view.prompter = e.target.checked;
    wake();
  });
  $("#sound-here").addEventListener("change", (e) => setSound(e.target.checked));
  for (const button of document.querySelectorAll("[data-render]")) {
    button.addEventListener("click", () => download(button.dataset.render));
  }
  $("#show-code").addEventListener("click", async () => {
    const box = $("#code-text");
    try {
      box.textContent = await api(`/api/games/${view.game.id}/track.txt`);
    } catch (error) {
      box.textContent = errorText(error);
    }
    box.hidden = false;
  });
  document.addEventListener("keydown", (event) => {
    if ($("#game").hidden || !$("#logview").hidden || event.code !== "Space" || !spaceToggles(event.target)) return;
    event.preventDefault(); // a focused "Sound on this device" is not unticked by the space bar
    togglePlay();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || !view.game) return;
    // back from sleep: reconnect, take the state again, and put the sound back at the right moment
    if (!view.socket || view.socket.readyState > WebSocket.OPEN) connect(view.game.id, false);
    else ping();
    follow();
  });
  $("#loglink").addEventListener("click", (event) => {
    event.preventDefault();
    history.pushState({ ...(history.state || {}), sheet: "log" }, "", location.pathname);
    showLog();
  });
  $("#log-close").addEventListener("click", () => history.back());
  $("#brand").addEventListener("click", (event) => {
    if (!inMission()) return;
    event.preventDefault(); // the logo does not leave a running mission
    $("#scroller").scrollTo({ top: 0, behavior: "smooth" });
  });
  window.addEventListener("beforeunload", (event) => {
    if (!inMission()) return;
    event.preventDefault();
    event.returnValue = "";
  });
  window.addEventListener("popstate", (event) => {
    const state = event.state || {};
    if (!$("#logview").hidden && state.sheet !== "log") return closeLog();
    if (state.sheet === "log") return showLog();
    if (inMission() && !state.guard) {
      // Back on the mission screen: the mission stays; the crew leaves it from the card
      history.pushState({ screen: "game", game: view.game.id, guard: true }, "", `/g/${view.game.id}`);
      toast(t("page.game.back_stays"));
      return;
    }
    if (!state.guard) location.reload();
  });
}

// ---- start ----------------------------------------------------------------------------------
async function route() {
  const match = location.pathname.match(/^\/g\/([0-9a-f]{12})$/);
  if (location.pathname === "/log") {
    await serverInfo();
    await useLanguage(localStorage.getItem("tk-language") || "");
    $("#log-close").hidden = true;
    return showLog();
  }
  if (!match) return showSetup();
  try {
    const game = await api(`/api/games/${match[1]}`);
    await useLanguage(game.settings.language); // a joined screen speaks the game's language
    const here = location.pathname + location.search; // one more entry: Back stays on the mission screen
    history.replaceState({ screen: "game", game: game.id }, "", here);
    history.pushState({ screen: "game", game: game.id, guard: true }, "", here);
    const soundWasHere = sessionStorage.getItem("tk-sound") === game.id;
    openGame(game, { sound: false, prompter: new URLSearchParams(location.search).has("prompter") });
    if (soundWasHere && game.mode !== "quiet" && ["playing", "paused"].includes(game.playback.status)) {
      offerResume(); // this device played the sound before the reload: one tap puts it back
    } else {
      $("#join-tap").hidden = false; // phones let a page vibrate, and start a video, only after a tap
    }
  } catch (error) {
    await useLanguage(localStorage.getItem("tk-language") || "").catch(() => {});
    toast(errorText(error), true);
    history.replaceState({}, "", "/");
    showSetup();
  }
}

wireSetup();
wireGame();
wireLog();
route();
