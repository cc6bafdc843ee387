"""The directions of imports that docs/architecture.md lists, checked on the tree.

Every ``import`` under ``referee/`` and ``agents/`` (at module level or inside
a function) is read with :mod:`ast`; an import from one part to another that
the page does not allow fails, naming the file and line.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: The page whose table of parts is the rule (its last column: what each part may import).
DOC = ROOT / "docs" / "architecture.md"
#: A name the table's last column allows: a module of the framework, or the agents.
_NAME = re.compile(r"`(referee(?:\.[A-Za-z_][A-Za-z0-9_]*)*|agents)`")


def part_names(cell: str) -> list[str]:
    """The parts a row of the table is about: each ``referee/...`` path in backticks (``agent_game/`` and the
    like in the commands' row: under ``referee/``), as a dotted name; ``<g>`` placeholders are not parts."""
    names = []
    for path in re.findall(r"`([^`]+)`", cell):
        if "<" in path or not re.fullmatch(r"[A-Za-z_./]+", path) or not (path.endswith("/") or path.endswith(".py")):
            continue
        if not path.startswith(("referee/", "agents/")):
            path = "referee/" + path
        names.append(path.rstrip("/").removesuffix(".py").replace("/", "."))
    return names


def documented_rules(text: str) -> tuple[dict[str, set[str]], set[str]]:
    """The table of parts in ``text``: each part -> the names it may import, and the parts that are commands
    (*anything*)."""
    allowed: dict[str, set[str]] = {}
    commands: set[str] = set()
    section = text.split("## The parts", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        parts, rule = part_names(cells[0]), cells[2]
        for name in parts:
            if "*anything*" in rule:
                commands.add(name)
            elif not rule.startswith("("):  # a sub-part's row ("(part of the games: ...)") adds no rule
                allowed[name] = set(_NAME.findall(rule))
    return allowed, commands


ALLOWED, COMMANDS = documented_rules(DOC.read_text())


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


def test_the_pages_table_is_read_as_the_rule():
    page = """# x

## The parts

| Part | What it holds | May import |
|---|---|---|
| `referee/core.py` | the core | `referee.games`, `referee.hosting.failures` (why, with `words`) |
| `referee/games/<g>/` | a game | (part of the games) |
| `referee/cli.py`, `replay/` | commands | *anything* above |
| `referee/limits.py` | limits | nothing |

## Next
| `referee/late.py` | not in the table | `referee.core` |
"""
    allowed, commands = documented_rules(page)
    assert allowed == {"referee.core": {"referee.games", "referee.hosting.failures"}, "referee.limits": set()}
    assert commands == {"referee.cli", "referee.replay"}
    # The real page: every part of the tree has its row (test_every_part_of_the_tree_is_listed), and these two
    # rows say what they always said.
    assert ALLOWED["referee.games"] == set() and "referee.hosting" not in ALLOWED["referee.records"]


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
