"""Who is asking: the client address of a request. Behind the reverse proxy of hosted mode every
connection comes from the proxy, so the address the proxy names (X-Forwarded-For) is believed,
but only from an address given with --trust-proxy; anyone else's header is ignored."""

from __future__ import annotations

import contextlib
import ipaddress
from typing import Protocol

from aiohttp import web

MAX_FORWARDED = 20  # addresses of X-Forwarded-For looked at (from the right)


def _address(text: str) -> str | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(text))
    return None


def real_client(remote: str, forwarded_for: str | None, trusted: frozenset[str]) -> str:
    """The client address: `remote` unless it is a trusted proxy; then the right-most address of
    X-Forwarded-For that is not itself a trusted proxy (what each proxy added, not what the client
    wrote in front of it)."""
    if remote not in trusted or not forwarded_for:
        return remote
    hops = [part for part in forwarded_for.split(",")][-MAX_FORWARDED:]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return remote  # a hop we cannot read: the proxy is the client we know
        if address not in trusted:
            return address
    return remote


CLIENT = web.RequestKey("client", str)  # the real client address (serve/web/hosted.py's middleware)


def client_address(request: web.Request) -> str:
    """The request's client address as the middleware of serve/web/hosted.py found it."""
    return request.get(CLIENT) or request.remote or ""


class ProxySettings(Protocol):
    """What the server was told about the way browsers reach it (server.py's ServeConfig has both)."""

    @property
    def public_url(self) -> str | None: ...  # --public-url: the address links carry
    @property
    def trusted_proxies(self) -> tuple[str, ...]: ...  # --trust-proxy: addresses whose headers are believed


def is_https(request: web.Request, config: ProxySettings) -> bool:
    """The browser's connection is https: this one, or the trusted proxy's (X-Forwarded-Proto)."""
    if config.public_url:
        return config.public_url.startswith("https://")
    if request.remote in set(config.trusted_proxies):
        return request.headers.get("X-Forwarded-Proto", "").strip().lower() == "https"
    return request.scheme == "https"


def public_base(request: web.Request, config: ProxySettings) -> str:
    """Where browsers reach the server: --public-url, else the host they asked for."""
    if config.public_url:
        return config.public_url.rstrip("/")
    return f"{'https' if is_https(request, config) else 'http'}://{request.host}"


def give_cookie(response: web.StreamResponse, name: str, value: str, *, max_age: int | None = None,
                samesite: str = "Lax", secure: bool = False) -> bool:
    """Set an HttpOnly cookie that hands a browser something of its own (a crew, the access code)
    on `response`, only if it is not yet sent and not an answer shared caches may keep for anyone
    (`Cache-Control: public`); the answer is then marked private, so no proxy gives the cookie to
    the next visitor. True if it was set."""
    control = response.headers.get("Cache-Control", "")
    directives = {part.strip().split("=", 1)[0].lower() for part in control.split(",") if part.strip()}
    if response.prepared or "public" in directives:
        return False
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite=samesite, secure=secure, path="/")
    if not directives & {"private", "no-store"}:
        response.headers["Cache-Control"] = ", ".join(filter(None, ("private", control)))
    return True
