"""A joined screen's outbox (serve/games/screens.py) and the server's bounded terminal
(serve/quiet.py), in the test's own process: sending to every screen of a game never waits for
any; a screen that does not read is dropped (its connection cut) once too much waits for it or one
message waited SEND_S; a close is sent within CLOSE_S whatever the screen does; the presence list
is one function; a flood of lines cannot fill the terminal."""

from __future__ import annotations

import asyncio
import time

import pytest

from timekeeper.serve.games import screens
from timekeeper.serve.games.screens import Screen, close_all, presence_list, send_to


class Socket:
    """A WebSocket as the outbox uses it: `reads` False is a phone that stopped reading (every
    send and close waits for ever)."""

    def __init__(self, reads: bool = True) -> None:
        self.reads, self.sent, self.closed, self.close_code = reads, [], False, None
        self._never = asyncio.Event()

    async def send_str(self, text: str) -> None:
        if not self.reads:
            await self._never.wait()
        self.sent.append(text)

    async def close(self, *, code: int, message: bytes = b"") -> None:
        if not self.reads:
            await self._never.wait()
        self.closed, self.close_code = True, code


@pytest.fixture(autouse=True)
def fresh_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.serve import quiet

    monkeypatch.setattr(quiet, "_last", {})
    monkeypatch.setattr(quiet, "_minute", [0.0, 0, 0])


class Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def test_one_screen_that_does_not_read_never_holds_up_the_others() -> None:
    async def run() -> tuple[Screen, Screen, Transport, float]:
        stalled_transport = Transport()
        stalled, reading = Screen(Socket(reads=False), stalled_transport), Screen(Socket(), Transport())
        spent = 0.0
        for n in range(screens.BACKLOG * 3):
            started = time.monotonic()
            gone = send_to([stalled, reading], f'{{"n": {n}}}')  # a plain call: it cannot wait
            spent += time.monotonic() - started
            assert gone == ([stalled] if n >= screens.BACKLOG + 1 else []), (n, gone, stalled, reading.dropped)
            await asyncio.sleep(0.001)  # (the event loop goes on between messages)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if len(reading.socket.sent) == screens.BACKLOG * 3:
                break
        await reading.end()
        return stalled, reading, stalled_transport, spent

    stalled, reading, transport, spent = asyncio.run(run())
    assert spent < 0.1
    assert len(reading.socket.sent) == screens.BACKLOG * 3  # every message, in order
    assert reading.socket.sent[:2] == ['{"n": 0}', '{"n": 1}']
    assert stalled.closed and transport.aborted  # dropped: its connection cut at once
    assert stalled.send("more") is False


def test_a_message_not_taken_within_send_s_drops_the_screen(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(screens, "SEND_S", 0.05)

    async def run() -> tuple[Screen, Transport]:
        transport = Transport()
        stalled = Screen(Socket(reads=False), transport)
        assert stalled.send_json({"type": "state"})
        for _ in range(100):
            await asyncio.sleep(0.01)
            if stalled.closed:
                break
        return stalled, transport

    stalled, transport = asyncio.run(run())
    assert stalled.closed and transport.aborted
    assert "dropped a screen that does not read" in capsys.readouterr().err


def test_closing_every_screen_takes_at_most_close_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(screens, "CLOSE_S", 0.2)

    async def run() -> tuple[list[Screen], float]:
        joined = [Screen(Socket(reads=n % 2 == 1), Transport()) for n in range(50)]
        for screen in joined:
            screen.send_json({"type": "state"})
        started = time.monotonic()
        await close_all(joined)
        return joined, time.monotonic() - started

    joined, spent = asyncio.run(run())
    assert spent < 0.6  # at once for all, not one after another
    reading = [screen for n, screen in enumerate(joined) if n % 2]
    assert all(s.socket.close_code == 1001 and s.socket.sent == ['{"type": "state"}'] for s in reading)
    assert all(s.transport.aborted for n, s in enumerate(joined) if n % 2 == 0)  # cut: they read nothing
    assert all(screen.closed for screen in joined)


def test_the_presence_list_is_one_function_for_both_stores() -> None:
    connected = {"b": ("phone", 2), "a": ("phone", 1), "s": ("screen", 1)}
    assert presence_list(connected, heard={"s"}, me="a") == [
        {"kind": "screen", "number": 1, "sound": True, "me": False},
        {"kind": "phone", "number": 1, "sound": False, "me": True},
        {"kind": "phone", "number": 2, "sound": False, "me": False}]
    assert presence_list(connected, heard={"s", "b"}, me="b") == [  # many speakers: every one first
        {"kind": "phone", "number": 2, "sound": True, "me": True},
        {"kind": "screen", "number": 1, "sound": True, "me": False},
        {"kind": "phone", "number": 1, "sound": False, "me": False}]


def test_a_flood_of_lines_cannot_fill_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from timekeeper.serve import quiet

    for n in range(5000):  # malformed requests from 5,000 addresses
        quiet.say(f"refused a malformed request from 10.{n // 250}.{n % 250}.1: bad header \x1b[2J")
        quiet.say(f"internal error on GET /api/games/{n:012x}: KeyError", kind=f"kind-{n}")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) <= quiet.LINES_PER_MINUTE
    assert all(len(line) <= quiet.LINE_CHARS + 20 and "\x1b" not in line for line in lines)
    assert len([line for line in lines if "malformed" in line]) == 1  # one kind, whatever its address
    assert len(quiet._last) <= quiet.KINDS_KEPT


def test_a_screen_is_one_device_and_a_game_lists_a_bounded_number() -> None:
    """A screen that says hello as ever new devices stays one device in the list (the list a screen
    is sent cannot grow with its hellos); a game lists at most MAX_SEATS devices."""
    from timekeeper.serve.games.lobby import MAX_SEATS, Lobby
    from timekeeper.serve.refusal import Refused

    lobby, screen = Lobby(), object()
    for n in range(500):
        lobby.arrive("g", f"client-{n}", "phone", screen)
    assert list(lobby.connected("g")) == ["client-499"]
    others = [object() for _ in range(MAX_SEATS - 1)]
    for n, other in enumerate(others):
        lobby.arrive("g", f"phone-{n}", "phone", other)
    assert len(lobby.connected("g")) == MAX_SEATS
    with pytest.raises(Refused) as refused:
        lobby.arrive("g", "one-too-many", "phone", object())
    assert refused.value.status == 503 and refused.value.code == "too_busy"
    lobby.leave("g", others[0])  # a device left: its seat may go to a new one
    lobby.arrive("g", "one-more", "screen", object())
    assert len(lobby.connected("g")) == MAX_SEATS
