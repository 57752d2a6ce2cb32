"""The fidelity report: the features of many generated missions beside those of the official tracks.

The missions are measured one at a time and forgotten: each feature's values are kept as a tally
(tally.py, exact counts of each distinct value), so a million missions take the memory of one and
every figure is the one the whole list of values would give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from timekeeper.errors import ScenarioError
from timekeeper.generate.features import Features, measure
from timekeeper.generate.figures import SOURCES
from timekeeper.generate.options import check_options, check_seed
from timekeeper.generate.relax import relaxations
from timekeeper.generate.sampler import generate
from timekeeper.generate.settings import GenerateOptions
from timekeeper.generate.tally import Tally

MAX_STATS_COUNT = 1_000_000  # missions one report measures (about 5 minutes of one core)
PROGRESS_STEP = 250  # missions between two progress reports

Progress = Callable[[int, int], None]  # (missions measured, missions in all)


@dataclass(frozen=True)
class Feature:
    """A feature of a track as whole numbers (one per track, or one per outage / gap).

    `discrete`: counts, shown as they are; otherwise times in milliseconds, shown in seconds.
    """

    name: str
    values: Callable[[Features], Iterable[int]]
    discrete: bool

    @property
    def unit(self) -> int:
        """What one shown unit is in the values' unit: 1 for counts, 1000 for milliseconds shown as seconds."""
        return 1 if self.discrete else 1000

    def shown(self, value: int) -> float:
        """`value` in the unit the report shows (seconds for a time)."""
        return value / self.unit


FEATURES = (
    Feature("phase 1 length (s)", lambda f: f.phase_lengths_ms[:1], False),
    Feature("phase 2 length (s)", lambda f: f.phase_lengths_ms[1:2], False),
    Feature("phase 3 length (s)", lambda f: f.phase_lengths_ms[2:3], False),
    Feature("threats", lambda f: (f.threats,), True),
    Feature("serious threats", lambda f: (f.serious,), True),
    Feature("internal threats", lambda f: (f.internal,), True),
    Feature("serious internal", lambda f: (f.serious_internal,), True),
    Feature("unconfirmed reports", lambda f: (f.unconfirmed,), True),
    Feature("double turns", lambda f: (f.double_turns,), True),
    Feature("zones used", lambda f: (f.zones_used,), True),
    Feature("most threats in a zone", lambda f: (f.most_in_one_zone,), True),
    Feature("zone excess", lambda f: (f.zone_excess,), True),
    Feature("ambushes", lambda f: (f.ambushes,), True),
    Feature("incoming data", lambda f: (sum(f.incoming_data),), True),
    Feature("data transfers", lambda f: (sum(f.data_transfers),), True),
    Feature("outages", lambda f: (sum(f.outages),), True),
    Feature("comms down total (s)", lambda f: (f.comms_down_ms,), False),
    Feature("outage length (s)", lambda f: f.outage_lengths_ms, False),
    Feature("first event (s)", lambda f: f.first_event_ms[:1], False),
    Feature("event spacing (s)", lambda f: (gap for _, gap in f.gaps_ms), False),
    Feature("late events / phase", lambda f: f.late_events, True),
)


GROUP_LABELS = {
    "mission": "missions 1-8",
    "simulation": "simulations 1-3 + advanced 1-3",
    "double-action": "double-action tracks",
}


@dataclass(frozen=True)
class Comparison:
    """One feature's values on the official tracks and on the generated missions."""

    feature: Feature
    official: Tally
    generated: Tally

    @property
    def keys(self) -> list[int]:
        """Every value seen on either side, smallest first."""
        return sorted(set(self.official) | set(self.generated))

    @property
    def inside_share(self) -> float:
        """The share of generated values inside the range the official values span."""
        if not self.generated:
            return 1.0
        if not self.official:
            return 0.0
        return self.generated.between(self.official.lowest(), self.official.highest()) / len(self.generated)


