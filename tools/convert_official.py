"""Write scenarios/official/<track>.yaml from the shared table of official track timings.

Run from the repository root:  python tools/convert_official.py [../shared/data/official-missions.yaml]
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.grammar.times import parse_time_ms  # noqa: E402
from timekeeper.model import CommsDown, DataTransfer, IncomingData, Scenario, Threat, TrackKind, Zone  # noqa: E402
from timekeeper.scenario.dump import dump_scenario  # noqa: E402

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "official-missions.yaml"
TARGET = ROOT / "scenarios" / "official"
HEADER = (
    "Official Space Alert track timings, converted by tools/convert_official.py\n"
    "from the shared fact table (official-missions.yaml). Do not edit by hand."
)
# The transcriptions the fact table names in its header, as "owner/repository path".
TRANSCRIPTIONS = {
    "martin": "MartinAltmayer/spacealert spacealert/scripts.py",
    "nibuen": "nibuen/SpaceAlertMissionGenerator ConstructedMissions.java",
    "paploo": "paploo/SpaceAlertStats data/mission_N.json",
    "siefkenj": "siefkenj/spacealertweb js/utils.coffee (FlashPlayerCode strings)",
    "nlaurens": "nlaurens/SpaceAlert missions/duckling.cfg",
}
# The fact table's "Coverage" header: cross-checks its per-track "# sources:" line leaves out.
CROSS_CHECKED = {
    "nlaurens": ("mission-", "test-run-", "simulation-", "advanced-simulation-"),
    "siefkenj": ("double-action-easy-1", "double-action-easy-2", "double-action-1", "double-action-2",
                 "double-action-3", "double-action-4"),
}
SOURCES_LINE = re.compile(r"^# sources: (.+)$")
TRACK_LINE = re.compile(r"^([a-z0-9-]+):\s*$")


def track_sources(table_text: str) -> dict[str, list[str]]:
    """Each track's transcriptions: its "# sources:" comment plus the header's cross-checks."""
    found: dict[str, list[str]] = {}
    pending: list[str] = []
    for line in table_text.splitlines():
        if match := SOURCES_LINE.match(line):
            pending = [name.strip() for name in match.group(1).split(",")]
        elif match := TRACK_LINE.match(line):
            name = match.group(1)
            extra = [source for source, tracks in CROSS_CHECKED.items()
                     if any(name == t or (t.endswith("-") and name.startswith(t)) for t in tracks)]
            found[name] = pending + [source for source in extra if source not in pending]
            pending = []
    return found


def header_for(sources: list[str], disagreements: list[str] | None = None) -> str:
    """The file's comment: where it comes from and, for maintainers, where the transcriptions
    disagreed (a comment, not the scenario's `notes`, which cards and `show` print for players)."""
    named = "; ".join(TRANSCRIPTIONS[source] for source in sources)
    lines = [HEADER, f"Transcriptions: {named}."]
    if disagreements:
        lines.append("Sources disagreed:")
        lines += textwrap.wrap("; ".join(disagreements), 100, initial_indent="  ", subsequent_indent="  ")
    return "\n".join(lines)


def convert_event(raw: dict):
    at_ms = parse_time_ms(str(raw["at"]))
    kind = raw["type"]
    if kind == "threat":
        return Threat(at_ms, raw["t"], Zone(raw["zone"]), raw["serious"], raw["unconfirmed"])
    if kind == "internal":
        return Threat(at_ms, raw["t"], None, raw["serious"], raw["unconfirmed"])
    if kind == "incoming_data":
        return IncomingData(at_ms)
    if kind == "data_transfer":
        return DataTransfer(at_ms)
    if kind == "comms_down":
        return CommsDown(at_ms, parse_time_ms(str(raw["until"])))
    raise ValueError(f"unknown event type {kind!r}")


def convert_track(raw: dict) -> Scenario:
    events = sorted((convert_event(e) for e in raw["events"]), key=lambda e: e.at_ms)
    return Scenario(
        title=raw["title"],
        kind=TrackKind(raw["kind"]),
        phase_ends_ms=tuple(parse_time_ms(t) for t in raw["phase_ends"]),
        events=tuple(events),
    )


def main(source: Path = DEFAULT_SOURCE) -> None:
    text = source.read_text(encoding="utf-8")
    tracks = yaml.safe_load(text)
    sources = track_sources(text)
    TARGET.mkdir(parents=True, exist_ok=True)
    for name, raw in tracks.items():
        header = header_for(sources[name], raw.get("sources_disagree") or [])
        (TARGET / f"{name}.yaml").write_text(dump_scenario(convert_track(raw), header), encoding="utf-8")
    print(f"wrote {len(tracks)} scenarios to {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE)
