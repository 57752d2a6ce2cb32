"""The titles timekeeper gives tracks, in every shipped language: the official tracks' names
("First Test Run", "Double Action Mission 1 (easier set)"), generated missions' ("Generated
mission 338695") and an exploration campaign's.

A scenario keeps the English title its file says; a screen, a card or the log says it in the
crew's language when it is one of these titles (`title_said`), and as written otherwise (a
crew's own title is its own). The English words are the English catalogue's `title.*` entries:
the official files (tools/convert_official.py) and the generator write them, and a title is
known by matching them, so they are the one source of each title in every language.
docs/translations.md says where the names come from.
"""

from __future__ import annotations

import re
import string
from functools import cache

from timekeeper.i18n import FALLBACK, Said, messages, said, say

PREFIX = "title."
MAX_TITLE_CHARS = 200  # longer titles are nobody's official or generated one


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(the English title as a pattern, its key) for every `title.*` entry; a place is a number."""
    found = []
    for key, text in sorted(messages(FALLBACK).items()):
        if key.startswith(PREFIX):
            parts = []
            for literal, name, _spec, _conversion in string.Formatter().parse(text):
                parts.append(re.escape(literal))
                if name:
                    parts.append(f"(?P<{name}>[1-9][0-9]{{0,18}}|0)")
            found.append((re.compile("".join(parts)), key))
    return tuple(found)


def title_said(title: str) -> Said | None:
    """The Said of a title timekeeper gives (an official name, a generated mission's), or None."""
    if len(title) > MAX_TITLE_CHARS:
        return None
    for pattern, key in _patterns():
        match = pattern.fullmatch(title)
        if match:
            return said(key, **{name: int(value) for name, value in match.groupdict().items()})
    return None


def title_json(title: str) -> dict[str, object] | None:
    """The words of `title` as the page says them (i18n.js `say`), or None for a title of its own."""
    known = title_said(title)
    return None if known is None else known.as_json()


def local_title(title: str, language: str | None) -> str:
    """`title` in `language` when it is one timekeeper gives, else as written."""
    known = title_said(title)
    return title if known is None else say(known, language)


def generated_title(kind: str, seed: int) -> str:
    """The English title of a generated track of `kind` ("Generated mission 338695")."""
    return str(said(f"{PREFIX}generated.{kind}", seed=seed))


def campaign_title(campaign: int, number: int, count: int) -> str:
    """The English title of mission `number` of `count` of exploration campaign `campaign`."""
    return str(said(f"{PREFIX}campaign", campaign=campaign, number=number, count=count))
