"""Crews in hosted mode (`timekeeper serve --public`): who owns the tracks made in the page and
which ship's log a browser sees, without accounts.

A crew is a random key the server gives a browser in a cookie on its first visit. The crew's
tracks (uploads, pasted codes, generated missions) and its ship's log live in a folder of their
own, named by a hash of the key (the key itself is never written down). The crew link
`/crew/KEY` puts the key in another browser (a second phone, a new laptop): bookmark it to keep
the log. A game (a room) records which crew made it; its screens need only its link.

Without --public there is one crew, the machine's: the server's library and the ship's log of
`timekeeper log` (or --log), as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import time
from collections import OrderedDict
from pathlib import Path

from aiohttp import web

from timekeeper.serve.guards.clients import give_cookie
from timekeeper.serve.refusal import Refused
from timekeeper.serve.tracks.library import Library

COOKIE = "timekeeper_crew"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # browsers keep a cookie at most 400 days
KEY = re.compile(r"[A-Za-z0-9_-]{24}")  # a crew key, matched whole (is_key)
CREW_TRACKS = 50  # tracks one crew keeps (the oldest go first)
MAX_CREWS = 10_000  # crew folders kept on disk; beyond, those unused longest go (after CREW_KEEP_DAYS)
CREW_KEEP_DAYS = 90  # a crew unused this long may be forgotten to make room for a new one
LIBRARIES_OPEN = 256  # crews' libraries kept in memory


def is_key(text: str) -> bool:
    """Whether `text` is a crew key: KEY whole (a `$` would let a trailing line end through)."""
    return KEY.fullmatch(text) is not None


def new_key() -> str:
    return secrets.token_urlsafe(18)


def crew_id(key: str) -> str:
    """The crew's name on disk and on its games: a hash of its key."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:24]


class Crews:
    """The crews' folders below `state`/crews, and their libraries (sharing the built-in tracks)."""

    def __init__(self, state: Path, shared: Library) -> None:
        self.folder = state / "crews"
        self.shared = shared
        self.open: OrderedDict[str, Library] = OrderedDict()

    def folder_of(self, crew: str) -> Path:
        return self.folder / crew

    def library(self, crew: str) -> Library:
        found = self.open.get(crew)
        if found is not None:
            self.open.move_to_end(crew)
            return found
        made = Library(None, self.folder_of(crew))
        made.kept = CREW_TRACKS
        made._builtin = self.shared._builtin
        made._builtin_tracks = self.shared.builtin_tracks()
        self.open[crew] = made
        while len(self.open) > LIBRARIES_OPEN:
            self.open.popitem(last=False)
        return made

    def log_path(self, crew: str) -> Path:
        return self.folder_of(crew) / "shiplog.sqlite3"

    def claim(self, crew: str) -> None:
        """Make sure the crew has its folder (before it stores anything); a full server forgets
        the crew unused longest first if it has been unused CREW_KEEP_DAYS, else refuses (503)."""
        mine = self.folder_of(crew)
        if mine.is_dir():
            with contextlib.suppress(OSError):
                os.utime(mine)
            return
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
        try:
            present = [entry for entry in os.scandir(self.folder) if entry.is_dir()]
        except OSError:
            present = []
        if len(present) >= MAX_CREWS:
            oldest = min(present, key=lambda entry: entry.stat().st_mtime)
            if time.time() - oldest.stat().st_mtime < CREW_KEEP_DAYS * 86400:
                raise Refused(f"this server keeps {MAX_CREWS} crews and all are in use; try again later",
                              status=503, code="too_busy", retry_after_s=3600)
            shutil.rmtree(oldest.path, ignore_errors=True)
            self.open.pop(oldest.name, None)
        with contextlib.suppress(OSError):
            mine.mkdir(parents=True, exist_ok=True)


# What the middleware of hosted mode (serve/web/hosted.py) found of the asking browser's crew.
CREW = web.RequestKey("crew", str)  # its id
CREW_KEY = web.RequestKey("crew_key", str)  # its key (the crew link's secret)
NEW_CREW_KEY = web.RequestKey("new_crew_key", str)  # a key just made for a browser that came without one


def crew_of(request: web.Request) -> str:
    """The asking browser's crew ("" without --public: the machine's)."""
    return request.get(CREW, "")


def remember_crew(request: web.Request, response: web.StreamResponse, secure: bool) -> None:
    """Give a browser that came without a crew key the one made for it, on a private answer only
    (serve/guards/clients.py's `give_cookie`: never on one a shared cache keeps for others)."""
    key = request.get(NEW_CREW_KEY)
    if key:
        give_cookie(response, COOKIE, key, max_age=COOKIE_MAX_AGE_S, samesite="Lax", secure=secure)


def read_crew(request: web.Request) -> None:
    """The crew of the request from its cookie; a new one (its cookie set on the answer) if none.
    A key is exactly KEY (24 characters of the URL-safe alphabet, nothing after it, not even a
    line end); anything else is no key."""
    key = request.cookies.get(COOKIE, "")
    if not is_key(key):
        key = new_key()
        request[NEW_CREW_KEY] = key
    request[CREW_KEY] = key
    request[CREW] = crew_id(key)
