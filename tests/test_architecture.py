"""The directions of imports that docs/architecture.md lists, checked on the tree.

Every ``import`` under ``referee/`` and ``agents/`` (at module level or inside
a function) is read with :mod:`ast`; an import from one part to another that
the page does not allow fails, naming the file and line.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

COMPAT = {"referee.game", "referee.cachex", "referee.infinitron", "referee.board", "referee.agentkit"}
COMMANDS = {
    "referee.cli", "referee.agent_game", "referee.human_play", "referee.replay", "referee.arguments",
    "referee.termination",
    "referee.__main__", "referee.marking",
}

#: Part -> the parts (or, for hosting, the modules) it may import.
ALLOWED: dict[str, set[str]] = {
    "referee.games": set(),
    "referee.limits": set(),
    "referee.agent_text": set(),
    "referee.exit_status": set(),
    "referee.console": set(),
    "referee.yaml_file": set(),
    **{part: {"referee.games", "referee.game"} for part in COMPAT},
    "referee.hosting": {"referee.games", "referee.game.player", "referee.limits"},
    "referee.core": {"referee.__version__", "referee.games", "referee.hosting.failures", "referee.limits",
                     "referee.records"},
    "referee.match": {
        "referee.core", "referee.games", "referee.hosting", "referee.limits", "referee.records",
        "referee.termination",
    },
    "referee.records": {"referee.games", "referee.hosting.failures"},
    "referee.render": {
        "referee.core", "referee.games", "referee.records", "referee.match", "referee.hosting.failures",
        "referee.hosting.process", "referee.agent_text", "referee.limits",
    },
    "referee.tournament": {
        "referee.core", "referee.match", "referee.records", "referee.limits", "referee.games", "referee.render",
        "referee.arguments", "referee.termination", "referee.hosting.sandbox", "referee.hosting.failures",
        "referee.hosting.environment", "referee.agent_text", "referee.exit_status", "referee.yaml_file",
    },
    "referee.search": {"referee.games", "referee.arguments", "referee.agent_text", "referee.exit_status"},
    "referee.battleground": {
        "referee.__version__", "referee.core", "referee.games", "referee.match", "referee.records", "referee.hosting",
        "referee.limits", "referee.render", "referee.tournament.ratings", "referee.tournament.executor",
        "referee.arguments", "referee.termination",
        "referee.exit_status", "referee.agent_text",
    },
    "agents": {"referee.games", "referee.agentkit", "referee.game", "referee.cachex", "referee.board"},
}


def module_name(path: Path) -> str:
    """The dotted name of a source file (a package's ``__init__`` is the package)."""
    names = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(names[:-1] if names[-1] == "__init__" else names)


def part(module: str) -> str | None:
    """The part of the tree a module belongs to (None: outside the project)."""
    names = module.split(".")
    if names[0] == "agents":
        return "agents"
    if names[0] != "referee":
        return None
    return "referee" if len(names) == 1 else f"referee.{names[1]}"


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file."""
    relative = path.relative_to(ROOT).with_suffix("")
    module_parts = list(relative.parts)
    # A module's package is its folder (an ``__init__``'s too).
    package = module_parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from pkg import module`` imports the module: judge it by its full name.
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def allowed(source_part: str, target: str) -> bool:
    """Whether ``source_part`` may import ``target`` (a module, or a name in one)."""
    target_part = part(target)
    if target_part is None or target_part == source_part:
        return True
    rules = ALLOWED.get(source_part)
    if rules is None:  # the commands: anything
        return True
    return any(target == rule or target.startswith(rule + ".") for rule in rules)


SOURCES = sorted([*ROOT.joinpath("referee").rglob("*.py"), *ROOT.joinpath("agents").rglob("*.py")])


def test_every_part_of_the_tree_is_listed():
    parts = {part(module_name(p)) for p in SOURCES}
    unlisted = {p for p in parts if p not in ALLOWED and p not in COMMANDS and p != "referee"}
    assert not unlisted, f"parts not in docs/architecture.md's table: {sorted(unlisted)}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_the_documented_way(path):
    source_part = part(module_name(path))
    assert source_part is not None
    wrong = [f"{path.relative_to(ROOT)}:{line}: {target}" for line, target in imports(path)
             if not allowed(source_part, target)]
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_the_check_catches_a_wrong_direction():
    # The engines must not reach hosting, nor hosting the tournament, nor an agent the match loop.
    assert not allowed("referee.games", "referee.hosting.process")
    assert not allowed("referee.hosting", "referee.tournament.runner")
    assert not allowed("agents", "referee.match.play_match")
    assert not allowed("referee.tournament", "referee.hosting.process.HostedAgent")
    assert not allowed("referee.match", "referee.tournament.api.run")
    assert allowed("referee.tournament", "referee.hosting.sandbox.resolve")
    assert allowed("referee.core", "referee.__version__")
    assert not allowed("referee.core", "referee.hosting.process.HostedAgent")


#: No module longer than this (docs/architecture.md): past it, a module holds more than one thing.
MODULE_LINES = 900
#: A function longer than this says why, in a comment right after its docstring.
FUNCTION_LINES = 120


def long_functions_without_a_reason(path: Path) -> list[str]:
    """``name (N lines)`` of each function in ``path`` over FUNCTION_LINES whose body does not open with a comment."""
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length <= FUNCTION_LINES:
            continue
        body = node.body
        has_docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
        code = body[1] if has_docstring and len(body) > 1 else body[0]
        # The lines between the signature (or docstring) and the first statement: where the reason is written.
        start = (body[0].end_lineno or body[0].lineno) if has_docstring else node.lineno
        if not any(line.strip().startswith("#") for line in lines[start:code.lineno - 1]):
            found.append(f"{path.relative_to(ROOT)}: {node.name} ({length} lines)")
    return found


def test_no_module_too_long_and_no_long_function_without_its_reason():
    too_long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in SOURCES
                if (n := len(p.read_text().splitlines())) > MODULE_LINES]
    assert too_long == []
    assert [reason for p in SOURCES for reason in long_functions_without_a_reason(p)] == []


def test_a_long_function_without_a_comment_is_found(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f'def long():\n    """Doc."""\n{body}\n\ndef explained():\n    """Doc."""\n'
                                      f"    # Why it is long.\n{body}")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert long_functions_without_a_reason(tmp_path / "long.py") == [f"long.py: long ({FUNCTION_LINES + 2} lines)"]
    finally:
        ROOT = saved
