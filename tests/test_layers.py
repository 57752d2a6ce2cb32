"""The package's imports flow one way: no module imports one that (directly or not) imports it,
and the layers keep their order (audio basics at the bottom, the grammar below the voices, the
voices below the mix, the commands on top).

Read from the source with `ast`: every `import timekeeper...` and `from timekeeper... import`,
at the top of a module or inside a function (a lazy import is still a dependency). Imports under
`if TYPE_CHECKING:` are left out: they name types for the checker and never run.
"""

from __future__ import annotations

import ast
from collections import deque
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "timekeeper"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """module -> the timekeeper modules it imports."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str | None:  # "timekeeper.voice.base.Clip" -> "timekeeper.voice.base"
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for_checker = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        imported: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in for_checker:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            imported |= {found for name in names if name.startswith("timekeeper") and (found := resolve(name))}
        graph[module] = frozenset(imported - {module})
    return graph


def unit(module: str) -> str:
    """The layer unit of a module: its subpackage (timekeeper.voice), or itself (timekeeper.mix)."""
    return ".".join(module.split(".")[:2])


def unit_graph() -> dict[str, frozenset[str]]:
    units: dict[str, set[str]] = {}
    for module, imported in import_graph().items():
        units.setdefault(unit(module), set()).update(unit(other) for other in imported if unit(other) != unit(module))
    return {name: frozenset(found) for name, found in units.items()}


def shortest_cycle(graph: dict[str, frozenset[str]]) -> list[str] | None:
    """The shortest cycle in `graph` (as a path that returns to its start), or None: a breadth-first
    walk from each node, stopped once its paths are no shorter than the best cycle found."""
    best: list[str] | None = None
    for start in sorted(graph):
        queue, seen = deque([[start]]), {start}
        while queue:
            path = queue.popleft()
            if best is not None and len(path) + 1 >= len(best):
                break
            following = sorted(graph.get(path[-1], ()))
            if start in following:
                best = [*path, start]
                break
            for node in following:
                if node not in seen:
                    seen.add(node)
                    queue.append([*path, node])
    return best


def imports_of(prefix: str) -> dict[str, frozenset[str]]:
    return {module: imported for module, imported in import_graph().items() if unit(module) == prefix or module == prefix}


def test_the_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    assert len(graph) > 100
    assert "timekeeper.pcm" in graph["timekeeper.mix"]  # a top-level import
    assert "timekeeper.voice.pace" in graph["timekeeper.voice.neural"]  # an import inside a method
    assert shortest_cycle({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a", "b"})}) == ["b", "c", "b"]


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert shortest_cycle(import_graph()) is None, " -> ".join(shortest_cycle(import_graph()) or [])


def test_no_layer_imports_itself_round_a_cycle() -> None:
    """Subpackages taken as one unit: voice/ may use the grammar, never the other way round."""
    assert shortest_cycle(unit_graph()) is None, " -> ".join(shortest_cycle(unit_graph()) or [])


@pytest.mark.parametrize("lower, upper", [
    ("timekeeper.pcm", "timekeeper"),  # the audio basics stand alone
    ("timekeeper.wavcache", "timekeeper.voice"),
    ("timekeeper.model", "timekeeper.scenario"),  # the model knows no file format
    ("timekeeper.script", "timekeeper.voice"),  # the grammar knows no voice ...
    ("timekeeper.phrases", "timekeeper.voice"),
    ("timekeeper.durations", "timekeeper.voice"),
    ("timekeeper.script", "timekeeper.scenario"),  # ... and no scenario file
    ("timekeeper.sound", "timekeeper.voice"),  # effects are made without voices
    ("timekeeper.loudness", "timekeeper.voice"),
    ("timekeeper.audio", "timekeeper.voice"),
    ("timekeeper.scenario", "timekeeper.voice"),  # validation needs phrase lengths, not voices
    ("timekeeper.scenario", "timekeeper.mix"),
    ("timekeeper.voice", "timekeeper.mix"),
    ("timekeeper.voice", "timekeeper.render"),
    ("timekeeper.mix", "timekeeper.render"),
    ("timekeeper.generate", "timekeeper.voice"),
])
def test_a_lower_layer_never_imports_a_higher_one(lower: str, upper: str) -> None:
    offending = {
        f"{module} imports {other}"
        for module, imported in imports_of(lower).items()
        for other in imported
        if other == upper or other.startswith(upper + ".") or (upper == "timekeeper" and other != module)
    }
    assert not offending, sorted(offending)


def test_only_the_command_line_imports_the_commands() -> None:
    offending = {
        f"{module} imports {other}"
        for module, imported in import_graph().items()
        if unit(module) not in ("timekeeper.commands", "timekeeper.cli")
        for other in imported
        if unit(other) == "timekeeper.commands"
    }
    assert not offending, sorted(offending)
