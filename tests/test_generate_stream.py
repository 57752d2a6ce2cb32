"""`stats` and `generate --count` hold one mission at a time: the report is the one the whole list
of values gives (and the one main printed before the missions were streamed, captured in
tests/data/generated/), each file is written before the next mission is made, and the peak memory
of the CLI does not grow with --count."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from inprocess import run_cli

from timekeeper.errors import ExitStatus, ScenarioError
from timekeeper.generate import GenerateOptions, generate, options_from_text
from timekeeper.generate.batch import MAX_COUNT, file_name, missions, write_batch
from timekeeper.generate.features import Features, measure
from timekeeper.generate.stats import FEATURES, MAX_STATS_COUNT, Comparison, fidelity_report, format_report, official_features
from timekeeper.generate.tally import Tally

DATA = Path(__file__).resolve().parent / "data" / "generated"

# What main printed before the report was streamed (commit 88572bc; regenerate with the command in
# each pair after a change of the generator's GENERATOR_VERSION, when every seed's mission changes).
CAPTURED = {
    "stats-mission-4711-500.txt": ("--count", "500", "--seed", "4711"),
    "stats-double-action-21-300-relaxed.txt": ("--count", "300", "--seed", "21", "--kind", "double-action",
                                               "--outages", "6", "--length", "13:00"),
}


# -- the reference: the report as main computed it, from every value in a list ---------------------

def _values(features: list[Features], index: int) -> list[float]:
    """Feature `index`'s values of every track, shown as main showed them (seconds as floats)."""
    feature = FEATURES[index]
    return [feature.shown(value) for f in features for value in feature.values(f)]


def _reference_cells(official: list[float], generated: list[float], discrete: bool) -> tuple[str, str, str]:
    """The official and generated cells and the share in range, by main's list-based code."""
    def describe(values: list[float]) -> str:
        if not values:
            return "-"
        if discrete:
            keys = sorted(set(official) | set(generated))
            return " ".join(f"{k:g}:{round(100 * values.count(k) / len(values))}%" for k in keys)
        ordered = sorted(values)
        picks = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.0, 0.25, 0.5, 0.75)] + [ordered[-1]]
        return "/".join(f"{v:g}" for v in picks) + f" mean {sum(values) / len(values):.0f}"

    low, high = min(official), max(official)
    inside = sum(1 for v in generated if low <= v <= high) / len(generated) if generated else 1.0
    return describe(official), describe(generated), f"{100 * inside:.0f}%"


SETTINGS = [
    {},
    {"kind": "simulation"},
    {"kind": "double-action", "players": "4"},
    {"length": "5:00"},  # short: fewer events, some features with no value at all
    {"length": "13:00", "outages": "6", "ambush_chance": "60"},
    {"outages": "1-2", "outage_length": "10-20", "threat_level": "2"},
]


@pytest.mark.parametrize("raw", SETTINGS, ids=lambda raw: ",".join(f"{k}={v}" for k, v in raw.items()) or "official")
def test_every_figure_is_the_one_the_list_of_all_values_gives(raw: dict[str, str]) -> None:
    options = options_from_text(raw)
    count, first_seed = 400, 1000
    report = fidelity_report(count, options, first_seed)
    official = official_features(options.kind)
    generated = [measure(generate(seed, options)) for seed in range(first_seed, first_seed + count)]
    rows = format_report(report).splitlines()[2:2 + len(FEATURES)]
    for index, (feature, row) in enumerate(zip(FEATURES, rows)):
        cells = tuple(re.split(r"\s{2,}", row))
        expected = _reference_cells(_values(official, index), _values(generated, index), feature.discrete)
        assert cells == (feature.name, *expected), feature.name


@pytest.mark.parametrize("name", sorted(CAPTURED))
def test_the_report_is_what_main_printed_before(name: str) -> None:
    done = run_cli("stats", *CAPTURED[name])
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert done.stdout == (DATA / name).read_text(encoding="utf-8")


