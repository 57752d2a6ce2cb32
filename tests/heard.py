"""What Chromium really plays from an audio address, against the time its element reports: the
samples are taken from a Web Audio graph (a media element source into a script processor), each
onset timed to the sample on the audio context's clock, and that clock mapped to the element's
currentTime. The mapping carries the graph's own latency (the same for any file), so compare
two files, not one file with the timeline."""

from __future__ import annotations

import statistics

from serving import wait_for

# A document of the server that is not the page: no service worker takes the requests, so what
# is measured is Chromium's own media path (the page's worker relays the same bytes).
PLAIN_PAGE = "api/info"

LISTEN = """
const [url, seekTo, seconds] = arguments;
const done = arguments[arguments.length - 1];
const a = new Audio();
a.preload = "auto";
const ctx = new AudioContext({ sampleRate: 48000 });
const tap = ctx.createScriptProcessor(256, 1, 1);
ctx.createMediaElementSource(a).connect(tap);
tap.connect(ctx.destination);
const marks = [], onsets = [];
let last = -1;
tap.onaudioprocess = (e) => {
  const x = e.inputBuffer.getChannelData(0);
  marks.push([e.playbackTime, a.currentTime, a.paused]);
  for (let i = 0; i < x.length; i++) {
    if (Math.abs(x[i]) <= 0.05) continue;
    const at = e.playbackTime + i / ctx.sampleRate;
    if (at - last > 0.5) onsets.push(at);
    last = at;
  }
};
a.src = url;
a.addEventListener("loadedmetadata", () => { a.currentTime = seekTo; ctx.resume(); a.play(); }, { once: true });
a.addEventListener("error", () => done({ error: String(a.error && a.error.message) }), { once: true });
setTimeout(() => { a.pause(); ctx.close(); done({ marks, onsets, duration: a.duration }); }, seconds * 1000);
"""


def heard_onsets(driver, url: str, seek_s: float, listen_s: float = 2.0) -> list[float]:
    """Onsets (ms of the element's time) Chromium plays from `url` within `listen_s` after seeking
    to `seek_s`."""
    result = driver.execute_async_script(LISTEN, url, seek_s, listen_s)
    assert "error" not in result, result
    playing = [(context, element) for context, element, paused in result["marks"] if not paused and element > seek_s + 0.05]
    assert len(playing) > 10, "the element did not play"
    offset = statistics.median(element - context for context, element in playing)
    return [(at + offset) * 1000 for at in result["onsets"]]


def open_plain(driver, server, worker: bool = False) -> None:
    """`driver` on a page of `server`: the plain document, or (`worker`) the page itself once its
    service worker controls it."""
    if not worker:
        driver.get(server.url + PLAIN_PAGE)
        return
    driver.get(server.url)
    wait_for(driver, "navigator.serviceWorker && navigator.serviceWorker.controller", 20)


def lateness_ms(driver, url: str, cues_ms: list[int], before_ms: int = 1000) -> list[float]:
    """For each cue: seek `before_ms` before it, and how late (ms) its first sound is heard."""
    late = []
    for cue in cues_ms:
        onsets = heard_onsets(driver, url, (cue - before_ms) / 1000)
        near = [at - cue for at in onsets if abs(at - cue) < 300]
        assert near, f"nothing heard near {cue} ms"
        late.append(near[0])
    return late
