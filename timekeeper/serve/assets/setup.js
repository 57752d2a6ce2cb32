// The set-up screen: the track (chosen, generated, typed as a code or uploaded), the settings
// (language, voice, crew, music, pace), and the natural voice of a language one step away. Each
// change is told as an event on the screen (SETUP_CHANGED), which the lobby sends to its game.
import { api, finished, postJson } from "./api.js";
import { element, option, page, sayFailure, toast } from "./dom.js";
import { errorText, say, t, uiLanguage, words } from "./i18n.js";
import { joinByCode } from "./joining.js";
import { serverInfo, useLanguage, whenWordsChange } from "./language.js";
import { server } from "./state.js";

export const SETUP_CHANGED = "setup-changed";
const setupChanged = () => page.setup.dispatchEvent(new Event(SETUP_CHANGED));

const GROUPS = ["added", "folder", "test-run", "simulation", "advanced-simulation", "mission", "double-action",
  "example", "custom"]; // the order of the track list's groups; each is named page.group.<name>

export async function showSetup() {
  page.setup.hidden = false;
  page.game.hidden = true;
  try {
    await serverInfo();
    fillSettings();
    await useLanguage(page.language.value);
    await fillTracks();
  } catch (error) {
    if (!words.language) await useLanguage(localStorage.getItem("tk-language") || "").catch(() => {}); // its words, at least
    return sayFailure(error);
  }
  const wanted = new URLSearchParams(location.search).get("join");
  if (wanted) joinByCode(wanted);
}

function trackLabel(track) {
  if (track.problem) return `✗ ${say(track.problem_said, track.problem)}`;
  const title = say(track.title_said, track.title);
  return track.seed != null ? t("page.setup.track_seeded", { title, length: track.length, seed: track.seed })
    : t("page.setup.track_entry", { title, length: track.length });
}

const listed = new Map(); // track id -> the track as the server sent it (its words are said again when the language changes)

async function fillTracks(select) {
  const { tracks } = await api("/api/tracks");
  const list = page.track;
  listed.clear();
  const keep = select || list.value || localStorage.getItem("tk-track") || "builtin:mission-1";
  list.replaceChildren();
  const groups = {};
  for (const track of tracks) {
    groups[track.group] = groups[track.group] || element("optgroup", { label: t(`page.group.${track.group}`) });
    groups[track.group].dataset.group = track.group;
    const choice = option(track.id, trackLabel(track));
    listed.set(track.id, track);
    choice.disabled = Boolean(track.problem); // listed with its first problem, not playable
    choice.title = track.problem ? say(track.problem_said, track.problem) : "";
    groups[track.group].append(choice);
  }
  for (const group of new Set([...GROUPS, ...Object.keys(groups)])) if (groups[group]) list.append(groups[group]);
  list.value = keep;
  if (!list.value || list.selectedOptions[0].disabled) list.selectedIndex = [...list.options].findIndex((o) => !o.disabled);
  trackChanged();
}

// The tracks' titles and groups in the page's words again (after a change of language).
function relabelTracks() {
  for (const group of page.track.querySelectorAll("optgroup")) group.label = t(`page.group.${group.dataset.group}`);
  for (const choice of page.track.options) {
    const track = listed.get(choice.value);
    if (!track) continue;
    choice.textContent = trackLabel(track);
    choice.title = track.problem ? say(track.problem_said, track.problem) : "";
  }
  trackChanged();
}

function trackChanged() {
  const chosen = page.track.selectedOptions[0];
  const track = chosen && listed.get(chosen.value);
  page.trackInfo.textContent = track ? say(track.origin_said, track.origin || "") : "";
  if (chosen) localStorage.setItem("tk-track", chosen.value);
  setupChanged();
}

function fillSettings() {
  const info = server.info;
  const language = page.language;
  if (language.options.length) return;
  for (const { code, name } of info.languages) language.append(option(code, name));
  language.value = localStorage.getItem("tk-language") || uiLanguage("", navigator.languages || []);
  if (!language.value) language.value = "en";
  page.pace.value = localStorage.getItem("tk-pace") || "1";
  page.remote.checked = localStorage.getItem("tk-remote") === "1";
  page.paceField.hidden = !info.pace; // offered once the server's mix settings have a training pace
  fillVoices();
  for (const name of info.music) page.music.append(option(name, name));
  page.musicField.hidden = info.music.length === 0;
  buildGenerateForm();
}

