"""Stand-in for GET /api/messages/{lang} until timekeeper.i18n (its catalogues for every language)
is merged: the English catalogue for every language asked. Removed at that merge."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Annotated

from aiohttp import web
from pydantic import StringConstraints

from timekeeper.serve.schemas import Model, RouteInput, declares

EN_PO = Path(__file__).resolve().parent.parent / "locales" / "en.po"


@cache
def english() -> dict[str, str]:
    found: dict[str, str] = {}
    key = None
    for line in EN_PO.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgid "):
            key = json.loads(line[6:])
        elif line.startswith("msgstr ") and key:
            found[key] = json.loads(line[7:])
    return found


class LanguagePath(Model):
    lang: Annotated[str, StringConstraints(max_length=20)]


@declares(RouteInput(path=LanguagePath))
async def ui_messages(request: web.Request) -> web.Response:
    return web.json_response({"language": "en", "messages": english()})


def add_message_routes(app: web.Application) -> None:
    app.router.add_get("/api/messages/{lang}", ui_messages)
