"""Who a request comes from when workers sit behind a reverse proxy (`--behind-proxy`, the
nginx of deploy/nginx.conf): the proxy connects from this machine and names the client in
`X-Real-IP`. The header is believed only from a loopback peer; without --behind-proxy it is ignored."""

from __future__ import annotations

import ipaddress

from aiohttp import web

REAL_IP = "X-Real-IP"


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def client_address(request: web.Request, behind_proxy: bool) -> str:
    """The client's address: the proxy's `X-Real-IP` when it is trusted, else the peer's."""
    peer = request.remote or ""
    if behind_proxy and _loopback(peer):
        named = request.headers.get(REAL_IP, "").strip()
        try:
            return str(ipaddress.ip_address(named))
        except ValueError:
            return peer
    return peer
