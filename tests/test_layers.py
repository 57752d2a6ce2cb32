"""The package's imports flow one way: no module imports one that (directly or not) imports it,
and the layers keep their order (files at the bottom, the grammar below the scenario files,
the audio below the voices, the voices below the soundtrack, the commands on top).

Read from the source with `ast`: every `import timekeeper...` and `from timekeeper... import`
(relative ones too), at the top of a module or inside a function (a lazy import is still a
dependency), and every `"timekeeper.x.y:attribute"` string (the command line imports its commands
by such a name when one runs). `from timekeeper.x import y` counts as an import of module x.y when
y is a submodule, else of x; a package's __init__ is a module of its own (timekeeper.generate).
Imports in the body of `if TYPE_CHECKING:` count too: they never run, but a module that names
another's type cannot be read (or checked) without it, so two modules naming each other's types
are a circle like any other.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from circles import circles, described_circles, shortest_cycle

PACKAGE = Path(__file__).resolve().parent.parent / "timekeeper"
COMMAND_TARGET = re.compile(r"(timekeeper(?:\.\w+)+):\w+")  # "timekeeper.commands.render:render_command"

# Bottom to top: a module may import modules of its own layer or of a lower one, never of a higher one.
# A subpackage is placed as a whole ("voice" is timekeeper/voice/); "__init__" is timekeeper/__init__.py.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "environment", "errors", "model"),  # basics: the folders and engines, the one error family, the scenario model
    ("files",),  # files a user names, atomic writes, where outputs may go, the shipped folders
    ("grammar",),  # mission times, languages, training pace, phrase tables, the announcement grammar
    ("i18n", "titles"),  # the words around the game (message catalogues), the titles timekeeper gives tracks
    ("scenario",),  # scenario files: loading, validation (which uses the grammar), flash codes
    ("generate", "cards"),  # make a scenario, print one: no sound
    ("logbook",),  # the ship's log: no sound
    ("audio",),  # PCM clips, editing, loudness, the clip cache, codecs, shipped clips, synthesized effects
    ("voice",),  # spoken phrases: TTS, neural, packs
    ("soundtrack",),  # its settings; timeline + voice + effects -> one stream, to a file, measured
    ("live",),  # the mix to a sound card, in real time
    ("serve",),  # the web front end
    ("commands",),  # the command line's commands
    ("cli", "__main__"),  # the command line
)
LEAVES = ("timekeeper.audio.pcm", "timekeeper.model")  # import nothing of timekeeper

# Inside serve/ the same rule, bottom to top (names relative to timekeeper.serve; a part is placed as a whole).
SERVE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "refusal", "quiet"),  # a request refused; the terminal's lines
    ("tracks",),  # what the page offers: the library, the generate form, voice installs
    ("games",),  # a game and its clock, the lobby, the stores (state folder, Redis)
    ("guards",),  # client addresses, crews, limits, rates, the queues of slow work
    ("sound",),  # mixes, the mp3 stream, sound files and their encoder child, renders
    ("server",),  # everything one running server knows
    ("web",),  # the aiohttp app, routes and schemas, views, hosted mode
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement (or a command-target string) in `module` reaches."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:  # from . import x, from ..voice import base
            package = module.split(".") if is_package else module.split(".")[:-1]
            base = ".".join(package[: len(package) - (node.level - 1)])
            origin = f"{base}.{node.module}" if node.module else base
        else:
            origin = node.module or ""
        return [f"{origin}.{alias.name}" for alias in node.names]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and (match := COMMAND_TARGET.fullmatch(node.value)):
        return [match.group(1)]
    return []


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """module -> the timekeeper modules it imports."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str | None:  # "timekeeper.audio.pcm.Clip" -> "timekeeper.audio.pcm"
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            found
            for node in ast.walk(tree)
            for name in _imported_names(node, module, path.name == "__init__.py")
            if name.split(".")[0] == "timekeeper" and (found := resolve(name))
        }
        graph[module] = frozenset(imported - {module})
    return graph


def unit(module: str) -> str:
    """The layer unit of a module: its subpackage (timekeeper.voice), or itself (timekeeper.soundtrack.mix)."""
    return ".".join(module.split(".")[:2])


def unit_graph() -> dict[str, frozenset[str]]:
    units: dict[str, set[str]] = {}
    for module, imported in import_graph().items():
        units.setdefault(unit(module), set()).update(unit(other) for other in imported if unit(other) != unit(module))
    return {name: frozenset(found) for name, found in units.items()}


def layer_of() -> dict[str, int]:
    """unit -> its place in LAYERS (0 at the bottom)."""
    return {
        "timekeeper" if name == "__init__" else f"timekeeper.{name}": level
        for level, names in enumerate(LAYERS)
        for name in names
    }


def _graph_of(source: str, name: str = "timekeeper/probe.py") -> frozenset[str]:
    """The imports `source` would add as module `name` (for the reader's own tests)."""
    module = _module_name(PACKAGE.parent / name)
    return frozenset(
        imported
        for node in ast.walk(ast.parse(source))
        for imported in _imported_names(node, module, name.endswith("__init__.py"))
    )