@dataclass(frozen=True)
class Report:
    official_label: str
    official_tracks: int
    generated: int
    comparisons: tuple[Comparison, ...]
    relaxed: tuple[str, ...] = ()  # the official rules the settings relax


def official_features(kind: str) -> list[Features]:
    from timekeeper.files.paths import scenarios_dir
    from timekeeper.scenario.catalog import load_scenario

    return [measure(load_scenario(str(scenarios_dir() / "official" / f"{name}.yaml"))) for name in SOURCES[kind]]


def tallies(tracks: Iterable[Features]) -> tuple[Tally, ...]:
    """One tally per feature (FEATURES' order) of `tracks`, each measured and let go in turn."""
    counted = tuple(Tally() for _ in FEATURES)
    for features in tracks:
        for feature, tally in zip(FEATURES, counted):
            tally.update(feature.values(features))
    return counted


def fidelity_report(count: int, options: GenerateOptions = GenerateOptions(), first_seed: int = 0,
                    progress: Progress | None = None) -> Report:
    """Generate `count` missions (seeds first_seed...) and compare each feature with the official group.

    The missions are generated, measured and forgotten one at a time (memory does not grow with
    `count`); `progress(done, count)` is told every PROGRESS_STEP missions and at the end.
    """
    if not 1 <= count <= MAX_STATS_COUNT:
        raise ScenarioError(f"--count {count} is out of range (expected 1 to {MAX_STATS_COUNT})", path="stats")
    check_seed(first_seed)
    check_seed(first_seed + count - 1)
    check_options(options)
    official = tallies(official_features(options.kind))

    def missions() -> Iterable[Features]:
        for done, seed in enumerate(range(first_seed, first_seed + count), start=1):
            yield measure(generate(seed, options))
            if progress is not None and (done % PROGRESS_STEP == 0 or done == count):
                progress(done, count)

    generated = tallies(missions())
    comparisons = tuple(Comparison(feature, ours, theirs) for feature, ours, theirs in zip(FEATURES, official, generated))
    return Report(f"official {GROUP_LABELS[options.kind]}", len(SOURCES[options.kind]), count, comparisons,
                  relaxations(options))


def _share(tally: Tally, value: int) -> str:
    return f"{round(100 * tally.count(value) / len(tally))}%"


def _quartiles(feature: Feature, tally: Tally) -> str:
    """min/25%/median/75%/max: the values at those ranks of the values in order."""
    total = len(tally)
    picks = [tally.ranked(min(total - 1, int(q * total))) for q in (0.0, 0.25, 0.5, 0.75)] + [tally.highest()]
    return "/".join(f"{feature.shown(v):g}" for v in picks)


def _describe(comparison: Comparison, tally: Tally) -> str:
    feature = comparison.feature
    if not tally:
        return "-"
    if feature.discrete:
        return " ".join(f"{feature.shown(k):g}:{_share(tally, k)}" for k in comparison.keys)
    return f"{_quartiles(feature, tally)} mean {tally.mean(feature.unit):.0f}"


def format_report(report: Report) -> str:
    """The report as a text table: per feature, the official and the generated distribution."""
    head_official = f"{report.official_label} ({report.official_tracks})"
    head_generated = f"generated ({report.generated})"
    rows = [(c.feature.name, _describe(c, c.official), _describe(c, c.generated), f"{100 * c.inside_share:.0f}%")
            for c in report.comparisons]
    header = ("feature", head_official, head_generated, "in official range")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines.append("continuous features: min/25%/median/75%/max; counts: share of tracks with each value;")
    lines.append("zone excess: threats in the fullest zone beyond an even spread over red, white and blue")
    if report.relaxed:
        lines.append("")
        lines.append("These settings relax official rules (the generated missions keep the relaxed ones):")
        lines += [f"  {rule}" for rule in report.relaxed]
    else:
        lines.append("Every official rule holds (official settings).")
    return "\n".join(lines)
