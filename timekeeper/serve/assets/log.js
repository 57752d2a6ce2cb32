// The ship's log in the page: record a played game (once: every screen of the game sees it is
// recorded), the log with its statistics as tables and a chart, correcting and removing a mission.
// Every word comes from the catalogue (log.* keys).
import { api, postJson, sendJson } from "./api.js";
import { element, option, page, sayFailure, toast } from "./dom.js";
import { errorText, say, t, words } from "./i18n.js";
import { serverInfo } from "./language.js";
import { view } from "./state.js";

function scoreText(entry) {
  if (entry.score != null) return t("log.score", { score: entry.score });
  return t(entry.won ? "log.score.campaign" : "log.score.lost");
}

// ---- the form: one builder for "record this mission" and for correcting one -------------------
function fillFields(box, fields, values, fixed = false) {
  box.replaceChildren();
  for (const field of fields) {
    const wide = field.kind === "crew" || field.kind === "text"; // a line of its own, its hint shown in full below it
    const label = element("label", { className: `field${wide ? " wide" : ""}` });
    label.dataset.name = field.name;
    label.append(t(`log.field.${field.name}`));
    const hint = field.hint ? t(`log.hint.${field.name}`) : "";
    let input;
    if (field.choices.length) {
      input = element("select");
      for (const choice of field.choices) input.append(option(choice, choice));
    } else {
      input = element(field.name === "notes" ? "textarea" : "input");
      if (field.name === "notes") input.rows = 3;
      if (field.kind === "count") Object.assign(input, { type: "number", min: 0, inputMode: "numeric" });
      if (field.kind === "date") input.type = "date";
      if (field.high != null) input.max = field.high;
      if (hint && !wide) input.placeholder = hint;
    }
    input.name = field.name;
    input.value = values[field.name] ?? field.default;
    if (fixed && field.campaign_fixed) input.disabled = true; // the campaign decides these
    label.append(input);
    if (hint && wide) label.append(element("span", { className: "hint", textContent: hint }));
    label.append(element("span", { className: "why" }));
    box.append(label);
  }
}

function formValues(form) {
  return Object.fromEntries([...form.querySelectorAll("[name]:not(:disabled)")].map((input) => [input.name, input.value]));
}

function markProblems(form, error) {
  for (const label of form.querySelectorAll(".field")) {
    label.classList.remove("bad");
    label.querySelector(".why").textContent = "";
    const input = label.querySelector("[name]");
    if (input) input.removeAttribute("aria-invalid");
  }
  const body = (error && error.body) || {};
  const words = body.fields_said || {}; // each field's problem in words the page says in its language
  for (const [name, why] of Object.entries(body.fields || {})) {
    const label = form.querySelector(`.field[data-name="${name}"]`) || form.querySelector(`.field[data-name^="${name}"]`);
    if (!label) continue;
    label.classList.add("bad");
    label.querySelector(".why").textContent = say(words[name], why);
    label.querySelector("[name]").setAttribute("aria-invalid", "true");
  }
}

// ---- after a game: record it once ----------------------------------------------------------
// What this screen recorded ("game id:mission id"), or the game whose record is on its way: the
// message telling every screen of the game may come before or after this screen's own answer,
// and must not call this screen "another screen".
let recordedHere = "";
let recording = "";

export async function buildLogForm() {
  const box = page.logFields;
  if (box.dataset.game === view.game.id) return;
  box.dataset.game = view.game.id;
  box.replaceChildren();
  page.logResult.textContent = "";
  let form;
  try {
    form = await api(`/api/games/${view.game.id}/log`);
  } catch (error) {
    page.logResult.textContent = errorText(error);
    return;
  }
  if (form.recorded) return showLogged(form.recorded, "log.recorded");
  fillFields(box, form.fields, form.values, Boolean(form.values.campaign));
  page.logform.dataset.campaign = form.values.campaign || "";
  page.logformSubmit.disabled = false;
}

// The game's mission is in the log (recorded here or on another screen), or was removed (null).
export function showLogged(recorded, how = "log.recorded.other") {
  if (!view.game || page.after.hidden) return;
  if (recording === view.game.id && how === "log.recorded.other") return; // its own answer says it
  if (recorded && recordedHere === `${view.game.id}:${recorded.id}`) how = "log.recorded";
  const form = page.logform;
  if (!recorded) {
    form.classList.remove("done");
    page.logFields.dataset.game = "";
    buildLogForm();
    return;
  }
  page.logFields.replaceChildren();
  page.logformSubmit.disabled = true;
  form.classList.add("done");
  const result = page.logResult;
  const open = element("a", { href: "/log", textContent: t("log.open") });
  open.addEventListener("click", (event) => {
    event.preventDefault(); // over the page, as the bar's link opens it: the sound plays on
    page.loglink.click();
  });
  result.replaceChildren(t(how, { id: recorded.id, score: scoreText(recorded) }), " ", open);
}

