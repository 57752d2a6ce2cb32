"""The log's words that depend on the crew's language: a track as the log names it, in words any
screen says in its own language (timekeeper.i18n.Said)."""

from __future__ import annotations

from timekeeper.i18n import Said, said
from timekeeper.logbook.record import Track
from timekeeper.scenario.catalog import builtin_titles
from timekeeper.titles import title_said


def track_said(track: Track) -> Said | str:
    """A built-in track by its title ("Erster Testlauf" for test-run-1), a scenario file by its
    title, either said in the crew's language when timekeeper gave it; with the generator's seed
    unless the title names it. A title of a crew's own is as written."""
    title = builtin_titles().get(track.name, track.name) if track.file is None else track.name
    known = title_said(title)
    words: Said | str = known if known is not None else title
    if track.seed is None or (known is not None and any(name in ("seed", "campaign") for name, _ in known.values)):
        return words
    return said("log.track.seeded", title=words, seed=track.seed)
