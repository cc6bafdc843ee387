"""No import circle inside ``referee/`` (every import counts: at module level, in a function or only for typing,
since a circle of type-only imports is still two modules that cannot be understood one without the other)."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

GAMES = ROOT / "referee" / "games"


def _modules(folder: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module under ``folder`` (a package is its ``__init__``)."""
    found = {}
    for path in folder.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        names = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(names[:-1] if names[-1] == "__init__" else names)] = path
    return found


def import_graph(folder: Path = GAMES) -> dict[str, set[str]]:
    """Module -> the modules under ``folder`` it imports (``from .x import y`` counts ``x.y`` if a module)."""
    modules = _modules(folder)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
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


def test_the_finder_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    # The Infinitron rules import each other's pieces, so the graph is not trivially empty.
    graph = import_graph()
    assert "referee.games.infinitron.position" in graph["referee.games.infinitron.legality"]


def test_no_import_circle_inside_the_games():
    assert circles(import_graph()) == []


def test_no_import_circle_inside_the_referee():
    graph = import_graph(ROOT / "referee")
    assert "referee.games" in graph["referee.match"]  # the whole package is read
    assert circles(graph) == []
    # A format reads the plan through a protocol: the plan holds its format, so importing the plan's class
    # would close a circle (formats.base -> schedule -> formats.base).
    assert "referee.tournament.schedule" not in graph["referee.tournament.formats.base"]
