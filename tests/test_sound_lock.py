"""Who makes a page sound file when workers on several machines share the sound folder
(serve/sound/maker_lock.py): a real `redis-server` on loopback and two SoundCache instances, as two
workers hold them, on one folder where flock is made unable to exclude (as over NFS)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realparts import needs
from scaleout import free_port

from timekeeper.serve.sound import cache as soundcache
from timekeeper.serve.sound.cache import SoundCache
from timekeeper.serve.sound.maker_lock import LockUnavailable, SoundLocks

pytestmark = needs("redis-server")


@pytest.fixture(scope="module")
def mix():
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    return prepare_mix(load_scenario("test-run-1"), MixSettings(background=False))


@pytest.fixture
def no_flock(monkeypatch):
    """flock that excludes nobody, as on a network file system shared by several machines."""
    monkeypatch.setattr(soundcache.fcntl, "flock", lambda fd, operation: None)


def reference(tmp_path: Path, mix) -> bytes:
    """The file as one maker alone makes it."""
    alone = SoundCache(tmp_path / "alone")
    sound = alone.file("k", mix)
    assert alone._write(sound, mix) is True
    return sound.path.read_bytes()


def test_without_flock_two_workers_would_both_write(tmp_path, mix, no_flock):
    """(What the Redis lock is for: with flock unable to exclude, each worker starts the file.)"""
    a, b = SoundCache(tmp_path), SoundCache(tmp_path)
    sound = a.file("k", mix)
    writers = [a._writing(sound, mix), b._writing(sound, mix)]
    for writer in writers:
        next(writer)  # yields: it is writing (it would have returned False if it saw another maker)
    for writer in writers:
        writer.close()


def test_with_redis_exactly_one_of_two_workers_writes(tmp_path, mix, redis_url, no_flock):
    caches = [SoundCache(tmp_path / "shared", locks=SoundLocks(redis_url)) for _ in range(2)]
    sound = caches[0].file("k", mix)
    (tmp_path / "shared").mkdir()
    start = threading.Barrier(2)
    written: list[bool] = []

    def make(cache: SoundCache) -> None:
        start.wait(10)
        written.append(cache._write(sound, mix))

    threads = [threading.Thread(target=make, args=(cache,)) for cache in caches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(written) == [False, True]
    assert sound.path.read_bytes() == reference(tmp_path, mix)
    assert not sound.part.exists()
    assert not caches[0].locks.held(sound.key)  # released once complete
    assert caches[1]._write(sound, mix) is False  # complete: made by nobody again


def test_a_maker_whose_lock_expires_is_taken_over(tmp_path, mix, redis_url, no_flock):
    folder = tmp_path / "shared"
    dying, taking = (SoundCache(folder, locks=SoundLocks(redis_url, ttl_s=1.0)) for _ in range(2))
    sound = dying.file("k", mix)
    first = dying._writing(sound, mix)
    for _ in range(8):
        next(first)  # writes a few seconds of sound, then stops (its process hangs or dies)
    assert sound.part.stat().st_size > 0
    assert taking._write(sound, mix) is False  # its lock is held (flock excludes nobody here)
    time.sleep(1.5)  # not renewed: expired
    assert taking._write(sound, mix) is True
    made = sound.path.read_bytes()
    assert made == reference(tmp_path, mix)
    with pytest.raises(StopIteration) as over:  # the first maker wakes up: its lock is gone, it writes no more
        while True:
            next(first)
    assert over.value.value is False
    assert sound.path.read_bytes() == made and not sound.part.exists()


def test_a_stale_part_file_whose_maker_holds_the_lock_is_not_evicted(tmp_path, redis_url):
    locks = SoundLocks(redis_url)
    cache = SoundCache(tmp_path, locks=locks)
    stale = tmp_path / "x.mp3.part"
    stale.write_bytes(bytes(10))
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    held = locks.take("x")  # a maker on another machine (its flock unseen here)
    assert held is not None
    assert cache.evict() == [] and stale.exists()
    held.release()
    assert cache.evict() == [stale] and not stale.exists()


def test_redis_unreachable_is_a_clear_failure_of_the_sound(tmp_path, mix, capsys):
    cache = SoundCache(tmp_path, locks=SoundLocks(f"redis://127.0.0.1:{free_port()}/0"))
    sound = cache.file("k", mix)
    with pytest.raises(LockUnavailable):
        cache._write(sound, mix)
    cache.start("k", mix)  # as a game asks for it: the failure is what its players are told
    deadline = time.monotonic() + 10
    while cache.failure(sound.key) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    cache.shutdown()
    failure = cache.failure(sound.key) or ""  # what the players are told: in their terms, without Redis's address
    assert "game store cannot be reached" in failure and "Redis" not in failure and "127.0.0.1" not in failure
    assert not sound.path.exists()
    assert "the sound's lock (Redis) cannot be reached" in capsys.readouterr().err  # the terminal says it
