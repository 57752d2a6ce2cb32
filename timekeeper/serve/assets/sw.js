// timekeeper's service worker (https, or a page of this machine): the app shell, the answers a
// mission screen needs, and the whole soundtrack of the missions played on this device are kept
// here, so a phone that loses the network mid-mission keeps playing, and a mission played here
// opens again offline. The page names the sound to keep (offline.js): whatever URL its audio
// element plays. Every other answer comes from the network first, from here only without one.
"use strict";

const VERSION = "__VERSION__"; // the server's version and its assets' digest: a new one replaces the shell
const SHELL = `tk-shell-${VERSION}`;
const DATA = "tk-data"; // the game, words, server info and card of the missions opened here
const SOUND = "tk-sound"; // whole soundtracks, the newest KEPT_SOUNDS
const KEPT_SOUNDS = 3;
const KEPT_DATA = 60;
const NETWORK_WAIT_MS = 4000; // with a kept answer, the network is given this long
const SHELL_FILES = __SHELL__;
const KEPT_ANSWERS = [/^\/api\/info$/, /^\/api\/messages\/[a-z]{2,3}$/, /^\/api\/games\/[0-9a-f]{12}$/,
  /^\/api\/games\/[0-9a-f]{12}\/card\.html$/];
const keeping = new Map(); // sound URL -> its download under way
let kept = null; // the URLs of the kept sounds, read once per start of the worker (a sound's first byte waits for nothing else)

function keptSounds() {
  kept = kept || caches.open(SOUND).then((cache) => cache.keys()).then((keys) => new Set(keys.map((k) => k.url)),
    () => new Set());
  return kept;
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SHELL_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith("tk-shell-") && name !== SHELL) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "warm") return; // a message wakes the worker before the sound's first request
  if (data.type === "keep-sound" && typeof data.url === "string") event.waitUntil(keepSound(data.url, event.source));
  if (data.type === "keep-playback" && /^[0-9a-f]{12}$/.test(data.game || "")) event.waitUntil(keepPlayback(data.game, data.playback));
});

// The page's latest playback of a game, written into its kept answer: a mission reopened offline
// is where it was when the page was left, not where it was when the page first loaded.
async function keepPlayback(game, playback) {
  const cache = await caches.open(DATA);
  const key = `/api/games/${game}`;
  const kept = await cache.match(key);
  if (!kept || !playback || typeof playback !== "object") return;
  const body = await kept.json();
  body.playback = { ...body.playback, ...playback };
  await cache.put(key, new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } }));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  event.respondWith(answer(request, url, ["audio", "video"].includes(request.destination)));
});

async function answer(request, url, media) {
  if ((await keptSounds()).has(url.href)) {
    const sound = await (await caches.open(SOUND)).match(url.href);
    if (sound) return fromWhole(sound, request.headers.get("Range"));
  }
  if (media) return relayed(request);
  if (request.mode === "navigate") return networkFirst(request, SHELL, "/"); // every page is the one shell
  if (SHELL_FILES.includes(url.pathname)) return networkFirst(request, SHELL, url.pathname);
  if (KEPT_ANSWERS.some((pattern) => pattern.test(url.pathname))) return networkFirst(request, DATA, url.pathname + url.search);
  return fetch(request);
}

// The network's answer (kept for later when it is a plain page or data), else the kept one.
async function networkFirst(request, cacheName, key) {
  const cache = await caches.open(cacheName);
  const kept = await cache.match(key);
  try {
    const fetched = fetch(request);
    const response = kept ? await Promise.race([fetched, late(NETWORK_WAIT_MS)]) : await fetched;
    const html = (response.headers.get("Content-Type") || "").startsWith("text/html");
    if (response.ok && response.type === "basic" && !response.headers.has("Content-Disposition")
        && (request.mode !== "navigate" || html)) {
      await cache.put(key, response.clone());
      if (cacheName === DATA) await trim(cache, KEPT_DATA);
    }
    return response;
  } catch (error) {
    if (kept) return kept;
    throw error;
  }
}

// A sound from the network, passed on as an answer made here: the browser's media player takes
// the byte ranges of one sound only from one kind of source, and once the sound is kept its
// ranges are made here (fromWhole), so they must be made here from the start too.
async function relayed(request) {
  const response = await fetch(request);
  return new Response(response.body, { status: response.status, statusText: response.statusText,
    headers: response.headers });
}

function late(ms) {
  return new Promise((resolve, reject) => setTimeout(() => reject(new Error("the network is slow")), ms));
}

async function trim(cache, most) {
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - most))) await cache.delete(old);
}

// Keep the whole soundtrack at `url` (one download, not a byte range), then say so to the page.
async function keepSound(url, client) {
  const target = new URL(url, self.location.origin);
  if (target.origin !== self.location.origin) return;
  let job = keeping.get(target.href);
  if (!job) {
    job = (async () => {
      const cache = await caches.open(SOUND);
      if (await cache.match(target.href)) return true;
      const response = await fetch(target.href, { credentials: "same-origin", cache: "no-store" }); // no HTTP cache lock on the player
      if (response.status !== 200) return false;
      await cache.put(target.href, response);
      await trim(cache, KEPT_SOUNDS);
      kept = null; // read again
      return true;
    })().catch(() => false).finally(() => keeping.delete(target.href));
    keeping.set(target.href, job);
  }
  if ((await job) && client) client.postMessage({ type: "sound-kept", url: target.href });
}

// A byte range of a kept soundtrack, as the server answers it (206 with Content-Range).
async function fromWhole(kept, range) {
  const whole = await kept.blob();
  const size = whole.size;
  const headers = { "Content-Type": kept.headers.get("Content-Type") || "application/octet-stream",
    "Accept-Ranges": "bytes", "Cache-Control": "no-store" };
  const match = /^bytes=(\d*)-(\d*)$/.exec((range || "").trim());
  if (!range || !match || (!match[1] && !match[2])) {
    return new Response(whole, { status: 200, headers: { ...headers, "Content-Length": String(size) } });
  }
  let first;
  let last;
  if (match[1]) {
    first = Number(match[1]);
    last = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
  } else {
    first = Math.max(0, size - Number(match[2]));
    last = size - 1;
  }
  if (first >= size || last < first) {
    return new Response(null, { status: 416, headers: { "Content-Range": `bytes */${size}` } });
  }
  return new Response(whole.slice(first, last + 1), { status: 206, headers: { ...headers,
    "Content-Length": String(last - first + 1), "Content-Range": `bytes ${first}-${last}/${size}` } });
}