async function recordMission(event) {
  event.preventDefault();
  const form = event.target;
  const values = formValues(form);
  if (form.dataset.campaign) values.campaign = form.dataset.campaign;
  markProblems(form, null);
  const game = view.game.id;
  recording = game;
  try {
    const recorded = await postJson(`/api/games/${game}/log`, values);
    recordedHere = `${game}:${recorded.id}`;
    recording = "";
    showLogged(recorded, "log.recorded");
  } catch (error) {
    recording = "";
    if (error.body && error.body.recorded) return showLogged(error.body.recorded);
    page.logResult.textContent = errorText(error);
    markProblems(form, error);
  }
}

// ---- the log: over the page, never instead of it (the sound plays on while the crew reads it) ----
export async function showLog() {
  page.logview.hidden = false;
  document.body.classList.add("sheet-open");
  page.logPdf.href = `/api/log.pdf?lang=${words.language}`; // printed in the page's words
  try {
    const log = await api("/api/log");
    drawLogTable(log);
    drawStats(log.stats);
  } catch (error) { // said where the log would be
    page.logTable.replaceChildren(element("caption", { className: "problem", textContent: errorText(error) }));
    page.logStats.replaceChildren();
  }
  showCrewLink();
  page.logHome.hidden = !page.logClose.hidden; // the log page alone (/log): a way to the set-up screen
  if (!page.logClose.hidden) page.logClose.focus();
}

// Hosted mode: the log is the crew's, known by a key in this browser; its link opens it elsewhere.
async function showCrewLink() {
  const hosted = await serverInfo().then((i) => i.public, () => false);
  page.crewlink.hidden = !hosted;
  if (hosted) page.crewlinkUrl.value = await api("/api/crew").then((crew) => crew.link, sayFailure) || "";
}

async function copyCrewLink() {
  const field = page.crewlinkUrl;
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    field.select(); // no clipboard here (plain http): the link is selected to copy by hand
    document.execCommand("copy");
  }
  toast(t("log.crew.copied"));
}

export function closeLog() {
  page.logview.hidden = true;
  document.body.classList.remove("sheet-open");
}

// The log's columns as the server names them (`log list`'s), with the crew after the track and the
// notes last; each is a key of the catalogue (log.column.*).
const columnKey = (column) => column.replace(/[^a-z]+/gi, "_").replace(/^_|_$/g, "") || "number";
const WRAPPING = new Set(["track", "crew", "score", "notes"]);
const FIGURES = new Set(["common", "serious", "survived", "destroyed", "damage_r_w_b", "worst_zone", "knocked_out", "squads",
  "visual"]); // short figures: their headings stand on end on a wide screen, so that the log fits it
const columnClass = (key) => `col-${key}${WRAPPING.has(key) ? " wraps" : ""}${FIGURES.has(key) ? " figure" : ""}`;

function logColumns(columns) {
  const keys = columns.map(columnKey);
  keys.splice(keys.indexOf("track") + 1, 0, "crew");
  return [...keys, "notes"];
}

// A mission's cells in the order of logColumns: the server's cells, its crew and its notes.
function missionCells(line, keys) {
  const given = [...line.cells];
  return keys.map((key) => {
    if (key === "crew") return line.crew.join(", ");
    if (key === "notes") return line.notes;
    const text = given.shift();
    if (key === "track") return say(line.track_said, text); // in the page's words
    return key === "score" && line.destroyed_by ? t("log.destroyed_by", { threat: line.destroyed_by }) : text;
  });
}

