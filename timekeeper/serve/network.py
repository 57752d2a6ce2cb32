"""This machine's addresses on the local network (for the links `serve --lan` prints)."""

from __future__ import annotations

import socket


def lan_addresses() -> list[str]:
    """IPv4 addresses other devices may reach this machine at (no loopback), best first."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return found
    for info in infos:
        address = str(info[4][0])
        if not address.startswith("127.") and address not in found:
            found.append(address)
    return found
