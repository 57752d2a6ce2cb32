"""The languages timekeeper knows: the ones it ships phrase tables for (voices/<code>.yaml), and
what any other language code (a voice pack's) must look like. One source for every module."""

import re

LANGUAGES = ("en", "de", "es", "fr", "it", "pl", "cs")
_CODE = re.compile(r"[a-z]{2,3}")  # ISO 639-1 or 639-2/3: "el", "ja", "grc"


def language_code(text: str) -> str | None:
    """`text` as a lower-case language code ("DE " -> "de"), or None when it is not one."""
    code = text.strip().lower()
    return code if _CODE.fullmatch(code) else None
