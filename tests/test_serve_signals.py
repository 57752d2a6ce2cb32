"""`timekeeper serve` stopped by a signal while it works, on a loaded machine (two busy processes
beside it, tests/cpuload.py): Ctrl-C (SIGINT to the whole process group, as a terminal sends it),
SIGTERM (a service manager: a drain, serve/web/drain.py) and SIGHUP (the terminal closed), with one
or seven soundtrack renders asked for, and with 50 screens joined and a sound stream open. Whatever
the signal: the right exit code (130 for Ctrl-C, 129 for SIGHUP, 0 for SIGTERM's graceful stop),
every screen sent a close (1001, going away) within 2 s, no temporary or .part file left in the
render and sound folders, no child process running on, and no traceback (of the server or of a
child) on the terminal."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from pathlib import Path

import pytest
from cpuload import busy_cores
from processes import command_line, family
from serving import start_server

STOP_S = 15.0  # the longest a stop may take on a loaded machine (the screens' close: 2 s)
CLOSED_S = 2.0  # every screen is sent its close within this
RENDER_SETTINGS = [{"players": players, "background": background}
                   for background, players in [(True, 1), (True, 2), (True, 3), (True, 4), (True, 5), (False, 4), (False, 5)]]


@pytest.fixture(autouse=True)
def loaded_machine():
    with busy_cores(2):
        yield


def serve(folder: Path):
    return start_server(folder / "state", "--renders", str(folder / "renders"), "--sound-cache", str(folder / "sound"),
                        own_group=True)


def new_game(server, **settings) -> dict:
    reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1", "settings": settings})
    assert reply.status == 200, reply.body
    return reply.json()


def wait_for(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout_s:.0f} s"
        time.sleep(0.1)


def left_behind(folder: Path) -> list[str]:
    """Temporary and unfinished files in the render and sound folders."""
    return sorted(path.name for place in ("renders", "sound") if (folder / place).is_dir()
                  for path in (folder / place).iterdir() if path.name.startswith(".") or path.suffix in (".part", ".tmp"))


def still_running(pids: list[int]) -> list[str]:
    """The processes of `pids` that still run (not ended, not a zombie), by command line."""
    running = []
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if "State:\tZ" not in status:
            running.append(command_line(pid).replace(b"\0", b" ")[:100].decode(errors="replace"))
    return running


def stop_with(server, signum: int, to_group: bool) -> tuple[int, float]:
    """Send `signum` (to the server's whole process group, as a terminal does, or to it alone);
    its exit status and how long it took."""
    started = time.monotonic()
    if to_group:
        os.killpg(server.process.pid, signum)
    else:
        server.process.send_signal(signum)
    try:
        status = server.process.wait(timeout=STOP_S)
    except Exception:
        server.process.kill()
        raise
    return status, time.monotonic() - started


@pytest.mark.parametrize("signum, to_group, renders", [
    (signal.SIGINT, True, 1),
    (signal.SIGTERM, False, 7),
    (signal.SIGHUP, True, 7),
    (signal.SIGHUP, False, 1),
], ids=["ctrl-c-1-render", "sigterm-7-renders", "terminal-closed-7-renders", "sighup-1-render"])
def test_a_signal_during_renders_leaves_nothing_behind(tmp_path, signum, to_group, renders):
    server = serve(tmp_path)
    try:
        games = [new_game(server, **settings) for settings in RENDER_SETTINGS[:renders]]
        for game in games:
            asked = server.request(f"/api/games/{game['id']}/renders", method="POST", json_body={"format": "ogg"})
            assert asked.status == 202, asked.body
        renders_dir = tmp_path / "renders"
        wait_for(lambda: renders_dir.is_dir() and any(p.suffix == ".part" for p in renders_dir.iterdir()), 120,
                 "render under way")
        processes = family(server.process.pid)
        assert len(processes) >= 3, "the server, its sound encoder and a render child"
        status, _took = stop_with(server, signum, to_group)
    finally:
        if server.process.poll() is None:
            server.process.kill()
        server.stop()
    output = "".join(server.output)
    assert status == {signal.SIGINT: 130, signal.SIGTERM: 0, signal.SIGHUP: 129}[signum], output
    assert "Traceback" not in output and "Error" not in output, output
    wait_for(lambda: not still_running(processes), 5, "end of every child")  # (they end with the server)
    assert left_behind(tmp_path) == []


def test_ctrl_c_with_screens_joined_and_a_sound_stream_open(tmp_path):
    import aiohttp

    server = serve(tmp_path)
    try:
        game = new_game(server)
        url = server.url.replace("http", "ws") + f"api/games/{game['id']}/ws"
        stream = socket.create_connection(("127.0.0.1", server.port), timeout=10)  # a player reading slowly
        stream.sendall(f"GET {game['sound']['url']} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        assert stream.recv(12).startswith(b"HTTP/1.1 200")

        async def scenario() -> tuple[list[float | None], list[int | None], int, list[int]]:
            async with aiohttp.ClientSession() as session:
                screens = [await session.ws_connect(url) for _ in range(50)]
                for screen in screens:
                    assert (await screen.receive_json(timeout=30))["type"] == "state"
                processes = await asyncio.to_thread(family, server.process.pid)
                started = time.monotonic()
                os.killpg(server.process.pid, signal.SIGINT)  # Ctrl-C on the server's terminal

                async def closed(screen) -> tuple[float | None, int | None]:
                    while True:
                        try:
                            message = await screen.receive(timeout=STOP_S)
                        except asyncio.TimeoutError:
                            return None, None
                        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                            return time.monotonic() - started, screen.close_code

                ends = await asyncio.gather(*(closed(screen) for screen in screens))
                status = await asyncio.to_thread(server.process.wait, STOP_S)
                return [end for end, _ in ends], [code for _, code in ends], status, processes

        took, codes, status, processes = asyncio.run(asyncio.wait_for(scenario(), 120))
        stream.close()
    finally:
        if server.process.poll() is None:
            server.process.kill()
        server.stop()
    output = "".join(server.output)
    assert status == 130, output
    assert codes == [1001] * 50, codes  # going away: the page joins again (another worker, if there is one)
    assert max(seconds for seconds in took if seconds is not None) <= CLOSED_S, took
    assert "Traceback" not in output and "Error" not in output, output
    wait_for(lambda: not still_running(processes), 5, "end of every child")
    assert left_behind(tmp_path) == []
