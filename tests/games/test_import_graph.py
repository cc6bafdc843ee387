"""No import circle inside ``referee/games/``: every import counts, at module level, in a function or for typing."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

GAMES = ROOT / "referee" / "games"


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module under referee/games (a package is its ``__init__``)."""
    found = {}
    for path in GAMES.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        names = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(names[:-1] if names[-1] == "__init__" else names)] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules under referee/games it imports (``from .x import y`` counts ``x.y`` if a module)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                # The nearest enclosing module: ``x.y.NAME`` imports ``x.y``.
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_finder_sees_a_circle_and_a_typing_only_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    # The Infinitron rules import each other's pieces, so the graph is not trivially empty.
    graph = import_graph()
    assert "referee.games.infinitron.position" in graph["referee.games.infinitron.legality"]


def test_no_import_circle_inside_the_games():
    assert circles(import_graph()) == []
