"""The page's "generate a mission" form: every option of `timekeeper generate` (from the
generator's one option table), and the missions made from the values the page sends."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from timekeeper.errors import ScenarioError
from timekeeper.generate import OPTION_SPECS, batch
from timekeeper.generate.options import MAX_SEED, options_from_text, parse_seed
from timekeeper.generate.relax import relaxed_rules
from timekeeper.render import generated_voice_overlaps
from timekeeper.serve.library import Library, LoadedTrack

MAX_PAGE_COUNT = 20  # missions one form sends for at once
SPEC_KEYS = tuple(spec.key for spec in OPTION_SPECS)


def generator_form(ui: str) -> dict:
    """The fields the page shows (as `timekeeper generate --help` describes them), labelled in the page's language `ui`."""
    return {"options": [spec.describe(ui) for spec in OPTION_SPECS], "max_seed": MAX_SEED, "max_count": MAX_PAGE_COUNT}


def _count(raw: object) -> int:
    text = str(raw if raw is not None else "").strip() or "1"
    if not text.isdigit() or not 1 <= int(text[:6]) <= MAX_PAGE_COUNT:
        raise ScenarioError(f"count {text[:20]!r} (expected 1 to {MAX_PAGE_COUNT} in the page)", path="generate")
    return int(text)


@dataclass(frozen=True)
class Generated:
    """Missions made in the page: the tracks added, the official rules the settings relax, and
    where the chosen voice would make announcements overlap (warnings, as `generate --voice`). The
    relaxed rules are said in the page's terms (field labels, its language)."""

    tracks: list[LoadedTrack]
    relaxed: tuple[str, ...]
    overlaps: list[str]


def generate_tracks(library: Library, raw: dict, voice: str | None = None, ui: str = "en") -> Generated:
    """Generate as `timekeeper generate [--voice VOICE]` would from the form's values and add the
    missions; `ui` is the page's language."""
    options = options_from_text({key: str(raw.get(key) or "") for key in SPEC_KEYS})
    seed = parse_seed(str(raw.get("seed") or ""))
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    language = str(raw.get("language") or "") or None
    missions = batch(seed, options, count=_count(raw.get("count")), campaign=bool(raw.get("campaign")),
                     language=language)
    made = []
    for number, mission in enumerate(missions):
        origin = f"generated: seed {seed + number}, {options.kind}, {options.players} players"
        made.append(library.add_scenario(mission, origin))
    overlaps = generated_voice_overlaps(missions, language, voice) if voice is not None else []
    return Generated(made, tuple(relaxation.text(ui) for relaxation in relaxed_rules(options)), overlaps)