def test_the_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    assert len(graph) > 100
    assert "timekeeper.audio.pcm" in graph["timekeeper.soundtrack.mix"]  # a top-level import
    assert "timekeeper.voice.pace" in graph["timekeeper.voice.neural"]  # an import inside a method
    assert "timekeeper.audio.effects" in graph["timekeeper.voice.export"]  # from timekeeper.audio import effects
    assert "timekeeper.generate.sampler" in graph["timekeeper.generate"]  # a package's __init__ is a node
    assert "timekeeper.commands.render" in graph["timekeeper.cli"]  # a command imported by name when it runs
    assert "timekeeper.generate.stats" in graph["timekeeper.generate.plot"]  # only under TYPE_CHECKING, and it counts


def test_the_reader_sees_relative_imports_and_the_checkers_imports() -> None:
    assert _graph_of("from . import pcm\nfrom ..voice.base import Voice\n", "timekeeper/audio/clips.py") == {
        "timekeeper.audio.pcm", "timekeeper.voice.base.Voice"}
    assert _graph_of("from .. import model\nfrom . import base\n", "timekeeper/voice/__init__.py") == {
        "timekeeper.model", "timekeeper.voice.base"}
    assert _graph_of("from ..grammar.script import Cue\n", "timekeeper/voice/tts.py") == {"timekeeper.grammar.script.Cue"}
    checked = "if TYPE_CHECKING:\n    import timekeeper.a\nelse:\n    import timekeeper.b\n"
    assert _graph_of(checked) == {"timekeeper.a", "timekeeper.b"}
    inside = "def later():\n    from timekeeper.c import d\n"
    assert _graph_of(inside) == {"timekeeper.c.d"}
    assert _graph_of('TARGET = "timekeeper.commands.live:live_command"\nNOTE = "see timekeeper.soundtrack.mix"\n') == {
        "timekeeper.commands.live"}


def test_the_shortest_cycle_is_found() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a", "b"}), "d": frozenset({"a"})}
    assert shortest_cycle(graph) == ["b", "c", "b"]
    assert shortest_cycle({"a": frozenset({"b"}), "b": frozenset()}) is None


def test_every_circle_is_found() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a", "e"}),
             "e": frozenset({"d"}), "f": frozenset({"f"}), "g": frozenset()}
    assert circles(graph) == [["a", "b", "c"], ["d", "e"], ["f"]]
    assert circles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_no_module_imports_itself_round_a_cycle() -> None:
    """Counting imports inside functions and those only for the type checker; every circle is named,
    with its shortest cycle."""
    found = described_circles(import_graph())
    assert not found, "import circles: " + "; ".join(found)


def test_no_layer_imports_itself_round_a_cycle() -> None:
    """Subpackages taken as one unit: voice/ may use the grammar, never the other way round."""
    cycle = shortest_cycle(unit_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_every_module_has_a_layer() -> None:
    placed = layer_of()
    assert len(placed) == sum(len(names) for names in LAYERS), "a unit is placed twice in LAYERS"
    assert set(unit_graph()) == set(placed), (
        f"place these in tests/test_layers.py LAYERS: {sorted(set(unit_graph()) - set(placed))}; "
        f"gone: {sorted(set(placed) - set(unit_graph()))}")


def test_a_layer_never_imports_a_higher_one() -> None:
    placed = layer_of()
    offending = sorted(
        f"{module} (layer {placed[unit(module)]}) imports {other} (layer {placed[unit(other)]})"
        for module, imported in import_graph().items()
        for other in imported
        if placed.get(unit(other), -1) > placed.get(unit(module), len(LAYERS))
    )
    assert not offending, offending


def serve_part(module: str) -> str | None:
    """The part of serve/ a module belongs to ("guards" for timekeeper.serve.guards.limits), or None outside serve/."""
    parts = module.split(".")
    if parts[:2] != ["timekeeper", "serve"]:
        return None
    return parts[2] if len(parts) > 2 else "__init__"


def test_every_module_of_serve_has_a_place() -> None:
    placed = {name for names in SERVE_LAYERS for name in names}
    found = {part for module in import_graph() if (part := serve_part(module))}
    assert found == placed, f"place these in SERVE_LAYERS: {sorted(found - placed)}; gone: {sorted(placed - found)}"


def test_serve_keeps_at_most_six_modules_at_its_top() -> None:
    top = [path.name for path in (PACKAGE / "serve").glob("*.py")]
    assert len(top) <= 6, sorted(top)


def test_a_part_of_serve_never_imports_a_higher_one() -> None:
    level = {name: index for index, names in enumerate(SERVE_LAYERS) for name in names}
    offending = sorted(
        f"{module} ({part}) imports {other} ({other_part})"
        for module, imported in import_graph().items()
        if (part := serve_part(module)) and part != "__init__"
        for other in imported
        if (other_part := serve_part(other)) and level[other_part] > level[part]
    )
    assert not offending, offending


def test_the_leaves_import_nothing_of_timekeeper() -> None:
    offending = {leaf: sorted(import_graph()[leaf]) for leaf in LEAVES if import_graph()[leaf]}
    assert not offending, offending