// ---- the generate form: one field per option of the generator (the server's option specs, as
// `generate --help` shows them), labelled with the words the server gives in the page's language
const generateFields = new Map(); // option key -> its label, name and input

function buildGenerateForm() {
  const first = page.genFields.firstChild;
  for (const spec of server.info.generate.options) {
    const name = element("span");
    let input;
    if (spec.type === "choice") {
      input = element("select", {}, ...spec.choices.map((choice, index) => option(choice, spec.choice_labels[index])));
      input.value = spec.default;
    } else {
      input = element("input");
    }
    input.name = spec.key;
    input.dataset.spec = "1";
    const label = element("label", { className: "field" }, name, input);
    if (spec.presets.length) { // suggested values, named (the length: a quick game)
      const list = element("datalist", { id: `gen-presets-${spec.key}` }, ...spec.presets.map((p) => option(p.value, p.label)));
      input.setAttribute("list", list.id);
      label.append(list);
    }
    label.dataset.spec = spec.key;
    page.genFields.insertBefore(label, first);
    generateFields.set(spec.key, { label, name, input });
  }
  page.gen.count.max = server.info.generate.max_count;
  page.gen.seed.max = server.info.generate.max_seed;
  labelGenerateForm();
}

function labelGenerateForm() {
  for (const spec of server.info ? server.info.generate.options : []) {
    const field = generateFields.get(spec.key);
    if (!field) continue;
    field.name.textContent = spec.label;
    field.label.title = spec.help;
    if (field.input.tagName === "INPUT") field.input.placeholder = spec.placeholder;
    [...field.input.querySelectorAll("option")].forEach((choice, index) => (choice.textContent = spec.choice_labels[index]));
    [...field.label.querySelectorAll("datalist option")].forEach((preset, index) => (preset.textContent = spec.presets[index].label));
  }
}

function generatorChoice(form) {
  // the options are text as the command line takes them; seed and count are numbers (an empty seed: a random one)
  const chosen = Object.fromEntries([...generateFields].map(([key, field]) => [key, field.input.value]));
  const seed = form.seed.value === "" ? null : Number(form.seed.value);
  return Object.assign(chosen, { seed, count: Number(form.count.value || 1), campaign: form.campaign.checked });
}

// ---- voices -------------------------------------------------------------------------------------
function fillVoices() {
  const language = page.language.value;
  page.voice.replaceChildren(...server.info.voices.filter((v) => !v.language || v.language === language)
    .map((v) => option(v.id, v.name)));
  page.voiceOffer.hidden = !voiceOffer();
  wordVoiceOffer();
}

function nameVoices() {
  if (!server.info) return; // a game's screen: no set-up shown
  const names = new Map(server.info.voices.map((v) => [v.id, v.name]));
  for (const choice of page.voice.options) if (names.has(choice.value)) choice.textContent = names.get(choice.value);
}

// The recommended natural voice of the chosen language, when it is not installed yet.
function voiceOffer() {
  const info = server.info;
  return info && (info.install || []).find((o) => o.language === page.language.value && !o.installed);
}

function wordVoiceOffer() {
  const offer = voiceOffer();
  if (offer) page.installVoice.textContent = t("page.setup.install_voice", { name: offer.name, size: offer.size_mb,
    licence: offer.licence || t("page.setup.licence_on_card") });
}

// Downloaded by the server, then the default voice of its language.
async function installVoice() {
  const language = page.language.value;
  const bar = page.installProgress;
  page.installVoice.disabled = true;
  bar.hidden = false;
  try {
    const job = await finished(await postJson("/api/voices/install", { language }), () => `/api/voices/install/${language}`,
      (answer) => {
        bar.max = answer.total || 1;
        bar.value = answer.done || 0;
      });
    server.info = await api("/api/info");
    fillVoices();
    toast(t("page.setup.voice_installed", { voice: job.voice }));
  } catch (error) {
    toast(errorText(error), true);
  } finally {
    page.installVoice.disabled = false;
    bar.hidden = true;
  }
}

