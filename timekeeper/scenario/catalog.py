"""Built-in scenarios by name (`mission-3`), or scenario files by path."""

from __future__ import annotations

from pathlib import Path

from timekeeper.errors import ScenarioError
from timekeeper.model import Scenario
from timekeeper.paths import scenarios_dir
from timekeeper.scenario.load import load_file
from timekeeper.scenario.problems import errors


def builtin_paths() -> dict[str, Path]:
    """name -> file of every shipped scenario (official tracks first, then examples)."""
    found: dict[str, Path] = {}
    for folder in ("official", "examples"):
        for path in sorted((scenarios_dir() / folder).glob("*.yaml")):
            found.setdefault(path.stem, path)
    return found


def resolve(name_or_path: str) -> tuple[Path, str]:
    """(file, display name) for a path or a built-in name; ScenarioError if neither."""
    path = Path(name_or_path)
    if path.exists() or name_or_path.endswith((".yaml", ".yml")) or "/" in name_or_path:
        return path, name_or_path
    builtins = builtin_paths()
    if name_or_path in builtins:
        return builtins[name_or_path], name_or_path
    import difflib

    hint = difflib.get_close_matches(name_or_path, builtins, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else "; see 'timekeeper list'"
    raise ScenarioError(f"{name_or_path}: no such file or built-in scenario{suggestion}")


def load_scenario(name_or_path: str) -> Scenario:
    """Load a valid scenario (warnings are ignored) or raise ScenarioError listing every error."""
    path, display = resolve(name_or_path)
    result = load_file(path, display if display != name_or_path or path.exists() else str(path))
    problems = errors(result.problems)
    if problems or result.scenario is None:
        raise ScenarioError("\n".join(str(p) for p in problems) or f"{display}: not a valid scenario")
    return result.scenario