class _Axes:
    """Matplotlib axes that note what is drawn on them."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return lambda *args, **kwargs: self.drawn.append((name, args, kwargs))


def test_the_plot_draws_what_the_list_of_all_values_would() -> None:
    """Each panel's bars and histograms come out as main drew them from the list of every value."""
    from timekeeper.generate.plot import _panel

    options = GenerateOptions(kind="double-action")
    report = fidelity_report(300, options, 50)
    official = official_features(options.kind)
    generated = [measure(generate(seed, options)) for seed in range(50, 350)]
    for index, comparison in enumerate(report.comparisons):
        theirs, ours = _values(generated, index), _values(official, index)
        axes = _Axes()
        _panel(axes, comparison)
        if comparison.feature.discrete:
            keys = sorted(set(ours) | set(theirs))
            bars = [args[1] for name, args, _ in axes.drawn if name == "bar"]
            assert bars == [[100 * values.count(k) / len(values) for k in keys] for values in (ours, theirs)]
            assert [args for name, args, _ in axes.drawn if name == "set_xticks"] == [
                (list(range(len(keys))), [f"{k:g}" for k in keys])]
            continue
        low, high = min(ours + theirs), max(ours + theirs)
        step = 5.0 if all(v % 5 == 0 for v in ours + theirs) else 1.0
        edges = [low + step * i - step / 2 for i in range(int((high - low) / step) + 2)]
        drawn = [(args[0], kwargs) for name, args, kwargs in axes.drawn if name == "hist"]
        assert [kwargs["bins"] for _, kwargs in drawn] == [edges, edges], comparison.feature.name
        for (x, kwargs), values in zip(drawn, (theirs, ours)):  # generated first, official over it
            assert kwargs["density"] is True
            heights = np.histogram(x, edges, weights=kwargs.get("weights"), density=True)[0]
            assert heights.tolist() == np.histogram(values, edges, density=True)[0].tolist(), comparison.feature.name


def test_a_tally_gives_the_figures_of_its_values() -> None:
    values = [30_000, 5_000, 5_000, -1, 95_000, 30_000, 30_000, 10_000]
    tally = Tally(values)
    assert len(tally) == 8 and tally.distinct == 5 and list(tally) == sorted(set(values))
    assert [tally.ranked(rank) for rank in range(8)] == sorted(values)
    assert tally.mean(1000) == sum(values) / 1000 / 8 and tally.between(5_000, 30_000) == 6
    assert tally.count(30_000) == 3 and tally.count(7) == 0 and (tally.lowest(), tally.highest()) == (-1, 95_000)
    with pytest.raises(IndexError):
        tally.ranked(8)
    assert not Tally() and Comparison(FEATURES[0], Tally([1]), Tally()).inside_share == 1.0


def test_a_tally_keeps_only_distinct_values() -> None:
    """A report of many missions holds a few hundred numbers per feature, not one per mission."""
    report = fidelity_report(3000, GenerateOptions(kind="double-action"), 7)
    assert max(c.generated.distinct for c in report.comparisons) < 100
    assert sum(len(c.generated) for c in report.comparisons) > 3000 * len(FEATURES)


# -- generate: one mission at a time ---------------------------------------------------------------

