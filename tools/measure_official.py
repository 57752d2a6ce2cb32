"""Measure the official tracks and write timekeeper/generate/figures.py (the generator's figures).

    python tools/measure_official.py            # rewrite figures.py
    python tools/measure_official.py --check    # exit 1 if figures.py is out of date

Groups: mission = missions 1-8; simulation = simulations 1-3 and advanced simulations 1-3;
double-action = the 18 New Frontier double-action tracks.
"""

from __future__ import annotations

import pprint
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.files.paths import scenarios_dir  # noqa: E402
from timekeeper.generate.features import measure, summarize  # noqa: E402
from timekeeper.scenario.catalog import load_scenario  # noqa: E402

GROUPS = {
    "mission": ("mission-",),
    "simulation": ("simulation-", "advanced-simulation-"),
    "double-action": ("double-action-",),
}
TARGET = ROOT / "timekeeper" / "generate" / "figures.py"


def official_names(kind: str) -> list[str]:
    """Official tracks of one group, in the order of their number (mission-1 ... mission-8)."""
    names = [path.stem for path in (scenarios_dir() / "official").glob("*.yaml")]
    chosen = [name for name in names if name.startswith(GROUPS[kind])]
    return sorted(chosen, key=lambda name: (re.sub(r"\d+$", "", name), int(re.sub(r"^\D*", "", name) or 0)))


def figures_text() -> str:
    profiles = {kind: summarize([measure(load_scenario(str(scenarios_dir() / 'official' / f'{n}.yaml'))) for n in official_names(kind)]) for kind in GROUPS}
    sources = {kind: official_names(kind) for kind in GROUPS}
    return (
        '"""Figures measured from the official tracks. Written by tools/measure_official.py; do not edit."""\n\n'
        "from __future__ import annotations\n\n"
        f"SOURCES = {pprint.pformat(sources, width=100, sort_dicts=True)}\n\n"
        f"PROFILES = {pprint.pformat(profiles, width=100, sort_dicts=True)}\n"
    )


def main() -> int:
    text = figures_text()
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET}: out of date; run python tools/measure_official.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