// The settings as the server takes them.
export function settings() {
  const crew = page.crew.find((radio) => radio.checked).value;
  const chosen = {
    language: page.language.value,
    voice: page.voice.value,
    players: crew === "solo" ? 1 : Number(crew),
    solo: crew === "solo",
    background: page.background.checked,
    music: page.music.value,
    computer_voice: page.computer.checked,
    remote: page.remote.checked, // a crew apart: every joined screen plays the sound
  };
  if (page.pace.value !== "1" && server.info.pace) chosen.pace = Number(page.pace.value);
  return chosen;
}

// ---- adding tracks: what was added, or what is wrong with it ----------------------------------
function showList(head, lines, warning = false) {
  const box = page.problems;
  box.classList.toggle("warning", warning);
  box.replaceChildren(element("p", { textContent: head }));
  if (lines.length) box.append(element("ul", {}, ...lines.map((line) => element("li", { textContent: line }))));
  box.hidden = false;
}

// What is wrong with a file or a pasted code (`source`: "file" or "code"), each problem in the page's words.
function showProblems(error, source = "file") {
  const problems = (error.body && error.body.problems) || [];
  showList(problems.length ? t(`page.problems.${source}`) : errorText(error),
    problems.map((p) => {
      const message = say(p.said, p.message); // in the page's words when the server sent them
      return p.line ? t("page.problems.line", { line: p.line, column: p.column, message }) : message;
    }));
}

async function added(request, what, source = "file") {
  page.problems.hidden = true;
  try {
    const body = await request;
    const made = body.tracks || [body.track];
    await fillTracks(made[0].id);
    const names = made.map((m) => {
      const title = say(m.title_said, m.title);
      return m.seed != null ? t("page.added.seeded", { title, seed: m.seed }) : title;
    }).join(", ");
    const relaxed = body.relaxed && body.relaxed.length ? t("page.added.relaxed", { what: body.relaxed.join("; ") }) : "";
    toast(`${t(what, { names })}${relaxed}`);
    if (body.warnings && body.warnings.length) showList(t("page.problems.overlaps"), body.warnings, true);
    return made;
  } catch (error) {
    showProblems(error, source);
    return null;
  }
}

// The ways to add a track are a tab list (ARIA tabs): a click opens a tab's form, or closes it
// again; the arrow keys, Home and End move between the tabs and open the one they reach.
function wireTabs() {
  const tabs = page.tabs;
  const panel = (tab) => page[tab.dataset.tab];
  const choose = (tab, toggle) => {
    for (const other of tabs) {
      const open = other === tab && (!toggle || panel(other).hidden);
      other.classList.toggle("active", open);
      other.setAttribute("aria-selected", String(open));
      other.tabIndex = other === tab ? 0 : -1;
      panel(other).hidden = !open;
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

export function wireSetup() {
  page.track.addEventListener("change", trackChanged);
  page.language.addEventListener("change", () => {
    localStorage.setItem("tk-language", page.language.value);
    fillVoices();
    useLanguage(page.language.value).then(setupChanged, sayFailure);
  });
  page.installVoice.addEventListener("click", installVoice);
  for (const input of [page.voice, page.music, page.background, page.computer, page.quiet, ...page.crew]) {
    input.addEventListener("change", setupChanged);
  }
  page.pace.addEventListener("change", () => {
    localStorage.setItem("tk-pace", page.pace.value);
    setupChanged();
  });
  page.remote.addEventListener("change", () => {
    localStorage.setItem("tk-remote", page.remote.checked ? "1" : "0");
    setupChanged();
  });
  wireTabs();
  page.gen.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = generatorChoice(event.target);
    localStorage.setItem("tk-generate", JSON.stringify({ ...chosen, seed: null })); // "new random mission" reuses them
    // the voice's overlaps come back as warnings
    added(postJson(`/api/tracks/generate?lang=${words.language}`, { ...chosen, language: page.language.value,
      voice: page.voice.value }), "page.added.generated");
  });
  page.code.addEventListener("submit", (event) => {
    event.preventDefault();
    added(postJson("/api/tracks/flashcode", { code: event.target.code.value, title: event.target.title.value }),
      "page.added.imported", "code");
  });
  page.file.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = event.target.file.files[0];
    if (!file) return toast(t("page.file.choose"), true);
    added(api(`/api/tracks/upload?name=${encodeURIComponent(file.name)}`, { method: "POST", body: file }), "page.added.uploaded");
  });
  whenWordsChange(() => {
    relabelTracks();
    labelGenerateForm();
    nameVoices();
    wordVoiceOffer();
  });
}
