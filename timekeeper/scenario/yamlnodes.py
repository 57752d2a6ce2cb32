"""Reading YAML safely as a tree of nodes that remember their line and column.

Scenario files are composed, never constructed: no tag can run code, and scalars keep the text
the user wrote (so an unquoted `3:45` stays "3:45" instead of PyYAML's base-60 integer 225).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import yaml

from timekeeper.errors import ScenarioError
from timekeeper.files.userfiles import read_user_file
from timekeeper.i18n import Rephrased, Said, said

MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 12

_STANDARD_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
}


def read_text(path: Path, display: str) -> str:
    """The file's text; ScenarioError (one line, naming the file) if it cannot be used."""
    raw = read_user_file(path, MAX_FILE_BYTES, what="a scenario file (.yaml)", display=display, error=ScenarioError)
    if b"\x00" in raw:
        raise ScenarioError(said("problem.yaml.binary"), path=display)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(said("problem.yaml.not_utf8", byte=error.start), path=display) from error


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
        raise ScenarioError(Rephrased(f"YAML syntax error: {error.problem or error.context}", said("problem.yaml.syntax")),
                            path=display, **at_mark(mark)) from error
    except yaml.YAMLError as error:
        raise ScenarioError(Rephrased(f"YAML syntax error: {error}", said("problem.yaml.syntax")), path=display) from error
    except RecursionError:
        raise ScenarioError(said("problem.yaml.too_deep", most=MAX_DEPTH), path=display) from None
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
                raise ScenarioError(said("problem.yaml.too_deep", most=MAX_DEPTH), path=display, **at_mark(mark))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _check_tree(node: yaml.Node, display: str, depth: int, visited: set[int]) -> None:
    if id(node) in visited:  # an alias: already checked (and never expanded, so no alias bombs)
        return
    visited.add(id(node))
    if depth > MAX_DEPTH:
        raise ScenarioError(said("problem.yaml.too_deep", most=MAX_DEPTH), path=display, **at_mark(node.start_mark))
    if node.tag not in _STANDARD_TAGS:
        raise ScenarioError(said("problem.yaml.tag", tag=repr(node.tag)), path=display, **at_mark(node.start_mark))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    raise ScenarioError(said("problem.yaml.twice", key=repr(key.value)), path=display,
                                        **at_mark(key.start_mark))
                seen.add(key.value)
            _check_tree(key, display, depth + 1, visited)
            _check_tree(value, display, depth + 1, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_tree(item, display, depth + 1, visited)


class Place(TypedDict):
    line: int
    column: int


def at_mark(mark: Any) -> Place:
    """The line and column (1-based) of a YAML mark (libyaml's or PyYAML's), as an error's fields;
    0 and 0 when there is no mark."""
    return {"line": mark.line + 1, "column": mark.column + 1} if mark is not None else {"line": 0, "column": 0}


def position(node: yaml.Node) -> tuple[int, int]:
    """(line, column), 1-based."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def kind_name(node: yaml.Node) -> Said | str:
    """What a node is, as a message says it found it: a mapping, a list, nothing, or its value."""
    if isinstance(node, yaml.MappingNode):
        return said("problem.yaml.found_mapping")
    if isinstance(node, yaml.SequenceNode):
        return said("problem.yaml.found_list")
    if node.tag.endswith(":null"):
        return said("problem.yaml.found_nothing")
    return f"{node.value!r}"
