"""The sound the page plays (serve/sound/mp3stream.py, serve/sound/cache.py): a real server on loopback,
its mp3 decoded by PyAV (FFmpeg's decoder, not LAME that wrote it) and compared with the mix."""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode
from processes import holder_of_lock
from serving import start_server
from waiting import wait_until

from timekeeper.audio.loudness import integrated_lufs, true_peak_dbtp
from timekeeper.serve.sound import mp3stream
from timekeeper.serve.sound.cache import SoundCache, SoundFile

BUDGET_PER_10_MIN = 5_000_000  # bytes a sound device may download per 10-minute mission (issue 25)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("state"), "--sound-cache", str(tmp_path_factory.mktemp("sound")))
    yield running
    assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)


def new_game(server, track="builtin:mission-1", **settings) -> dict:
    reply = server.request("/api/games", method="POST", json_body={"track": track, "settings": settings})
    assert reply.status == 200, reply.body
    return reply.json()


def onset_ms(samples: np.ndarray, from_ms: int, threshold: float = 0.02) -> float:
    """Where sound first rises above `threshold` at or after `from_ms` (ms, to a sample)."""
    start = from_ms * RATE // 1000
    loud = np.flatnonzero(np.abs(samples[start:]) > threshold)
    assert len(loud), f"no sound after {from_ms} ms"
    return (start + loud[0]) * 1000 / RATE


