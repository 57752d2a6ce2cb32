"""This machine's addresses on the local network (for the links `serve --lan` prints)."""

from __future__ import annotations

import contextlib
import ipaddress
import socket

# Any address outside this machine's networks makes the kernel pick the interface of the default
# route. A UDP socket's connect() only looks that route up: no packet is sent. A documentation
# address (RFC 5737) is used, so that nothing could ever reach a real host.
ROUTE_PROBE = ("192.0.2.1", 9)


def _usable(address: str) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_unspecified)


def _by_hostname() -> list[str]:
    """What the host name resolves to (on Debian often only 127.0.1.1, which is dropped)."""
    with contextlib.suppress(OSError):
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        return [str(info[4][0]) for info in infos]
    return []


def _by_route() -> list[str]:
    """The source address of the default route (empty when there is none)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(ROUTE_PROBE)
        return [str(probe.getsockname()[0])]
    return []


def lan_addresses() -> list[str]:
    """IPv4 addresses other devices may reach this machine at (no loopback), best first: those the
    host name resolves to, else the one the default route leaves from. IPv4 only: `--lan` binds
    0.0.0.0."""
    found: list[str] = []
    for address in _by_hostname():
        if _usable(address) and address not in found:
            found.append(address)
    if not found:
        found = [address for address in _by_route() if _usable(address)]
    return found
