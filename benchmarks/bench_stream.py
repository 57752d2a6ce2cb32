"""Benchmark of the sound the page plays (serve/sound/mp3stream.py, serve/sound/cache.py), with a real
server on loopback and Debian's headless chromium.

    python benchmarks/bench_stream.py                  # every measure below
    python benchmarks/bench_stream.py --missions 1 2   # bytes per mission of these only
    python benchmarks/bench_stream.py --peaks          # only the true peak and loudness of the stream

Measures (targets from issue 25):
- bytes a sound device downloads per mission (the whole mp3 as served), and per 10 minutes:
  at most about 5 MB per 10-minute mission (the page streamed a 53 MB WAV before);
- from an empty folder of sound files: request to the first 10 KB (the encoder has just
  started), and to the whole file (the encoding of a whole mission);
- the same file again, from the folder (another game, another worker, after a restart);
- speech kept: the error of the decoded mp3 against the mix in the speech band (below 8 kHz,
  where intelligibility lies) over every spoken window of mission 1, at the served 48 kbit/s
  and, for comparison, at 32 and 64 kbit/s (the same encoder and settings);
- peaks (`--peaks`: nothing else): the true peak and the loudness of the decoded stream of each
  mission in English, German and Spanish (each language's default voice), with the mix's peaks
  held under mp3stream.CEILING_DBFS and, for comparison, not held: the renders promise -1 dBTP
  and -16 LUFS (-15 to -17);
- timing in Chromium: each cue heard after a seek, the mp3 against the WAV of the same mix
  (median of 8 seeks each; the difference is the mp3's own error); and the first cue heard
  from the very start, without a seek (median of 4); the mp3 also through the page's service
  worker (which relays the same bytes). The others are measured from a document of the server
  that is not the page, so no worker is in the way.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
import wave
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import numpy as np
from heard import lateness_ms, open_plain
from serving import LAPTOP, chromium, start_server

TEN_MINUTES_MS = 600_000


def new_game(server, track: str, **settings) -> dict:
    reply = server.request("/api/games", method="POST", json_body={"track": track, "settings": settings})
    assert reply.status == 200, reply.body
    return reply.json()


def speech_snr_db(mix: np.ndarray, decoded: np.ndarray, spans: list[tuple[int, int]]) -> float:
    """Signal to error (dB) below 8 kHz over the spoken spans (samples at 44.1 kHz)."""
    signal = error = 0.0
    for start, end in spans:
        a, b = mix[start:end], decoded[start:end]
        spectrum_a, spectrum_b = np.fft.rfft(a), np.fft.rfft(b)
        band = np.fft.rfftfreq(len(a), 1 / 44_100) < 8000
        signal += float(np.sum(np.abs(spectrum_a[band]) ** 2))
        error += float(np.sum(np.abs(spectrum_a[band] - spectrum_b[band]) ** 2))
    return 10 * np.log10(signal / error)


def lame_at(pcm: bytes, kbps: int) -> np.ndarray:
    """The mix through LAME at `kbps` as the stream does it (48 kHz mono, fed ahead by its delay),
    decoded back to 44.1 kHz."""
    import lameenc

    from timekeeper.audio.codec import LAME_QUALITY
    from timekeeper.serve.sound.mp3stream import LEAD, RATE, at_rate

    encoder = lameenc.Encoder()
    encoder.set_bit_rate(kbps)
    encoder.set_in_sample_rate(RATE)
    encoder.set_out_sample_rate(RATE)
    encoder.set_channels(1)
    encoder.set_quality(LAME_QUALITY)
    encoder.silence()
    data = bytes(encoder.encode(b"".join(at_rate([pcm]))[LEAD * 2 :])) + bytes(encoder.flush())
    return decoded_mp3(data)


def decoded_mp3(data: bytes) -> np.ndarray:
    import av

    resampler = av.AudioResampler(format="dbl", layout="mono", rate=44_100)
    parts = []
    with av.open(io.BytesIO(data), format="mp3") as container:
        for frame in container.decode(audio=0):
            parts += [out.to_ndarray().reshape(-1) for out in resampler.resample(frame)]
    parts += [out.to_ndarray().reshape(-1) for out in resampler.resample(None)]
    return np.concatenate(parts)


def peaks(missions: list[int], languages: tuple[str, ...] = ("en", "de", "es")) -> dict[str, object]:
    """The decoded stream's true peak (dBTP) and integrated loudness (LUFS) per mission and language,
    with the mix's peaks held under CEILING_DBFS and not."""
    from timekeeper.audio.loudness import integrated_lufs, true_peak_dbtp
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.serve.sound.mp3stream import CEILING_DBFS, encoded
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    rows: dict[str, object] = {}
    for language in languages:
        for number in missions:
            mix = prepare_mix(load_scenario(f"mission-{number}"), MixSettings(language=language))
            row = []
            for ceiling in (None, CEILING_DBFS):
                decoded = decoded_mp3(b"".join(encoded(mix.pcm(ceiling_dbfs=ceiling), mix.n_samples)))
                row.append(f"{'held' if ceiling else 'not held'}: {true_peak_dbtp(decoded):+.2f} dBTP, "
                           f"{integrated_lufs(decoded):.2f} LUFS")
            rows[f"mission {number} ({language})"] = " | ".join(row)
            print(f"mission {number} ({language}): {rows[f'mission {number} ({language})']}", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--missions", nargs="+", type=int, default=list(range(1, 9)), help="missions to measure (default 1-8)")
    parser.add_argument("--peaks", action="store_true", help="measure only the stream's true peak and loudness")
    args = parser.parse_args()
    if args.peaks:
        print(json.dumps(peaks(args.missions), indent=2))
        return
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        sound = Path(folder) / "sound"
        server = start_server(Path(folder) / "state", "--sound-cache", str(sound))
        try:
            sizes = {}
            first_s, whole_s = [], []
            for number in args.missions:
                game = new_game(server, f"builtin:mission-{number}")
                url = game["sound"]["url"]
                asked = time.perf_counter()
                assert server.request(url, headers={"Range": "bytes=0-10239"}).status == 206
                first_s.append(time.perf_counter() - asked)
                body = server.request(url).body
                whole_s.append(time.perf_counter() - asked)
                sizes[number] = (len(body), game["timeline"]["duration_ms"])
                print(f"mission {number}: {len(body):,} bytes, {game['timeline']['duration_ms'] / 1000:.0f} s", file=sys.stderr)
            again = new_game(server, f"builtin:mission-{args.missions[0]}")  # another game, the same mix
            asked = time.perf_counter()
            server.request(again["sound"]["url"])
            kept_s = time.perf_counter() - asked
            game = new_game(server, "builtin:mission-1", background=False)
            wav = server.request(f"/api/games/{game['id']}/sound.wav").body
            mp3 = server.request(game["sound"]["url"]).body
            cues = [cue["at_ms"] for cue in game["timeline"]["cues"][1:5]]
            late, start = {}, {}
            first_cue = game["timeline"]["cues"][0]["at_ms"]  # the lead-in's end: heard from the start, no seek
            for name, url, worker in (("wav", f"/api/games/{game['id']}/sound.wav", False),
                                      ("mp3", game["sound"]["url"], False), ("mp3 through the page's worker", game["sound"]["url"], True)):
                driver = chromium(LAPTOP)
                try:
                    open_plain(driver, server, worker)
                    late[name] = lateness_ms(driver, url, cues + cues)
                    start[name] = lateness_ms(driver, url, [first_cue] * 4, before_ms=first_cue)
                finally:
                    driver.quit()
        finally:
            server.stop()
    with wave.open(io.BytesIO(wav)) as reading:
        pcm = reading.readframes(reading.getnframes())
    mix = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768
    spans = [(cue["at_ms"] * 441 // 10, (cue["end_ms"]) * 441 // 10) for cue in game["timeline"]["cues"] if cue["speech"]]
    served = decoded_mp3(mp3)
    per_ten = [size / (duration / TEN_MINUTES_MS) for size, duration in sizes.values()]
    figures["bytes per mission, MB (min, max)"] = (round(min(s for s, _ in sizes.values()) / 1e6, 2),
                                                    round(max(s for s, _ in sizes.values()) / 1e6, 2))
    figures["bytes per 10 minutes of mission, MB (max)"] = round(max(per_ten) / 1e6, 2)
    figures["empty sound folder: request -> first 10 KB, s (max)"] = round(max(first_s), 3)
    figures["empty sound folder: request -> whole file, s (median, max)"] = (round(statistics.median(whole_s), 2),
                                                                            round(max(whole_s), 2))
    figures["the same mix again (another game): whole file, s"] = round(kept_s, 3)
    figures["speech band (< 8 kHz) signal to error, dB: served 48 kbit/s"] = round(speech_snr_db(mix, served, spans), 1)
    for kbps in (32, 64):
        figures[f"speech band signal to error, dB: {kbps} kbit/s"] = round(speech_snr_db(mix, lame_at(pcm, kbps), spans), 1)
    figures["Chromium, cue heard after a seek vs the element's clock, ms (median wav, median mp3)"] = (
        round(statistics.median(late["wav"]), 1), round(statistics.median(late["mp3"]), 1))
    figures["Chromium: mp3 later than the wav, ms (median)"] = round(statistics.median(late["mp3"]) - statistics.median(late["wav"]), 1)
    figures["Chromium, from the start (no seek): mp3 later than the wav, ms (median of 4)"] = round(
        statistics.median(start["mp3"]) - statistics.median(start["wav"]), 1)
    relayed = "mp3 through the page's worker"
    figures["Chromium, the mp3 through the page's service worker: later than the wav after a seek / from the start, ms"] = (
        round(statistics.median(late[relayed]) - statistics.median(late["wav"]), 1),
        round(statistics.median(start[relayed]) - statistics.median(start["wav"]), 1))
    for name, value in figures.items():
        print(f"{name:<82} {value}")
    if os.environ.get("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
