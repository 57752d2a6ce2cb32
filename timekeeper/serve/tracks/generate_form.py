"""The page's "generate a mission" form: every option of `timekeeper generate` (from the
generator's one option table), and the missions made from the values the page sends."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from timekeeper.generate import OPTION_SPECS, batch
from timekeeper.generate.options import MAX_SEED, check_seed, options_from_text
from timekeeper.generate.relax import relaxed_rules
from timekeeper.i18n import say
from timekeeper.serve.tracks.library import GENERATED, Library, LoadedTrack
from timekeeper.soundtrack.render import generated_voice_overlaps

MAX_PAGE_COUNT = 20  # missions one form sends for at once
SPEC_KEYS = tuple(spec.key for spec in OPTION_SPECS)


def generator_form(ui: str) -> dict:
    """The fields the page shows (as `timekeeper generate --help` describes them), labelled in the page's language `ui`."""
    return {"options": [spec.describe(ui) for spec in OPTION_SPECS], "max_seed": MAX_SEED, "max_count": MAX_PAGE_COUNT}


@dataclass(frozen=True)
class Generated:
    """Missions made in the page: the tracks added, the official rules the settings relax, and
    where the chosen voice would make announcements overlap (warnings, as `generate --voice`). The
    relaxed rules are said in the page's terms (field labels, its language)."""

    tracks: list[LoadedTrack]
    relaxed: tuple[str, ...]
    overlaps: list[str]


def generate_tracks(library: Library, form: dict, voice: str | None = None, ui: str = "en") -> Generated:
    """Generate as `timekeeper generate [--voice VOICE]` would from the form's values (checked by
    serve/web/schemas.py: `seed` a whole number or None, `count` 1 to MAX_PAGE_COUNT) and add the
    missions; `ui` is the page's language. Settings it cannot take raise SettingProblem (the route
    says it in the page's terms)."""
    options = options_from_text({key: form[key] for key in SPEC_KEYS})
    seed = check_seed(form["seed"]) if form["seed"] is not None else secrets.randbelow(1_000_000)
    language = form["language"] or None
    missions = batch(seed, options, count=form["count"], campaign=form["campaign"], language=language)
    made = []
    for number, mission in enumerate(missions):
        origin = f"{GENERATED} seed {seed + number}, {options.kind}, {options.players} players"
        made.append(library.add_scenario(mission, origin))
    overlaps = [say(words, ui) for words in generated_voice_overlaps(missions, language, voice)] if voice is not None else []
    return Generated(made, tuple(relaxation.text(ui) for relaxation in relaxed_rules(options)), overlaps)
