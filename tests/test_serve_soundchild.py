"""The page's sound files made by the server's encoder child (serve/sound/encoder_child.py): a real
spawned process at a lower CPU priority makes the same bytes a SoundCache makes on threads, is
started again when it dies, fails a file that killed it twice with one readable line, and ends
with the server however the server ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from processes import holder_of_lock
from waiting import wait_until

from timekeeper.serve.sound.cache import SoundCache
from timekeeper.serve.sound.encoder_child import ENCODER_NICE, ChildSoundCache

pytestmark = pytest.mark.full(reason="spawns the encoder process, which prepares and encodes a real mix")


@pytest.fixture(scope="module")
def mix():
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    return prepare_mix(load_scenario("test-run-1"), MixSettings(background=False))


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_the_child_makes_the_same_file_at_a_lower_priority(tmp_path, mix):
    alone = SoundCache(tmp_path / "threads")
    reference = alone.file("k", mix)
    assert alone._write(reference, mix) is True

    cache = ChildSoundCache(tmp_path / "child", 10**9)
    try:
        sound = cache.start("k", mix)
        holder = wait_until(lambda: sound.part.exists() and holder_of_lock(sound.part), what="the maker's lock")
        assert holder != os.getpid()  # another process makes it ...
        assert niceness(holder) == niceness(os.getpid()) + ENCODER_NICE  # ... at a lower priority
        wait_until(sound.path.exists, what="the complete file")
        assert sound.path.read_bytes() == reference.path.read_bytes()
        wait_until(lambda: not cache.making(sound.key), 5, "the child to tell the job is over")
        assert cache.failure(sound.key) is None
        assert cache.start("k", mix) == sound  # complete: not made again
        assert not cache.making(sound.key)
    finally:
        cache.shutdown()
    child = cache._child
    assert child is None or not child.is_alive(), f"{child} {Path(f'/proc/{child.pid}/stat').read_text()}"


def test_a_child_that_dies_is_started_again_and_a_file_that_killed_it_twice_fails(tmp_path, mix):
    cache = ChildSoundCache(tmp_path, 10**9)
    try:
        sound = cache.start("k", mix)
        first = wait_until(lambda: sound.part.exists() and holder_of_lock(sound.part), what="the first maker")
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: not cache.making(sound.key), 10, "the dead child's job to be forgotten")
        assert cache.failure(sound.key) is None  # once: asked again, it is made again
        cache.start("k", mix)
        second = wait_until(lambda: sound.part.exists() and holder_of_lock(sound.part), what="the second maker")
        assert second != first
        os.kill(second, signal.SIGKILL)
        wait_until(lambda: cache.failure(sound.key), 10, "the failure")
        assert cache.failure(sound.key) == "its encoder process stopped (exit code -9)"
        assert not sound.path.exists()
    finally:
        cache.shutdown()


SERVER_DIES = """
import sys, time
from pathlib import Path
from timekeeper.scenario.catalog import load_scenario
from timekeeper.serve.sound.encoder_child import ChildSoundCache
from timekeeper.soundtrack.mix import MixSettings, prepare_mix

if __name__ == "__main__":
    cache = ChildSoundCache(Path(sys.argv[1]), 10**9)
    sound = cache.start("k", prepare_mix(load_scenario("mission-1"), MixSettings(background=False)))
    print(cache._child.pid, sound.part, flush=True)
    time.sleep(60)
"""


def test_the_child_ends_when_the_server_is_killed(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(SERVER_DIES)
    server = subprocess.Popen([sys.executable, str(script), str(tmp_path / "sound")], stdout=subprocess.PIPE, text=True)
    try:
        child_pid, part = server.stdout.readline().split()
        wait_until(lambda: Path(part).exists() and holder_of_lock(Path(part)) == int(child_pid), what="the encoding")
        server.kill()  # as a worker dies: no shutdown of its own
        server.wait(10)
        wait_until(lambda: not Path(f"/proc/{child_pid}").exists() or process_state(int(child_pid)) == "Z", 15,
                   "the orphaned encoder to stop")
    finally:
        server.kill()
        server.wait(10)


def process_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_a_mix_the_child_cannot_make_alike_fails_in_one_line(tmp_path, mix):
    import dataclasses

    elsewhere = dataclasses.replace(mix, voice_name="a voice only the server has")
    cache = ChildSoundCache(tmp_path, 10**9)
    try:
        sound = cache.start("k", elsewhere)
        failed = wait_until(lambda: cache.failure(sound.key), what="the failure")
        assert failed == f"the encoder's voice is {mix.voice_name}, not the server's a voice only the server has"
        assert not cache.making(sound.key) and not sound.path.exists()
    finally:
        cache.shutdown()
