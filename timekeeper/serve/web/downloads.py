"""How a download is named: the track's title in the crew's language (official and generated titles
are translated, timekeeper/titles.py), as the file name a browser saves it under.

The Content-Disposition header carries it twice (RFC 6266): `filename*` in UTF-8 ("Misión-5.mp3",
"Mise-5.mp3"), which every current browser uses, and `filename` in plain ASCII for any other
client ("Mision-5.mp3": accents dropped, other letters replaced by a hyphen).
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

from timekeeper.titles import local_title

LONGEST = 60  # characters of a name's stem at most
_UNSAFE = re.compile(r"[^\w-]+")  # (\w: letters and digits of every script, and _; no dots in a stem)
_NOT_ASCII = re.compile(r"[^A-Za-z0-9._-]+")
_SPELLED = str.maketrans({"ł": "l", "Ł": "L", "ß": "ss", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D"})


def download_name(title: str, suffix: str, language: str | None = None) -> str:
    """The file name of a download of the track `title` (in `language` where timekeeper gives the
    title) ending in `suffix`: letters of any script, digits, '-' and '_'."""
    return safe_name(local_title(title, language), suffix)


def safe_name(words: str, suffix: str) -> str:
    """`words` as a file name's stem (letters of any script, digits, '-', '_'), then `suffix`."""
    stem = _UNSAFE.sub("-", words).strip("-._")[:LONGEST].strip("-._") or "track"
    return f"{stem}{suffix}"


def ascii_name(name: str) -> str:
    """`name` in plain ASCII: accents dropped, other letters replaced by '-'."""
    plain = unicodedata.normalize("NFKD", name.translate(_SPELLED)).encode("ascii", "ignore").decode("ascii")
    stem, dot, suffix = plain.rpartition(".")
    kept = _NOT_ASCII.sub("-", stem if dot else plain).strip("-._") or "track"
    return f"{kept}.{suffix}" if dot else kept


def disposition(title: str, suffix: str, language: str | None = None) -> str:
    """The Content-Disposition header of a download of the track `title` (see the module's docstring)."""
    return named_disposition(download_name(title, suffix, language))


def named_disposition(name: str) -> str:
    """The Content-Disposition header of a download saved as `name` (a safe_name)."""
    return f"attachment; filename=\"{ascii_name(name)}\"; filename*=UTF-8''{quote(name, safe='')}"
