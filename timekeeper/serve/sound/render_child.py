"""Soundtrack downloads rendered in a child process of their own, at a lower CPU priority.

An encode is seconds of CPU (the mix's numpy work and the codec, much of it holding Python's
global lock): on a thread of the serving process it delays every answer and WebSocket message
behind it. A child process (started with "spawn", the same on every system) prepares the mix
in the server's environment (environment.py: the same clip cache, voices and engines), encodes it to the job's file (replaced only when
complete, render.encode) and sends its progress back through a pipe, which a thread of the
server's render queue reads into the RenderJob the page polls. A child that dies (killed, out of
memory) fails its job with one readable message; the server goes on. Children end with the
server (serve/sound/children.py): a running one is stopped when the server shuts down, and its
temporary file goes with it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import time
from pathlib import Path

from timekeeper.environment import Environment, current, process_wide
from timekeeper.model import Scenario
from timekeeper.serve.sound import children
from timekeeper.serve.sound.mixes import RenderJob
from timekeeper.soundtrack.mix import MixSettings

RENDER_NICE = 10  # how much lower than the server's the children's CPU priority is (Unix niceness)
PROGRESS_EVERY_S = 0.2  # a child reports its progress at most this often

_children: dict[multiprocessing.process.BaseProcess, RenderJob] = {}  # running children -> the job each renders
_children_guard = threading.Lock()


def render_in_child(job: RenderJob, scenario: Scenario, settings: MixSettings, source: str) -> None:
    """Render `job` in a child process and wait for it (on a thread of the render queue), copying
    its progress into `job`; `job.finished` is set when the child has ended, whatever happened."""
    context = multiprocessing.get_context("spawn")
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(writer, str(job.path), scenario, settings, source, current()),
                            name=f"timekeeper-render-{job.id[:12]}", daemon=True)
    ended = False
    try:
        with _children_guard:
            children.start(child)
            _children[child] = job
        writer.close()  # the child holds the only writing end: EOF once it has ended
        while True:
            try:
                kind, *values = reader.recv()
            except (EOFError, OSError):
                break
            if kind == "progress":
                job.done, job.total = values
            elif kind == "ended":
                job.error, ended = values[0], True
        child.join()
        if not ended:
            job.error = f"the soundtrack could not be made: its render process stopped (exit code {child.exitcode})"
    finally:
        reader.close()
        with _children_guard:
            _children.pop(child, None)
        job.finished = True


def stop_children(job_ids: set[str] | None = None) -> None:
    """Stop the render children of the jobs `job_ids` (None: every one still running, the server is
    shutting down): each is told to stop and removes its temporary file; one that had to be killed
    leaves its file, removed here."""
    with _children_guard:
        running = {child: job for child, job in _children.items() if job_ids is None or job.id in job_ids}
    children.stop(list(running))
    for job in running.values():
        for left in job.path.parent.glob(f".{job.path.name}.*.part"):  # (render.encode's temporary file, files/atomicfile.py)
            with contextlib.suppress(OSError):
                left.unlink()


def _child_main(pipe, path: str, scenario: Scenario, settings: MixSettings, source: str, environment: Environment) -> None:
    """The child: prepare and encode in the server's environment (its clip cache, voices ...), send
    ("progress", done, total) now and then and ("ended", error or None) last. Ctrl-C on the
    server's terminal is the server's to handle, not the child's; SIGTERM or SIGHUP end it, its
    temporary file removed (serve/sound/children.py)."""
    children.as_child(RENDER_NICE)
    children.run_quietly(lambda: _render_and_tell(pipe, path, scenario, settings, source, environment))


def _render_and_tell(pipe, path: str, scenario: Scenario, settings: MixSettings, source: str,
                     environment: Environment) -> None:
    error: str | None
    try:
        with process_wide(environment):  # (the mix levels clips on threads of its own)
            error = _render(pipe, Path(path), scenario, settings, source)
    except Exception as problem:  # a bug: one line for the page, never a traceback on the server's terminal
        error = f"the soundtrack could not be made ({type(problem).__name__})"
    with contextlib.suppress(OSError):  # the server went away: nobody is waiting
        pipe.send(("ended", error))
        pipe.close()


def _render(pipe, path: Path, scenario: Scenario, settings: MixSettings, source: str) -> str | None:
    from timekeeper.errors import TimekeeperError
    from timekeeper.serve.sound.mixes import run_render
    from timekeeper.soundtrack.mix import prepare_mix

    sent_at = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - sent_at[0] >= PROGRESS_EVERY_S or done >= total:
            sent_at[0] = now
            pipe.send(("progress", done, total))

    job = RenderJob("child", path)
    try:
        mix = prepare_mix(scenario, settings, background=True)
    except TimekeeperError as problem:
        return problem.detail
    run_render(job, mix, scenario, source, progress)
    return job.error
