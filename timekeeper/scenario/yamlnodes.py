"""Reading YAML safely as a tree of nodes that remember their line and column.

Scenario files are composed, never constructed: no tag can run code, and scalars keep the text
the user wrote (so an unquoted `3:45` stays "3:45" instead of PyYAML's base-60 integer 225).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from timekeeper.errors import ScenarioError
from timekeeper.userfiles import read_user_file

MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 12

_STANDARD_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
}


def read_text(path: Path, display: str) -> str:
    """The file's text; ScenarioError (one line, naming the file) if it cannot be used."""
    raw = read_user_file(path, MAX_FILE_BYTES, what="a scenario file (.yaml)", display=display, error=ScenarioError)
    if b"\x00" in raw:
        raise ScenarioError(f"{display}: is a binary file, expected a YAML scenario (text)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(
            f"{display}: is not UTF-8 text (byte {error.start}); save the scenario as UTF-8"
        ) from error


def compose(text: str, display: str) -> yaml.Node | None:
    """The document's root node (None for an empty document), checked for tags and depth.

    Uses libyaml when PyYAML has it (about 10x faster): its events are read first to refuse deep
    nesting before the (recursive, C-stack) composer could overflow on it.
    """
    try:
        if _LOADER is not yaml.SafeLoader:
            _check_depth(text, display)
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{display}:{mark.line + 1}:{mark.column + 1}" if mark else display
        raise ScenarioError(f"{where}: YAML syntax error: {error.problem or error.context}") from error
    except yaml.YAMLError as error:
        raise ScenarioError(f"{display}: YAML syntax error: {error}") from error
    except RecursionError:
        raise ScenarioError(f"{display}: YAML is nested too deeply (at most {MAX_DEPTH} levels)") from None
    if root is not None:
        _check_tree(root, display, depth=1, visited=set())
    return root


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _check_depth(text: str, display: str) -> None:
    """ScenarioError at the first collection nested deeper than MAX_DEPTH (read as events: flat)."""
    depth = 0
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = f"{display}:{mark.line + 1}:{mark.column + 1}" if mark else display
                raise ScenarioError(f"{where}: YAML is nested too deeply (at most {MAX_DEPTH} levels)")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _check_tree(node: yaml.Node, display: str, depth: int, visited: set[int]) -> None:
    if id(node) in visited:  # an alias: already checked (and never expanded, so no alias bombs)
        return
    visited.add(id(node))
    if depth > MAX_DEPTH:
        raise ScenarioError(f"{where(display, node)}: YAML is nested too deeply (at most {MAX_DEPTH} levels)")
    if node.tag not in _STANDARD_TAGS:
        raise ScenarioError(f"{where(display, node)}: YAML tag {node.tag!r} is not allowed in scenario files")
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    raise ScenarioError(f"{where(display, key)}: key {key.value!r} appears twice")
                seen.add(key.value)
            _check_tree(key, display, depth + 1, visited)
            _check_tree(value, display, depth + 1, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_tree(item, display, depth + 1, visited)


def where(display: str, node: yaml.Node) -> str:
    return f"{display}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"


def position(node: yaml.Node) -> tuple[int, int]:
    """(line, column), 1-based."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def kind_name(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node.tag.endswith(":null"):
        return "nothing"
    return f"{node.value!r}"
