"""Soundtrack downloads are rendered in a child process at a lower CPU priority
(timekeeper/serve/sound/render_child.py): the file is the one `render` makes, progress comes back, and a
child that dies fails its job with one readable message and leaves no file."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from pathlib import Path

from decoded import RATE, decode
from processes import children, command_line

from timekeeper.environment import Environment, current, using
from timekeeper.scenario.catalog import load_scenario
from timekeeper.serve.sound.mixes import RenderJob
from timekeeper.serve.sound.render_child import RENDER_NICE, render_in_child
from timekeeper.soundtrack.mix import MixSettings, prepare_mix


def render_children_of(pid: int) -> list[int]:
    """`pid`'s children started by multiprocessing's "spawn" (render children, as serve/sound/render_child.py starts them)."""
    return [child for child in children(pid) if b"multiprocessing" in (command := command_line(child)) and b"spawn_main" in command]


def niceness(pid: int) -> int:
    stat = (Path("/proc") / str(pid) / "stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])


def test_a_render_runs_in_a_child_at_lower_priority_and_reports_progress(tmp_path):
    scenario = load_scenario("test-run-1")
    job, settings = RenderJob("t", tmp_path / "t.ogg"), MixSettings(background=False)
    seen: list[tuple[int, int]] = []
    fresh = replace(current(), cache=tmp_path / "cache")  # the server's environment is the child's
    worker = threading.Thread(target=lambda: render_with(fresh, job, scenario, settings))
    worker.start()
    nice_seen = []
    deadline = time.monotonic() + 120
    while worker.is_alive() and time.monotonic() < deadline:
        for child in render_children_of(os.getpid()):
            try:
                nice_seen.append(niceness(child) - os.getpriority(os.PRIO_PROCESS, 0))
            except OSError:
                pass  # it ended meanwhile
        seen.append((job.done, job.total))
        time.sleep(0.05)
    worker.join(1)
    assert job.finished and job.error is None, job
    assert nice_seen and max(nice_seen) == RENDER_NICE  # the child, once it lowered its priority
    assert any(0 < done < total for done, total in seen), seen  # progress came back while it ran
    heard_ms = len(decode(job.path)) * 1000 / RATE
    assert abs(heard_ms - prepare_mix(scenario, settings).duration_ms) < 100  # the whole mix, as `render` makes it
    assert sorted(tmp_path.iterdir()) == [tmp_path / "cache", job.path]  # no temporary file left beside it
    assert list((tmp_path / "cache").rglob("*.wav"))  # the child synthesized into the server's clip cache


def render_with(environment: Environment, job: RenderJob, scenario, settings: MixSettings) -> None:
    with using(environment):
        render_in_child(job, scenario, settings, "test-run-1")


def test_a_child_that_dies_fails_its_job_and_leaves_no_file(tmp_path):
    scenario = load_scenario("mission-1")
    job = RenderJob("k", tmp_path / "k.mp3")
    worker = threading.Thread(target=render_in_child, args=(job, scenario, MixSettings(), "mission-1"))
    worker.start()
    deadline = time.monotonic() + 60
    while not job.done and time.monotonic() < deadline:  # killed mid-encode
        time.sleep(0.02)
    for child in render_children_of(os.getpid()):  # (not the browsers the test process keeps: serving.BrowserPool)
        os.kill(child, 9)
    worker.join(30)
    assert job.finished and job.error is not None
    assert "render process stopped" in job.error and "exit code -9" in job.error
    assert not job.path.exists()
