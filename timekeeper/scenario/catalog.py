"""Built-in scenarios by name (`mission-3`), or scenario files by path."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from timekeeper.errors import ScenarioError
from timekeeper.files.paths import scenarios_dir
from timekeeper.model import Scenario
from timekeeper.scenario.load import load_file
from timekeeper.scenario.problems import errors

_NAME_ORDER = ("test-run", "simulation", "advanced-simulation", "mission", "double-action-easy", "double-action")


def _natural_key(path: Path) -> tuple[int, str, int]:
    """test runs, simulations, advanced simulations, missions, double action; numbers in order."""
    stem, _, number = path.stem.rpartition("-")
    rank = _NAME_ORDER.index(stem) if stem in _NAME_ORDER else len(_NAME_ORDER)
    return (rank, stem if number.isdigit() else path.stem, int(number) if number.isdigit() else 0)


def builtin_paths() -> dict[str, Path]:
    """name -> file of every shipped scenario (official tracks first, then examples)."""
    found: dict[str, Path] = {}
    for folder in ("official", "examples"):
        for path in sorted((scenarios_dir() / folder).glob("*.yaml"), key=_natural_key):
            found.setdefault(path.stem, path)
    return found


@cache
def builtin_titles() -> dict[str, str]:
    """name -> title of every shipped scenario (read once; the title only, not validated)."""
    import yaml

    titles = {}
    for name, path in builtin_paths().items():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        titles[name] = str(data["title"]) if isinstance(data, dict) and "title" in data else name
    return titles


def official_names(kinds: Iterable[str] = ()) -> list[str]:
    """The built-in official tracks in the official order (test runs, simulations, advanced
    simulations, missions 1-8, double action, the easier set first), only those of `kinds` (track
    kind values) when given."""
    wanted = set(kinds)
    found = [stem for stem, path in builtin_paths().items() if path.parent.name == "official"]
    return [stem for stem in found if not wanted or load_scenario(stem).kind.value in wanted]


def official_track_number(name: str) -> int | None:
    """The place (1-34) of built-in official track `name` in the official order (test runs,
    simulations, advanced simulations, missions 1-8, double action), or None."""
    official = official_names()
    return official.index(name) + 1 if name in official else None


def resolve(name_or_path: str) -> tuple[Path, str]:
    """(file, display name) for a path or a built-in name; ScenarioError if neither."""
    from timekeeper.files.userfiles import path_exists

    path = Path(name_or_path)
    if path_exists(path) or name_or_path.endswith((".yaml", ".yml")) or "/" in name_or_path:
        return path, name_or_path
    builtins = builtin_paths()
    if name_or_path in builtins:
        return builtins[name_or_path], name_or_path
    import difflib

    hint = difflib.get_close_matches(name_or_path, builtins, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else "; see 'timekeeper list'"
    shown = name_or_path if len(name_or_path) <= 120 else name_or_path[:120] + "…"
    raise ScenarioError(f"no such file or built-in scenario{suggestion}", path=shown, missing=True)


def load_scenario(name_or_path: str) -> Scenario:
    """Load a valid scenario (warnings are ignored) or raise ScenarioError listing every error."""
    path, display = resolve(name_or_path)
    result = load_file(path, display)
    problems = errors(result.problems)
    if problems:
        raise ScenarioError.listing([str(p) for p in problems])
    if result.scenario is None:
        raise ScenarioError("not a valid scenario", path=display)
    return result.scenario


class ListingRow:
    """One built-in scenario for `timekeeper list`."""

    def __init__(self, name: str, title: str, kind: str, length: str) -> None:
        self.name, self.title, self.kind, self.length = name, title, kind, length


def builtin_listing() -> list[ListingRow]:
    """Name, title, kind and length of every built-in scenario (read quickly, not validated)."""
    from timekeeper.grammar.times import format_time

    rows = []
    for name, path in builtin_paths().items():
        result = load_file(path, name)
        if result.scenario is None:
            rows.append(ListingRow(name, "(invalid: see timekeeper validate)", "?", "?"))
            continue
        scenario = result.scenario
        rows.append(ListingRow(name, scenario.title, scenario.kind.value, format_time(scenario.duration_ms)))
    return rows
