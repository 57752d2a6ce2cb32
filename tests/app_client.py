"""The server's app in the test's own process: aiohttp's test client against `make_app`, on
127.0.0.1, for the fast tier's tests of routes and middleware."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import DummyCookieJar
from aiohttp.test_utils import TestClient, TestServer

from timekeeper.serve.server import ServeConfig
from timekeeper.serve.web.app import make_app


def served(config: ServeConfig, check: Callable[[TestClient], Awaitable[None]], cookies: bool = True) -> None:
    """Run `check` against the app of `config`, served on 127.0.0.1 for the test; without
    `cookies`, the client keeps none (each request shows the crew its headers name, or none)."""

    async def session() -> None:
        jar = None if cookies else DummyCookieJar()
        client = TestClient(TestServer(make_app(config), host="127.0.0.1"), cookie_jar=jar)
        await client.start_server()
        try:
            await asyncio.wait_for(check(client), timeout=120)
        finally:
            await client.close()

    asyncio.run(session())
