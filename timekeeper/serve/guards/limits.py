"""How much of the server one device may hold: connections per client address and in all, the
time a request may take to arrive, WebSockets per client and in all, messages per second on a
WebSocket. docs/serve.md lists every limit.

Connections are counted by a thin protocol (`Gate`) put in front of aiohttp's own: a new
connection beyond a limit closes the oldest *idle* one (no request being handled, the access code
not shown first), so sockets that only wait cannot keep a phone out; when every connection is busy
the new one gets a short 503 and is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import time
from collections.abc import Callable

HEADER_TIMEOUT_S = 10.0  # a request's line and headers must have arrived by then (also the keep-alive time)
BODY_TIMEOUT_S = 30.0  # a request's body must have arrived by then
SEND_TIMEOUT_S = 60.0  # a client that reads nothing of the sound for this long is disconnected
MAX_CONNECTIONS = 1000  # open connections in all (fewer if the open-files limit is lower)
MAX_CLIENT_CONNECTIONS = 100  # open connections of one client address
FD_RESERVE = 200  # file descriptors kept for files, pipes and the encoder
MAX_SCREENS = 200  # WebSockets open at once, all games together
MAX_CLIENT_SCREENS = 64  # WebSockets of one client address
MESSAGES_PER_S = 20  # a WebSocket's messages per second, on average
MESSAGE_BURST = 60  # ... and at once
SCREEN_IDLE_S = 1800.0  # a WebSocket that sends nothing for this long is closed (the page joins again)

_BUSY = b'{"error": "too many connections; try again shortly", "code": "too_busy"}\n'
BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
                 b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY), _BUSY))


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return soft


def connection_cap(open_files: int, most: int = MAX_CONNECTIONS) -> int:
    """Connections allowed in all: `most`, fewer when the open-files limit is low."""
    return max(16, min(most, open_files - FD_RESERVE))


MAX_BACKLOG = 4096  # Linux's usual net.core.somaxconn; the kernel caps a larger one at it


def accept_backlog(open_files: int, cap: int) -> int:
    """The listening backlog, which is also how many connections asyncio accepts in one go before
    any is counted: small enough that those and the capped ones never exhaust the open files."""
    return max(8, min(MAX_BACKLOG, (open_files - cap) // 4))  # a burst (a dead worker's screens coming over), in flight


class Gate(asyncio.Protocol):
    """One connection: counted by `limits`, then handed to aiohttp's protocol `inner`."""

    def __init__(self, inner: asyncio.Protocol, limits: ConnectionLimits) -> None:
        self.inner, self.limits = inner, limits
        self.client = ""
        self.busy = 0  # requests being handled (a WebSocket or a stream counts while it lasts)
        self.trusted = False  # a request with the access code came through
        self.transport: asyncio.Transport | None = None
        self.admitted = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if peer else ""
        if not self.limits.admit(self):
            with contextlib.suppress(Exception):
                transport.write(BUSY_RESPONSE)
            transport.close()
            return
        self.admitted = True
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.admitted:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.admitted else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admitted:
            self.limits.release(self)
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.admitted:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted:
            self.inner.resume_writing()

    def drop(self) -> None:
        if self.transport is not None:
            self.transport.close()


class ConnectionLimits:
    """The open connections by client address, oldest first."""

    def __init__(self, total: int, per_client: int = MAX_CLIENT_CONNECTIONS, exempt: frozenset[str] = frozenset()) -> None:
        self.total, self.per_client = total, per_client
        self.exempt = exempt  # addresses without a per-client limit: the trusted reverse proxy of hosted mode
        self.by_client: dict[str, dict[Gate, None]] = {}
        self.by_transport: dict[object, Gate] = {}
        self.count = 0
        self.refused = 0
        self.dropped = 0

    def factory(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], Gate]:
        return lambda: Gate(make(), self)

    def admit(self, gate: Gate) -> bool:
        mine = self.by_client.setdefault(gate.client, {})
        if len(mine) >= self.per_client and gate.client not in self.exempt and not self._drop_idle(mine):
            self.refused += 1
            return False
        if self.count >= self.total:
            crowded = max(self.by_client.values(), key=len)
            if not self._drop_idle(crowded) and not any(self._drop_idle(g) for g in self.by_client.values()):
                self.refused += 1
                return False
        mine[gate] = None
        self.by_transport[gate.transport] = gate
        self.count += 1
        return True

    def release(self, gate: Gate) -> None:
        mine = self.by_client.get(gate.client, {})
        if gate in mine:
            del mine[gate]
            self.count -= 1
            self.by_transport.pop(gate.transport, None)
            if not mine:
                del self.by_client[gate.client]

    def _drop_idle(self, gates: dict[Gate, None]) -> bool:
        """Close the oldest idle connection of `gates`, one without the access code first."""
        idle = [gate for gate in gates if not gate.busy]
        if not idle:
            return False
        victim = next((gate for gate in idle if not gate.trusted), idle[0])
        self.release(victim)
        victim.drop()
        self.dropped += 1
        return True

    def close_idle(self) -> int:
        """Close every connection no request is using (a stopping worker's keep-alive connections);
        how many."""
        idle = [gate for gates in self.by_client.values() for gate in gates if not gate.busy]
        for gate in idle:
            self.release(gate)
            gate.drop()
        return len(idle)

    def gate(self, transport: object) -> Gate | None:
        return self.by_transport.get(transport)


class ScreenCount:
    """WebSockets open, by client address and in all (at most `most`)."""

    def __init__(self, most: int = MAX_SCREENS) -> None:
        self.by_client: dict[str, int] = {}
        self.most = most

    @property
    def total(self) -> int:
        return sum(self.by_client.values())

    def join(self, client: str) -> str | None:
        """None when `client` may open one more; else why not."""
        if self.total >= self.most:
            return f"too many screens joined (at most {self.most})"
        if self.by_client.get(client, 0) >= MAX_CLIENT_SCREENS:
            return f"too many screens joined from this device (at most {MAX_CLIENT_SCREENS})"
        self.by_client[client] = self.by_client.get(client, 0) + 1
        return None

    def leave(self, client: str) -> None:
        left = self.by_client.get(client, 0) - 1
        if left > 0:
            self.by_client[client] = left
        else:
            self.by_client.pop(client, None)


class MessageRate:
    """A token bucket: MESSAGES_PER_S on average, MESSAGE_BURST at once."""

    def __init__(self, per_s: float = MESSAGES_PER_S, burst: int = MESSAGE_BURST) -> None:
        self.per_s, self.burst = per_s, burst
        self.tokens = float(burst)
        self.at = time.monotonic()
        self.refused = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_s)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False