function drawLogTable(log) {
  const table = page.logTable;
  table.replaceChildren(element("caption", { className: "sr-only", textContent: t("log.table") }));
  // explicit roles: on a phone the rows are shown as cards (style.css), and stay a table to screen readers
  table.setAttribute("role", "table");
  const head = table.createTHead().insertRow();
  head.setAttribute("role", "row");
  const keys = logColumns(log.columns);
  const labels = [t("log.actions"), ...keys.map((key) => t(`log.column.${key}`))]; // first: in view on a wide screen, last on a phone's card
  labels.forEach((label, index) => head.append(element("th", { scope: "col", role: "columnheader", textContent: label,
    className: index ? columnClass(keys[index - 1]) : "col-actions" })));
  const body = table.createTBody();
  const width = labels.length;
  for (const line of log.lines) {
    const row = body.insertRow();
    if (line.campaign) {
      row.className = "campaign";
      row.setAttribute("role", "row");
      Object.assign(row.insertCell(), { colSpan: width, role: "cell", textContent: campaignText(line) });
      continue;
    }
    row.className = line.bracket;
    row.setAttribute("role", "row");
    const actions = element("div", { className: "actions" });
    row.insertCell().append(actions);
    missionCells(line, keys).forEach((text, index) => Object.assign(row.insertCell(), { textContent: text,
      className: columnClass(keys[index]) }));
    [...row.cells].forEach((td, index) => { td.setAttribute("role", "cell"); td.dataset.label = labels[index]; });
    const [id, date] = line.cells;
    const track = say(line.track_said, line.cells[log.columns.indexOf("track")]);
    actions.append(element("button", { type: "button", className: "button ghost small", textContent: t("log.edit"),
      onclick: () => editMission(line.id) }));
    actions.lastChild.setAttribute("aria-label", t("log.edit.label", { id }));
    if (line.removable) {
      actions.append(element("button", { type: "button", className: "button ghost small danger",
        textContent: t("log.delete"), onclick: () => askRemove(line.id, { id, date, track }) }));
      actions.lastChild.setAttribute("aria-label", t("log.delete.label", { id }));
    }
  }
  if (!log.lines.length) {
    const row = body.insertRow();
    row.setAttribute("role", "row");
    Object.assign(row.insertCell(), { colSpan: width, role: "cell", textContent: t("log.empty") });
  }
  for (const group of [table.tHead, body]) group.setAttribute("role", "rowgroup");
}

// "Campaign 2 (open, 1 mission): threats 26 - damage 3 - ... = 25", in the page's words
function campaignText(line) {
  const head = t(line.flown === 1 ? "log.campaign.one" : "log.campaign.many",
    { id: line.id, status: t(`log.status.${line.status}`), count: line.flown });
  if (line.status === "lost") return `${head}: ${t("log.campaign.lost", { threat: line.destroyed_by })}`;
  if (!line.score) return `${head}: ${t("log.campaign.nothing")}`;
  return `${head}: ${t("log.campaign.score", line.score)}`;
}

async function editMission(id) {
  const dialog = page.logEdit;
  const form = page.logEditForm;
  let mission;
  try {
    mission = await api(`/api/log/${id}`);
  } catch (error) {
    return toast(errorText(error), true);
  }
  form.dataset.id = id;
  page.logEditTitle.textContent = t("log.edit.title", { id, track: say(mission.track_said, mission.track) });
  fillFields(page.logEditFields, mission.fields, mission.values, mission.campaign != null);
  page.logEditResult.textContent = "";
  dialog.showModal();
}

async function saveMission(event) {
  event.preventDefault();
  if (event.submitter && event.submitter.value === "cancel") return page.logEdit.close();
  const form = event.target;
  markProblems(form, null);
  try {
    const entry = await sendJson(`/api/log/${form.dataset.id}`, formValues(form), "PATCH");
    page.logEdit.close();
    toast(t("log.edited", { id: entry.id, score: scoreText(entry) }));
    showLog();
  } catch (error) {
    page.logEditResult.textContent = errorText(error);
    markProblems(form, error);
  }
}

function askRemove(id, what) {
  const dialog = page.logDelete;
  page.logDeleteForm.dataset.id = id;
  page.logDeleteText.textContent = t("log.delete.ask", what);
  dialog.showModal();
}

async function removeMission(event) {
  event.preventDefault();
  const dialog = page.logDelete;
  dialog.close();
  if (!event.submitter || event.submitter.value !== "remove") return;
  const id = event.target.dataset.id;
  try {
    await api(`/api/log/${id}`, { method: "DELETE" });
    toast(t("log.deleted", { id }));
    showLog();
  } catch (error) {
    toast(errorText(error), true);
  }
}

// ---- statistics: tables and a chart -----------------------------------------------------------
function drawStats(stats) {
  const box = page.logStats;
  box.replaceChildren(scoreChart(stats.tables.find((table) => table.by === "track")));
  for (const table of stats.tables) box.append(statsTable(table));
  const all = stats.overall;
  box.append(element("p", { className: "overall", textContent: t("log.overall", {
    missions: all.missions, wins: all.wins, best: localNumber(all.best), mean: localNumber(all.mean) }) }));
}

// A group of the statistics by its name: a track's in the page's words, a crew's or player's as written.
const groupName = (group) => say(group.said, group.key);

// A score or mean as the page's language writes numbers (9.8, 9,8); "-" for none.
function localNumber(value) {
  return value == null ? "-" : Number(value).toLocaleString(document.documentElement.lang || "en");
}

