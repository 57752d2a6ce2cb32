"""The service worker of the page (/sw.js, scope /): what it keeps for offline use is in
assets/sw.js. It is served from the root, so it may answer every page of the server; its version
is the server's version and a digest of the app shell, so a new server replaces the kept shell."""

from __future__ import annotations

import hashlib
import json
from functools import cache

from aiohttp import web

from timekeeper import __version__
from timekeeper.serve.web.routes import ASSETS_DIR, PAGE_SCRIPTS
from timekeeper.serve.web.schemas import Loose, RouteInput, declares

SHELL_ASSETS = (*PAGE_SCRIPTS, "style.css", "manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png")
SHELL_FILES = ["/", *(f"/assets/{name}" for name in SHELL_ASSETS)]  # "/" is index.html, the page of every path


@cache
def worker_text() -> str:
    digest = hashlib.sha256()
    for name in ("index.html", *SHELL_ASSETS):
        digest.update((ASSETS_DIR / name).read_bytes())
    text = (ASSETS_DIR / "sw.js").read_text(encoding="utf-8")
    return text.replace("__VERSION__", f"{__version__}-{digest.hexdigest()[:12]}").replace(
        "__SHELL__", json.dumps(SHELL_FILES))


@declares(RouteInput(query=Loose))
async def service_worker(request: web.Request) -> web.Response:
    return web.Response(text=worker_text(), content_type="text/javascript",
                        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


def add_offline_routes(app: web.Application) -> None:
    app.router.add_get("/sw.js", service_worker)