def test_each_mission_is_written_before_the_next_is_made(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    made: list[str] = []
    told: list[tuple[int, int]] = []

    def watched() -> Iterator:
        for mission in missions(40, count=5):
            for name in made:  # every mission made so far is already a file
                assert (folder / name).is_file(), f"{name} was not written before the next mission was made"
            made.append(file_name(mission))
            yield mission

    written = write_batch(watched(), f"{folder}/", 5, lambda done, total: told.append((done, total)))
    assert (written.first, written.count) == (folder / "mission-40.yaml", 5)
    assert sorted(p.name for p in folder.iterdir()) == sorted(made) and told == [(n, 5) for n in range(1, 6)]


def test_missions_are_made_when_asked_for_and_checked_at_once() -> None:
    made = missions(3, count=MAX_COUNT)  # nothing is made yet: a generator of 100,000 missions costs nothing
    assert next(made).seed == 3 and next(made).seed == 4
    with pytest.raises(ScenarioError, match=f"expected 1 to {MAX_COUNT}"):
        missions(3, count=MAX_COUNT + 1)  # refused before any mission is made, not at the first one


def test_generate_writes_what_main_wrote(tmp_path: Path) -> None:
    done = run_cli("generate", "--seed", "100", "--count", "3", "--kind", "double-action", "-o", f"{tmp_path}/da/")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert "Wrote 3 missions into" in done.stderr and "(seed 100...102)" in done.stderr
    captured = DATA / "double-action-100.yaml"
    assert (tmp_path / "da" / captured.name).read_text(encoding="utf-8") == captured.read_text(encoding="utf-8")
    done = run_cli("generate", "--campaign", "--seed", "7", "--lang", "de", "-o", str(tmp_path / "campaign"))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    captured = DATA / "campaign-7-2.yaml"
    assert (tmp_path / "campaign" / captured.name).read_text(encoding="utf-8") == captured.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_one_mission_into_a_folder_names_its_file(tmp_path: Path) -> None:
    done = run_cli("generate", "--seed", "5", "-o", f"{tmp_path}/one/")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert f"Wrote {tmp_path}/one/mission-5.yaml (seed 5)." in done.stderr


@pytest.mark.parametrize(("command", "most"), [("generate", MAX_COUNT), ("stats", MAX_STATS_COUNT)])
def test_count_beyond_the_most_names_the_most(tmp_path: Path, command: str, most: int) -> None:
    output = ["-o", f"{tmp_path}/x/"] if command == "generate" else []
    done = run_cli(command, "--count", str(most + 1), *output)
    assert done.exit_code == ExitStatus.USAGE
    assert f"{most + 1} is not in the range 1<=x<={most}" in done.stderr and "Traceback" not in done.output
    assert not (tmp_path / "x").exists()
    assert f"at most {most:,}" in " ".join(run_cli(command, "--help").stdout.split())
    with pytest.raises(ScenarioError, match=f"expected 1 to {most}"):
        fidelity_report(most + 1) if command == "stats" else missions(0, count=most + 1)


def test_progress_on_a_terminal_and_none_off_it(tmp_path: Path) -> None:
    from timekeeper.cli import main
    from timekeeper.environment import Environment, Streams

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stderr, shows in ((Terminal(), True), (io.StringIO(), False)):
        streams = Streams(given_stdout=io.StringIO(), given_stderr=stderr)
        environment = Environment.from_mapping(dict(os.environ), streams)
        assert main(["generate", "--seed", "1", "--count", "600", "-o", f"{tmp_path}/bar/"], environment) == 0
        assert main(["stats", "--count", "600"], environment) == 0
        drawn = stderr.getvalue()
        assert ("Writing" in drawn and "Generating" in drawn and "100%" in drawn) == shows, drawn
        assert "Wrote 600 missions" in drawn


# -- memory: the CLI's peak does not grow with --count ---------------------------------------------

PEAK = """
import sys
from timekeeper.cli import main
status = main(sys.argv[2:])
peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))
open(sys.argv[1], 'w').write(f'{status} {peak.split()[1]}')
"""


def _peak_mb(args: list[str], cwd: Path) -> float:
    """The peak resident memory (MB) of `timekeeper ARGS` (the program's main) in a process of its
    own. Read from /proc/self/status (VmHWM: this program's own peak), not from the rusage of a
    child, which counts the memory of the process that started it (pytest's) as the child's."""
    report = cwd / "peak.txt"
    done = subprocess.run([sys.executable, "-c", PEAK, str(report), *args], cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stderr
    status, peak_kb = report.read_text().split()
    assert status == "0", done.stderr
    return int(peak_kb) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize(("args", "few", "many"), [
    (["stats"], 2_000, 16_000),  # before: 31 and 85 MB (about 4 KB a mission kept)
    (["generate", "-o", "out/"], 500, 5_000),  # before: 31 and 48 MB
])
def test_peak_memory_does_not_grow_with_the_count(tmp_path: Path, args: list[str], few: int, many: int) -> None:
    peaks = []
    for count in (few, many):
        (tmp_path / str(count)).mkdir()
        peaks.append(_peak_mb([*args, "--count", str(count)], tmp_path / str(count)))
    assert peaks[1] - peaks[0] < 4, f"{few} missions: {peaks[0]:.1f} MB, {many}: {peaks[1]:.1f} MB"
