// The page as an app that works offline where browsers allow a service worker (https, or a page
// of this machine): the worker (/sw.js) keeps the app shell, and this tells it which sound the
// mission plays (whatever URL the audio element plays), so it keeps that whole sound too.
import { page } from "./dom.js";
import { measured, view } from "./state.js";

export function keepOffline() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const worker = navigator.serviceWorker;
  worker.register("/sw.js", { scope: "/" }).catch(() => {});
  const keep = (url) =>
    worker.ready.then((registration) => {
      if (registration.active) registration.active.postMessage({ type: "keep-sound", url });
    }).catch(() => {}); // no worker to keep it: the sound plays from the network, as without one
  // wake the worker as Play is pressed: the sound's first byte range then passes a running worker
  const warm = () => worker.controller && worker.controller.postMessage({ type: "warm" });
  for (const button of [page.playHere, page.prompterStart, page.toggle]) button.addEventListener("pointerdown", warm);
  let asked = "";
  page.audio.addEventListener("playing", () => {
    // once the sound plays (not before: the first second of sound comes first), whatever its URL
    const url = page.audio.currentSrc || page.audio.src;
    if (url === asked || !url.startsWith(`${location.origin}/api/`)) return;
    asked = url;
    setTimeout(() => keep(url), 1000);
  });
  worker.addEventListener("message", (event) => {
    if (event.data && event.data.type === "sound-kept") measured.soundKept = event.data.url;
  });
  window.timekeeperKeepSound = keep; // for a sound played another way than by the element's src

  // The playback this page shows, told to the worker when it changes (and when the page is left).
  let told = "";
  const tell = () => {
    if (!view.game || !worker.controller) return;
    const { status, position_ms: position, at_ms: at } = view.playback;
    const shown = JSON.stringify([view.game.id, status, Math.round(position), Math.round(at)]);
    if (shown === told) return;
    told = shown;
    worker.controller.postMessage({ type: "keep-playback", game: view.game.id, playback: { status, position_ms: position, at_ms: at } });
  };
  setInterval(tell, 2000);
  addEventListener("pagehide", tell);
}