def lag_ms(heard: np.ndarray, meant: np.ndarray, from_ms: int, length_ms: int = 500, reach_ms: int = 30) -> float:
    """How much later (ms) `heard` has the sound `meant` has from `from_ms`: the best cross-correlation
    within `reach_ms` (an onset alone would be fooled by the mp3's pre-echo)."""
    start, length, reach = (from_ms * RATE // 1000, length_ms * RATE // 1000, reach_ms * RATE // 1000)
    window = meant[start : start + length]
    scores = [float(np.dot(window, heard[start + lag : start + lag + length])) for lag in range(-reach, reach + 1)]
    return (int(np.argmax(scores)) - reach) * 1000 / RATE


def test_the_page_plays_the_mix_as_an_mp3_within_the_budget_with_every_cue_on_time(server, tmp_path):
    game = new_game(server, background=False)  # silence before each cue: its onset is measurable
    sound = game["sound"]
    assert sound["type"] == "audio/mpeg" and sound["url"].startswith(f"/api/games/{game['id']}/sound/")
    full = server.request(sound["url"])
    assert full.status == 200 and full.headers["Content-Type"] == "audio/mpeg"
    assert full.headers["Accept-Ranges"] == "bytes" and full.headers["ETag"].strip('"') in sound["url"]
    assert len(full.body) == sound["bytes"] == int(full.headers["Content-Length"])
    duration_ms = game["timeline"]["duration_ms"]
    assert len(full.body) / (duration_ms / 600_000) < BUDGET_PER_10_MIN  # 3.6 MB per 10 minutes
    served = tmp_path / "served.mp3"
    served.write_bytes(full.body)
    mp3 = decode(served)
    reference = tmp_path / "mix.wav"
    reference.write_bytes(server.request(f"/api/games/{game['id']}/sound.wav").body)
    mix = decode(reference)
    assert len(mix) <= len(mp3) <= len(mix) + RATE * 48 // 1000  # the mix, then at most two silent frames
    spoken = [cue for cue in game["timeline"]["cues"] if cue["speech"]]
    timed = 0
    for cue in spoken:
        start = min([cue["at_ms"], *(part["at_ms"] for part in cue["sounds"])])
        assert abs(lag_ms(mp3, mix, start - 50)) < 0.1, cue["text"]  # where the mix has it, to the sample
        if np.max(np.abs(mix[(start - 200) * RATE // 1000 : (start - 2) * RATE // 1000])) > 0.02:
            continue  # static of an outage before it: no onset to find
        meant = onset_ms(mix, start - 200)
        assert start - 1 <= meant <= start + 30, (cue["text"], meant)  # ... which is at the cue's time
        assert abs(onset_ms(mp3, start - 200) - meant) < 12, cue["text"]  # (an mp3's pre-echo: up to 576 samples)
        timed += 1
    assert timed > 10
    window = slice(10 * RATE, 60 * RATE)  # the speech band of the first threats: LAME keeps the words
    error = mp3[window] - mix[window]
    assert 10 * np.log10(np.sum(mix[window] ** 2) / np.sum(error**2)) > 10
    # a phone's speaker does not clip: the renders' promises hold for the stream (LAME at 48 kbit/s
    # raised the mix's peaks above 0 dBTP before they were held under mp3stream.CEILING_DBFS)
    assert true_peak_dbtp(mp3) <= -1.0 and -17.0 <= integrated_lufs(mp3) <= -15.0


def test_byte_ranges_resume_and_impossible_ranges(server):
    game = new_game(server, "builtin:test-run-1")
    url, size = game["sound"]["url"], game["sound"]["bytes"]
    full = server.request(url).body
    middle = server.request(url, headers={"Range": "bytes=100000-100143"})
    assert middle.status == 206 and middle.body == full[100_000:100_144]
    assert middle.headers["Content-Range"] == f"bytes 100000-100143/{size}"
    resumed = server.request(url, headers={"Range": f"bytes={size // 2}-"})  # a download resumed mid-file
    assert resumed.status == 206 and resumed.body == full[size // 2 :]
    tail = server.request(url, headers={"Range": "bytes=-128"})
    assert tail.body == full[-128:] and tail.body.startswith(b"TAG")
    etag = server.request(url, headers={"Range": "bytes=0-0"}).headers["ETag"]
    kept = server.request(url, headers={"Range": "bytes=10-19", "If-Range": etag})
    assert kept.status == 206 and kept.body == full[10:20]
    changed = server.request(url, headers={"Range": "bytes=10-19", "If-Range": '"another"'})
    assert changed.status == 200 and changed.body == full  # another file was being resumed: all of this one
    for impossible in (f"bytes={size}-", "bytes=-0", "bytes=20-10", "bytes=a-b"):
        refused = server.request(url, headers={"Range": impossible})
        assert refused.status == 416 and refused.headers["Content-Range"] == f"bytes */{size}", impossible
    assert server.request(url, headers={"Range": "items=0-1"}).body == full  # another unit: the whole file
    past = server.request(url, headers={"Range": f"bytes={size - 10}-{size * 100}"})  # past the end: clamped
    assert past.status == 206 and past.body == full[-10:]
    head = server.request(url, method="HEAD")
    assert head.status == 200 and head.body == b"" and int(head.headers["Content-Length"]) == size
    other = new_game(server, "builtin:test-run-1", players=4)["sound"]["url"]
    stale = f"/api/games/{game['id']}/sound/{other.rsplit('/', 1)[1]}"
    assert other != url and server.request(stale).status == 404  # a key that is not this game's sound
    assert server.request(f"/api/games/{game['id']}/sound/..%2Fx.mp3").status in (400, 404)


def wait_for_file(path: Path, timeout_s: float = 30.0) -> None:
    """Wait until the complete sound file is there: its last bytes (a fixed tag) can be served
    before its maker (the server's encoder child, at a lower priority) has renamed it."""
    deadline = time.monotonic() + timeout_s
    while not path.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.is_file(), f"{path.name} was not completed within {timeout_s:.0f} s"


def test_the_sound_is_served_while_it_is_made_and_shared_and_kept(tmp_path):
    cache = tmp_path / "sound"
    running = start_server(tmp_path / "state", "--sound-cache", str(cache))
    try:
        game = new_game(running)
        url = game["sound"]["url"]
        part = cache / (url.rsplit("/", 1)[1] + ".part")
        maker = wait_until(lambda: part.is_file() and part.stat().st_size >= 10_000 and holder_of_lock(part), 60,
                           "the encoder's first 10,000 bytes")
        os.kill(maker, signal.SIGSTOP)  # the file stays unfinished (however fast the encoder is) while it is asked for
        try:
            first = running.request(url, headers={"Range": "bytes=0-9999"})  # (its time: benchmarks/bench_stream.py)
            assert first.status == 206 and len(first.body) == 10_000
            assert sorted(path.name for path in cache.iterdir()) == [part.name]  # answered from the file still being made
        finally:
            os.kill(maker, signal.SIGCONT)
        late = running.request(url, headers={"Range": f"bytes={game['sound']['bytes'] - 150_000}-"})  # near the end
        assert late.status == 206 and len(late.body) == 150_000
        whole = running.request(url).body
        assert whole[:10_000] == first.body and whole[-150_000:] == late.body
        wait_for_file(cache / url.rsplit("/", 1)[1])
        again = new_game(running)  # another game of the same track and settings: the same file
        assert again["id"] != game["id"] and again["sound"]["url"].rsplit("/", 1)[1] == url.rsplit("/", 1)[1]
        different = new_game(running, players=4)["sound"]["url"].rsplit("/", 1)[1]
        assert different != url.rsplit("/", 1)[1]
    finally:
        assert running.stop() == 130
    made = cache / url.rsplit("/", 1)[1]
    stamp = made.stat().st_ino, made.stat().st_size
    running = start_server(tmp_path / "state", "--sound-cache", str(cache))  # restarted: the file is reused
    try:
        assert running.request(url).body == whole
        assert (made.stat().st_ino, made.stat().st_size) == stamp  # not made again
    finally:
        assert running.stop() == 130


def test_two_servers_on_one_folder_serve_the_same_bytes(tmp_path):
    cache = tmp_path / "sound"
    servers = [start_server(tmp_path / f"state{i}", "--sound-cache", str(cache)) for i in range(2)]
    try:
        games = [new_game(running, "builtin:test-run-1") for running in servers]
        assert games[0]["sound"]["url"].rsplit("/", 1)[1] == games[1]["sound"]["url"].rsplit("/", 1)[1]
        bodies: list[bytes] = [b"", b""]

        def fetch(index: int) -> None:
            bodies[index] = servers[index].request(games[index]["sound"]["url"]).body

        threads = [threading.Thread(target=fetch, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert bodies[0] == bodies[1] and len(bodies[0]) == games[0]["sound"]["bytes"]
        wait_for_file(cache / games[0]["sound"]["url"].rsplit("/", 1)[1])
        assert [path.suffix for path in cache.iterdir()] == [".mp3"]
    finally:
        for running in servers:
            assert running.stop() == 130


def test_a_sound_folder_that_cannot_be_written_gets_a_clear_503(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    running = start_server(tmp_path / "state", "--sound-cache", str(blocked / "sound"))
    try:
        game = new_game(running, "builtin:test-run-1")
        reply = running.request(game["sound"]["url"])
        assert reply.status == 503 and reply.json()["code"] == "sound_unavailable"
        assert "the sound cannot be made now" in reply.json()["error"] and reply.headers["Retry-After"]
    finally:
        assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)


# --- the cache folder itself ----------------------------------------------------------------
def sound_file(folder: Path, key: str, size: int = 1000) -> SoundFile:
    return SoundFile(key, folder / f"{key}.mp3", size)


def test_the_least_recently_served_files_go_first_beyond_the_limit(tmp_path):
    cache = SoundCache(tmp_path, limit_bytes=2500)
    now = time.time()
    for age, key in enumerate(["c", "b", "a"]):  # a is the oldest
        path = tmp_path / f"{key}.mp3"
        path.write_bytes(bytes(1000))
        os.utime(path, (now - 100 * age, now - 100 * age))
    os.utime(tmp_path / "a.mp3", (now + 10, now + 10))  # ... but was served last
    assert cache.evict() == [tmp_path / "b.mp3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.mp3", "c.mp3"]


def test_an_abandoned_part_file_is_removed_but_not_one_being_written(tmp_path):
    cache = SoundCache(tmp_path)
    abandoned, writing = tmp_path / "x.mp3.part", tmp_path / "y.mp3.part"
    for path in (abandoned, writing):
        path.write_bytes(bytes(10))
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    with open(writing, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as its maker holds it
        assert cache.evict() == [abandoned]
    assert writing.exists()


@pytest.mark.full(reason="makes a real mp3 while another maker holds the lock")
def test_a_file_locked_by_another_maker_is_not_made_twice(tmp_path):
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    mix = prepare_mix(load_scenario("test-run-1"), MixSettings(background=False))
    cache = SoundCache(tmp_path)
    sound = cache.file("k", mix)
    tmp_path.mkdir(exist_ok=True)
    with open(sound.part, "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another worker makes it
        assert cache._write(sound, mix) is False and sound.part.stat().st_size == 0
    assert cache._write(sound, mix) is True  # its maker died (the lock is free): made here
    assert sound.path.stat().st_size == sound.size == mp3stream.stream_size(mix.n_samples)
    assert not sound.part.exists()
    made = sound.path.stat().st_mtime_ns
    assert cache._write(sound, mix) is False and not sound.part.exists()  # complete: not made again
    assert sound.path.stat().st_mtime_ns == made
    with wave.open(str(tmp_path / "check.wav"), "wb") as out:  # the decoded file is the mix
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(mix.pcm()))
    heard, meant = decode(sound.path), decode(tmp_path / "check.wav")
    for cue in mix.timeline.cues[1:4]:
        assert abs(lag_ms(heard, meant, cue.at_ms - 50)) < 0.1


def test_a_hosted_server_sends_the_mp3_and_not_the_wav(tmp_path):
    running = start_server(tmp_path / "state", "--public", "--sound-cache", str(tmp_path / "sound"))
    try:
        game = new_game(running, "builtin:test-run-1")
        wav = running.request(f"/api/games/{game['id']}/sound.wav")
        assert wav.status == 404 and "mp3 only" in wav.json()["error"]  # 53 MB mixed per request: not offered
        mp3 = running.request(game["sound"]["url"], headers={"Range": "bytes=0-143"})
        assert mp3.status == 206 and mp3.body[:2] == mp3stream.HEADER[:2] and b"Info" in mp3.body
    finally:
        assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)
