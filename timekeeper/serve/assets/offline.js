// The page as an app that works offline where browsers allow a service worker (https, or a page
// of this machine): the worker (/sw.js) keeps the app shell, and this tells it which sound the
// mission plays (whatever URL the audio element plays), so it keeps that whole sound too.
"use strict";

(() => {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  const keep = (url) =>
    navigator.serviceWorker.ready.then((registration) => {
      if (registration.active) registration.active.postMessage({ type: "keep-sound", url });
    });
  // wake the worker as Play is pressed: the sound's first byte range then passes a running worker
  const warm = () => navigator.serviceWorker.controller && navigator.serviceWorker.controller.postMessage({ type: "warm" });
  for (const id of ["play-here", "prompter-start", "toggle"]) document.getElementById(id).addEventListener("pointerdown", warm);
  const audio = document.querySelector("#audio");
  let asked = "";
  audio.addEventListener("playing", () => {
    // once the sound plays (not before: the first second of sound comes first), whatever its URL
    const url = audio.currentSrc || audio.src;
    if (url === asked || !url.startsWith(`${location.origin}/api/`)) return;
    asked = url;
    setTimeout(() => keep(url), 1000);
  });
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.type === "sound-kept" && window.timekeeper) window.timekeeper.soundKept = event.data.url;
  });
  window.timekeeperKeepSound = keep; // for a sound played another way than by the element's src

  // The playback this page shows, told to the worker when it changes (and when the page is left).
  let told = "";
  const tell = () => {
    const view = window.timekeeper && window.timekeeper.view;
    if (!view || !view.game || !navigator.serviceWorker.controller) return;
    const { status, position_ms: position, at_ms: at } = view.playback;
    const shown = JSON.stringify([view.game.id, status, Math.round(position), Math.round(at)]);
    if (shown === told) return;
    told = shown;
    navigator.serviceWorker.controller.postMessage({ type: "keep-playback", game: view.game.id,
      playback: { status, position_ms: position, at_ms: at } });
  };
  setInterval(tell, 2000);
  addEventListener("pagehide", tell);
})();
