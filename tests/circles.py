"""Circles in an import graph (module -> the modules it imports): every group of modules that
reach one another, and the shortest cycle. tests/test_layers.py reads timekeeper/'s graph,
tests/test_serve_page_modules.py the page's ES modules'."""

from __future__ import annotations

from collections import deque


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


def circles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Every group of nodes that reach one another (the strongly connected components of more than
    one node, or of one that imports itself), each sorted, sorted by their first node."""
    found: list[list[str]] = []
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for root in sorted(graph):  # Tarjan's walk, iteratively (no recursion limit to meet)
        if root in order:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        order[root] = lowest[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, following = work[-1]
            step = next(following, None)
            if step is not None:
                if step not in order:
                    order[step] = lowest[step] = len(order)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    lowest[node] = min(lowest[node], order[step])
                continue
            work.pop()
            if work:
                lowest[work[-1][0]] = min(lowest[work[-1][0]], lowest[node])
            if lowest[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph.get(node, ()):
                    found.append(sorted(group))
    return sorted(found)


def described_circles(graph: dict[str, frozenset[str]]) -> list[str]:
    """Each circle of `graph` in a line: its members, and the shortest cycle among them."""
    return [
        f"{', '.join(group)} (for one: {' -> '.join(shortest_cycle({node: graph[node] & set(group) for node in group}) or [])})"
        for group in circles(graph)
    ]
