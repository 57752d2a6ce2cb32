// How other screens join a game: its short code, link and QR code (on the set-up screen for the
// lobby's game, in the mission screen's "joining" part), how long a hosted game is kept, who is
// connected, and a code typed in.
import { api } from "./api.js";
import { spanText } from "./clock.js";
import { page, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { serverInfo, whenWordsChange } from "./language.js";
import { server, view } from "./state.js";

// Phones reach the server only in LAN mode; without it the link serves this machine's other windows.
async function showLink(game, { code, link, qr, local }) {
  code.textContent = game.code;
  link.href = game.join_url;
  link.textContent = game.join_url;
  const lan = await serverInfo().then((info) => info.lan, () => false);
  drawExpiry();
  qr.hidden = !lan;
  local.hidden = lan;
  if (lan) qr.src = `/api/games/${game.id}/qr.svg`;
}

export function showLobbyLink(game) {
  page.lobby.hidden = false;
  return showLink(game, { code: page.lobbyCode, link: page.lobbyLink, qr: page.lobbyQr, local: page.lobbyLocal });
}

export function showGameLink(game) {
  return showLink(game, { code: page.gameCode, link: page.join, qr: page.qr, local: page.joinLocal });
}

// Hosted mode: a game nobody uses is forgotten after the server's idle time; its link says so.
function drawExpiry() {
  const idle = server.info && server.info.public ? server.info.room_idle_s : 0;
  for (const element of page.expiries) {
    element.hidden = !idle;
    element.textContent = idle ? t("page.join.expiry", { time: spanText(idle) }) : "";
  }
}

// The screens of the game, in the page's words: "Screen 1 (this one, sound) · Phone 2".
export function presenceText(screens) {
  return screens.map((screen) => {
    const name = t(`page.presence.${screen.kind}`, { n: screen.number });
    const mine = screen.me ? t("page.presence.me", { name }) : name;
    return screen.sound ? t("page.presence.sound", { name: mine }) : mine;
  }).join(" · ");
}

export function showPresence(screens) {
  view.screens = screens;
  drawPresence();
}

function drawPresence() {
  for (const element of page.presences) element.textContent = presenceText(view.screens);
}

export async function joinByCode(code) {
  try {
    const { id } = await api(`/api/join/${encodeURIComponent(code.trim())}`);
    location.href = `/g/${id}`;
  } catch (error) {
    toast(errorText(error), true);
  }
}

export function wireJoining() {
  page.joinCode.addEventListener("submit", (event) => {
    event.preventDefault();
    joinByCode(event.target.code.value);
  });
  whenWordsChange(drawExpiry);
  whenWordsChange(drawPresence);
}