function statsTable({ by, groups }) {
  const campaigns = by === "campaigns";
  const keys = ["missions", "won", "best", "mean", ...(campaigns ? ["open"] : [])].map((k) =>
    k === "missions" && campaigns ? "finished" : k);
  const table = element("table", { className: "logtable stats" },
    element("caption", { className: "sr-only", textContent: t(`log.stats.${by}`) })); // its first column says it
  const head = table.createTHead().insertRow();
  head.append(element("th", { scope: "col", textContent: t(`log.stats.${by}`) }));
  for (const key of keys) head.append(element("th", { scope: "col", className: "num", textContent: t(`log.stats.${key}`) }));
  const body = table.createTBody();
  for (const group of groups) {
    const row = body.insertRow();
    row.append(element("th", { scope: "row", textContent: groupName(group) }));
    const cells = [group.missions, group.wins, localNumber(group.best), localNumber(group.mean), ...(campaigns ? [group.open] : [])];
    for (const cell of cells) Object.assign(row.insertCell(), { className: "num", textContent: cell });
  }
  const region = element("div", { className: "scroll", tabIndex: 0, role: "region" }, table);
  region.setAttribute("aria-label", t(`log.stats.${by}`));
  return region;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, text = "") {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== "") made.textContent = text;
  return made;
}

// Best and mean score per track as horizontal bars: long track names fit a phone's width.
function scoreChart(table) {
  const groups = ((table && table.groups) || []).filter((g) => g.best != null);
  const figure = element("figure", { className: "chart" });
  const title = t("log.chart.title");
  figure.append(element("figcaption", { textContent: title }));
  if (!groups.length) {
    figure.append(element("p", { className: "hint", textContent: t("log.chart.empty") }));
    return figure;
  }
  const WIDTH = Math.round(Math.max(300, Math.min(760, page.logStats.clientWidth || 600))); // drawn 1:1: text at its size
  const ROW = 34, BAR = 12, LEFT = Math.round(Math.min(WIDTH * 0.36, 190)), RIGHT = 44, TOP = 26;
  const fits = Math.floor((LEFT - 12) / 7.5); // characters of a track's name beside its bars
  const low = Math.min(0, ...groups.map((g) => Math.min(g.best, g.mean)));
  const high = Math.max(1, ...groups.map((g) => g.best));
  const x = (value) => LEFT + ((value - low) / (high - low)) * (WIDTH - LEFT - RIGHT);
  const height = TOP + groups.length * ROW + 8;
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: "img", class: "chart-svg",
    "aria-labelledby": "chart-title chart-desc" });
  chart.append(svg("title", { id: "chart-title" }, title));
  const best = t("log.chart.best"), mean = t("log.chart.mean");
  chart.append(svg("desc", { id: "chart-desc" }, groups.map((g) => `${groupName(g)}: ${best} ${localNumber(g.best)}, ${mean} ${localNumber(g.mean)}`).join("; ")));
  const legend = svg("g", { class: "legend", "aria-hidden": "true" });
  legend.append(svg("rect", { x: LEFT, y: 6, width: 12, height: 12, class: "bar-best" }),
    svg("text", { x: LEFT + 18, y: 16 }, best),
    svg("rect", { x: LEFT + 90, y: 6, width: 12, height: 12, class: "bar-mean" }),
    svg("text", { x: LEFT + 108, y: 16 }, mean));
  chart.append(legend);
  chart.append(svg("line", { x1: x(0), x2: x(0), y1: TOP - 4, y2: height - 4, class: "axis" }));
  groups.forEach((group, index) => {
    const y = TOP + index * ROW;
    const full = groupName(group);
    const name = full.length > fits ? `${full.slice(0, fits - 1)}…` : full;
    chart.append(svg("text", { x: LEFT - 8, y: y + BAR + 4, "text-anchor": "end" }, name));
    for (const [value, kind, dy] of [[group.best, "best", 0], [group.mean, "mean", BAR + 2]]) {
      const from = x(Math.min(0, value)), to = x(Math.max(0, value));
      chart.append(svg("rect", { x: from, y: y + dy, width: Math.max(1, to - from), height: BAR, class: `bar-${kind}` }));
      chart.append(svg("text", { x: to + 4, y: y + dy + BAR - 2, class: "value" }, localNumber(value)));
    }
  });
  figure.append(chart);
  return figure;
}

// A screen that slept or lost its connection may have missed a "logged" message: ask again.
async function checkLogged() {
  if (!view.game || page.after.hidden || !page.logFields.dataset.game) return;
  try {
    const form = await api(`/api/games/${view.game.id}/log`);
    const done = page.logform.classList.contains("done");
    if (form.recorded || done) showLogged(form.recorded);
  } catch (error) {
    sayFailure(error); // the next message or wake-up tries again
  }
}

export function wireLog() {
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && checkLogged());
  page.logform.addEventListener("submit", recordMission);
  page.logEditForm.addEventListener("submit", saveMission);
  page.logDeleteForm.addEventListener("submit", removeMission);
  page.crewlinkCopy.addEventListener("click", copyCrewLink);
}
