"""The page's "generate a mission" form: the options of `timekeeper generate`, and the missions
made from the values the page sends."""

from __future__ import annotations

import secrets

from timekeeper.errors import ScenarioError
from timekeeper.generate import GenerateOptions, batch, check_options
from timekeeper.generate.options import KINDS, MAX_SEED, PLAYERS
from timekeeper.serve.library import Library, LoadedTrack

MAX_PAGE_COUNT = 20  # missions one form sends for at once


def generator_form() -> dict:
    """The fields the page shows, with their choices and defaults."""
    return {
        "kinds": list(KINDS),
        "players": list(PLAYERS),
        "default_levels": {kind: GenerateOptions(kind=kind).default_level for kind in KINDS},
        "max_seed": MAX_SEED,
        "max_count": MAX_PAGE_COUNT,
    }


def _whole(raw: object, name: str) -> int | None:
    """A whole number from a form value; None when the field was left empty."""
    if raw in (None, ""):
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, str)) or not str(raw).strip().isdigit():
        raise ScenarioError(f"generate: {name} {raw!r} is not a whole number")
    if len(str(raw).strip()) > 20:
        raise ScenarioError(f"generate: {name} is too long")
    return int(str(raw).strip())


def generate_tracks(library: Library, raw: dict) -> list[LoadedTrack]:
    """Generate as `timekeeper generate` would from the form's values, and add the missions."""
    seed = _whole(raw.get("seed"), "seed")
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    players = _whole(raw.get("players"), "players") or 5
    options = check_options(GenerateOptions(kind=str(raw.get("kind") or "mission"), players=players,
                                            threat_level=_whole(raw.get("threat_level"), "threat level")))
    campaign = bool(raw.get("campaign"))
    count = _whole(raw.get("count"), "count") or 1
    if not 1 <= count <= MAX_PAGE_COUNT:
        raise ScenarioError(f"generate: count {count} (expected 1 to {MAX_PAGE_COUNT} in the page)")
    language = raw.get("language") or None
    missions = batch(seed, options, count=count, campaign=campaign, language=language)
    made = []
    for number, mission in enumerate(missions):
        origin = f"generated: seed {seed + number}, {options.kind}, {options.players} players, level {options.level}"
        made.append(library.add_scenario(mission, origin))
    return made
