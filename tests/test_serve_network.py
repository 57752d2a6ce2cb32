"""Where `serve --lan` tells phones to find this machine: the addresses its host name resolves to,
else the source address of the default route. The socket calls are faked: nothing is sent."""

from __future__ import annotations

import socket

import pytest

from timekeeper.serve.web import network


class FakeProbe:
    """A UDP socket that only records where it was connected (it has no way to send)."""

    made: list[FakeProbe] = []

    def __init__(self, family: int, kind: int) -> None:
        assert (family, kind) == (socket.AF_INET, socket.SOCK_DGRAM)
        self.connected: tuple | None = None
        FakeProbe.made.append(self)

    def __enter__(self) -> FakeProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def connect(self, address: tuple) -> None:
        self.connected = address

    def getsockname(self) -> tuple[str, int]:
        assert self.connected is not None, "getsockname before connect"
        return ("192.168.1.23", 48_213)


@pytest.fixture
def machine(monkeypatch):
    """A machine whose host name resolves to `machine.resolves` (Debian's 127.0.1.1 by default)."""

    class Machine:
        resolves: list[str] | Exception = ["127.0.1.1"]

    def getaddrinfo(host, port, family=0, *args):
        assert host == "tablehost" and family == socket.AF_INET
        if isinstance(Machine.resolves, Exception):
            raise Machine.resolves
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0)) for address in Machine.resolves]

    FakeProbe.made = []
    monkeypatch.setattr(socket, "gethostname", lambda: "tablehost")
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "socket", FakeProbe)
    return Machine


def test_a_host_name_on_loopback_falls_back_to_the_default_route(machine):
    assert network.lan_addresses() == ["192.168.1.23"]
    (probe,) = FakeProbe.made
    assert probe.connected == network.ROUTE_PROBE


def test_the_host_names_network_addresses_come_first_and_need_no_probe(machine):
    machine.resolves = ["127.0.1.1", "10.0.0.5", "10.0.0.5", "172.16.3.4"]
    assert network.lan_addresses() == ["10.0.0.5", "172.16.3.4"]
    assert FakeProbe.made == []


def test_an_unknown_host_name_falls_back_to_the_default_route(machine):
    machine.resolves = socket.gaierror(-2, "Name or service not known")
    assert network.lan_addresses() == ["192.168.1.23"]


def test_no_default_route_means_no_address(machine, monkeypatch):
    def unreachable(self, address):
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(FakeProbe, "connect", unreachable)
    assert network.lan_addresses() == []


def test_a_route_through_loopback_is_not_offered(machine, monkeypatch):
    monkeypatch.setattr(FakeProbe, "getsockname", lambda self: ("127.0.0.1", 5000))
    assert network.lan_addresses() == []
