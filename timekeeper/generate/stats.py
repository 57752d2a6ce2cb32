"""The fidelity report: the features of many generated missions beside those of the official tracks."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from timekeeper.generate.features import Features, measure
from timekeeper.generate.figures import SOURCES
from timekeeper.generate.options import check_seed
from timekeeper.generate.relax import relaxations
from timekeeper.generate.sampler import generate
from timekeeper.generate.settings import GenerateOptions


@dataclass(frozen=True)
class Feature:
    """A feature of a track as a list of numbers (one per track, or one per outage / gap); `discrete`: counts."""

    name: str
    values: Callable[[Features], list[float]]
    discrete: bool


def _seconds(values: Iterable[int]) -> list[float]:
    return [value / 1000 for value in values]


FEATURES = (
    Feature("phase 1 length (s)", lambda f: _seconds(f.phase_lengths_ms[:1]), False),
    Feature("phase 2 length (s)", lambda f: _seconds(f.phase_lengths_ms[1:2]), False),
    Feature("phase 3 length (s)", lambda f: _seconds(f.phase_lengths_ms[2:3]), False),
    Feature("threats", lambda f: [f.threats], True),
    Feature("serious threats", lambda f: [f.serious], True),
    Feature("internal threats", lambda f: [f.internal], True),
    Feature("serious internal", lambda f: [f.serious_internal], True),
    Feature("unconfirmed reports", lambda f: [f.unconfirmed], True),
    Feature("double turns", lambda f: [f.double_turns], True),
    Feature("zones used", lambda f: [f.zones_used], True),
    Feature("most threats in a zone", lambda f: [f.most_in_one_zone], True),
    Feature("zone excess", lambda f: [f.zone_excess], True),
    Feature("ambushes", lambda f: [f.ambushes], True),
    Feature("incoming data", lambda f: [sum(f.incoming_data)], True),
    Feature("data transfers", lambda f: [sum(f.data_transfers)], True),
    Feature("outages", lambda f: [sum(f.outages)], True),
    Feature("comms down total (s)", lambda f: [f.comms_down_ms / 1000], False),
    Feature("outage length (s)", lambda f: _seconds(f.outage_lengths_ms), False),
    Feature("first event (s)", lambda f: _seconds(f.first_event_ms[:1]), False),
    Feature("event spacing (s)", lambda f: _seconds(gap for _, gap in f.gaps_ms), False),
    Feature("late events / phase", lambda f: list(f.late_events), True),
)


GROUP_LABELS = {
    "mission": "missions 1-8",
    "simulation": "simulations 1-3 + advanced 1-3",
    "double-action": "double-action tracks",
}


@dataclass(frozen=True)
class Comparison:
    feature: Feature
    official: list[float]
    generated: list[float]

    @property
    def inside_share(self) -> float:
        """The share of generated values inside the range the official values span."""
        low, high = min(self.official), max(self.official)
        return sum(1 for v in self.generated if low <= v <= high) / len(self.generated) if self.generated else 1.0


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


def fidelity_report(count: int, options: GenerateOptions = GenerateOptions(), first_seed: int = 0,
                    progress: Callable[[Iterable[int]], Iterable[int]] = lambda seeds: seeds) -> Report:
    """Generate `count` missions (seeds first_seed...) and compare each feature with the official group."""
    check_seed(first_seed)
    check_seed(first_seed + count - 1)
    official = official_features(options.kind)
    generated = [measure(generate(seed, options)) for seed in progress(range(first_seed, first_seed + count))]
    comparisons = tuple(
        Comparison(feature, [v for f in official for v in feature.values(f)], [v for f in generated for v in feature.values(f)])
        for feature in FEATURES
    )
    return Report(f"official {GROUP_LABELS[options.kind]}", len(official), count, comparisons, relaxations(options))


def _share(values: list[float], value: float) -> str:
    return f"{round(100 * values.count(value) / len(values))}%"


def _quartiles(values: list[float]) -> str:
    ordered = sorted(values)
    picks = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.0, 0.25, 0.5, 0.75)] + [ordered[-1]]
    return "/".join(f"{v:g}" for v in picks)


def _describe(comparison: Comparison, values: list[float]) -> str:
    if not values:
        return "-"
    if comparison.feature.discrete:
        keys = sorted(set(comparison.official) | set(comparison.generated))
        return " ".join(f"{k:g}:{_share(values, k)}" for k in keys)
    return f"{_quartiles(values)} mean {sum(values) / len(values):.0f}"


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
