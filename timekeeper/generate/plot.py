"""Draw the fidelity report (stats.py) with matplotlib (the optional `plot` extra); stats.py knows nothing of drawing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from timekeeper.errors import MissingToolError, OutputError
from timekeeper.files.atomicfile import replacing

if TYPE_CHECKING:
    from types import ModuleType

    from timekeeper.generate.stats import Comparison, Report
    from timekeeper.generate.tally import Tally

COLUMNS = 3
OFFICIAL_COLOR = "#1f77b4"
GENERATED_COLOR = "#ff7f0e"


def require_matplotlib() -> ModuleType:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError as error:
        raise MissingToolError(
            "--plot needs matplotlib; install it with: pip install 'timekeeper[plot]' (or pip install matplotlib)"
        ) from error
    return pyplot


def shares(comparison: Comparison) -> tuple[list[int], list[float], list[float]]:
    """A count feature's bars: every value seen, and the % of official and of generated values that are it."""
    official, generated = comparison.official, comparison.generated
    keys = comparison.keys
    return (keys, [100 * official.count(k) / len(official) for k in keys],
            [100 * generated.count(k) / len(generated) for k in keys])


def bins(comparison: Comparison) -> list[float]:
    """A time feature's histogram bins in seconds: 5 s wide, centred on the grid, where every value is
    on it (else 1 s), from the lowest value on either side to the highest."""
    feature, official, generated = comparison.feature, comparison.official, comparison.generated
    seen = [tally for tally in (official, generated) if tally]
    low = feature.shown(min(tally.lowest() for tally in seen))
    high = feature.shown(max(tally.highest() for tally in seen))
    on_grid = all(feature.shown(value) % 5 == 0 for tally in seen for value in tally)
    step = 5.0 if on_grid else 1.0
    return [low + step * i - step / 2 for i in range(int((high - low) / step) + 2)]


def _histogram(axes, comparison: Comparison, tally: Tally, **style) -> None:
    """Draw `tally` as a density histogram (each distinct value weighted by how often it occurred,
    which draws what the list of all values would)."""
    counted = tally.counts()
    axes.hist([comparison.feature.shown(value) for value, _ in counted], bins=bins(comparison),
              weights=[times for _, times in counted], density=True, **style)


def _panel(axes, comparison: Comparison) -> None:
    if comparison.feature.discrete:
        keys, official, generated = shares(comparison)
        positions = range(len(keys))
        axes.bar([p - 0.2 for p in positions], official, 0.4, color=OFFICIAL_COLOR, label="official")
        axes.bar([p + 0.2 for p in positions], generated, 0.4, color=GENERATED_COLOR, label="generated")
        axes.set_xticks(list(positions), [f"{comparison.feature.shown(k):g}" for k in keys])
        axes.set_ylabel("% of tracks")
    else:
        _histogram(axes, comparison, comparison.generated, color=GENERATED_COLOR, alpha=0.6, label="generated")
        _histogram(axes, comparison, comparison.official, histtype="step", linewidth=2, color=OFFICIAL_COLOR,
                   label="official")
        axes.set_ylabel("density")
    axes.set_title(f"{comparison.feature.name} ({100 * comparison.inside_share:.0f}% in range)", fontsize=9)
    axes.tick_params(labelsize=7)


def plot_report(report: Report, path: Path) -> None:
    """Draw every feature's official and generated distributions (stats.py's report) into one PNG at
    `path`, one panel per feature, atomically."""
    pyplot = require_matplotlib()
    rows = -(-len(report.comparisons) // COLUMNS)
    figure, grid = pyplot.subplots(rows, COLUMNS, figsize=(4 * COLUMNS, 2.6 * rows))
    for axes, comparison in zip(grid.flat, report.comparisons):
        _panel(axes, comparison)
    for axes in list(grid.flat)[len(report.comparisons):]:
        axes.axis("off")
    grid.flat[0].legend(fontsize=7)
    figure.suptitle(f"{report.official_label} ({report.official_tracks}) vs {report.generated} generated")
    figure.tight_layout()
    try:
        with replacing(path, suffix=".png") as temporary:
            figure.savefig(temporary, dpi=90)
    except OSError as error:
        raise OutputError.cannot_write(path, error, "the plot") from error
    finally:
        pyplot.close(figure)
