// The screen stays awake while the mission plays: by the Wake Lock API where the page may use it
// (https, or this machine), else (a phone over --lan, plain http) by a muted video playing behind
// the page. Call it inside a tap first: some phones start a video only there.
import { page } from "./dom.js";
import { view } from "./state.js";

export async function keepAwake(on) {
  if (!("wakeLock" in navigator)) return awakeVideo(on);
  try {
    if (on && !view.wakeLock && document.visibilityState === "visible") {
      view.wakeLock = await navigator.wakeLock.request("screen");
      view.wakeLock.addEventListener("release", () => (view.wakeLock = null));
    } else if (!on && view.wakeLock) {
      await view.wakeLock.release();
      view.wakeLock = null;
    }
  } catch {
    view.wakeLock = null; // not allowed here (battery saver): the screen may sleep
  }
}

function awakeVideo(on) {
  const video = page.awake;
  if (on && video.paused) video.play().catch(() => {});
  else if (!on && !video.paused) video.pause();
}
