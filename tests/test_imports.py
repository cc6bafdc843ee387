"""The game engines' imports: free of the framework around them, and without cycles.

An engine module must import nothing from the course-compatible packages,
the command lines or the renderers (an agent process imports the engine, and
a renderer may import the engine's tables but the engine's state must not
need the renderer to load).
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

GAMES = ROOT / "referee" / "games"

#: Modules an engine must never pull in (a name and everything under it).
FORBIDDEN = (
    "referee.game",
    "referee.cachex",
    "referee.infinitron",
    "referee.agentkit",
    "referee.cli",
    "referee.agent_game",
    "referee.human_play",
    "referee.replay",
    "referee.arguments",
    "referee.render",
    "referee.hosting",
    "referee.tournament",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ENGINE_MODULES = sorted(
    _module_name(p) for p in GAMES.rglob("*.py") if p.name != "render.py" and "__pycache__" not in p.parts
)


def _forbidden(name: str) -> bool:
    return name.endswith(".render") or any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_engine_module_imports_no_framework_module(module):
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    loaded = [name for name in json.loads(out) if name.startswith("referee")]
    assert [name for name in loaded if _forbidden(name)] == []


def test_the_forbidden_check_is_not_vacuous():
    assert _forbidden("referee.game.board") and _forbidden("referee.games.infexion.render")
    assert not _forbidden("referee.games.infexion.state")
    assert "referee.games.infinitron.state" in ENGINE_MODULES


def _imports(path: Path) -> set[str]:
    """Modules of ``referee.games`` that a file imports anywhere but under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module_name(path)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("referee.games")}


def test_no_import_cycles_among_game_modules():
    graph = {_module_name(p): _imports(p) for p in GAMES.rglob("*.py") if "__pycache__" not in p.parts}
    # A package's __init__ gathers its modules; importing a sibling module is
    # not an import of the package's gathering, so packages are left out.
    packages = {_module_name(p) for p in GAMES.rglob("__init__.py")}
    graph = {m: {t for t in targets if t in graph and t not in packages} for m, targets in graph.items()}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(module: str, path: list[str]) -> bool:
        state[module] = 1
        for nxt in sorted(graph[module]):
            if state.get(nxt) == 1:
                cycle.extend(path[path.index(nxt):] + [module, nxt] if nxt in path else [module, nxt])
                return True
            if nxt not in state and visit(nxt, path + [module]):
                return True
        state[module] = 2
        return False

    for module in sorted(graph):
        if module not in state and visit(module, []):
            break
    assert cycle == []
