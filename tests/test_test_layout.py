"""The tests' own layout: no module under tests/ imports from a test module (``test_*.py``).

A test module imported by another brings its names along: a test function
imported is collected again under the importer, a fixture of the same name
is shadowed, and the two files' tests can no longer run apart.  What tests
share lives in a helper module: tests/helpers.py, tests/support/, or a
folder's own (tests/battleground/sides.py, tests/hosting/runs.py, ...).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

TESTS = ROOT / "tests"


def imported(source: str, package: tuple[str, ...]) -> list[tuple[int, str]]:
    """Each module (and each name from a module) ``source`` imports, dotted in full, with its line.

    ``package``: the file's package (``("tests", "tournament")``), against which relative imports resolve.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            # `from tests.games import test_conformance` names a module; `from ... import test_x` a test function.
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def from_test_modules(source: str, package: tuple[str, ...]) -> list[str]:
    """What ``source`` imports from a test module of tests/ (or a test function from anywhere in it)."""
    return [f"line {line}: {name}" for line, name in imported(source, package)
            if name.split(".")[0] == "tests" and any(part.startswith("test_") for part in name.split(".")[1:])]


def python_files() -> list[Path]:
    return sorted(path for path in TESTS.rglob("*.py") if "__pycache__" not in path.parts)


def test_no_module_of_the_tests_imports_from_a_test_module():
    found = []
    for path in python_files():
        package = path.relative_to(ROOT).parts[:-1]
        found += [f"{path.relative_to(ROOT)}, {what}" for what in from_test_modules(path.read_text(), package)]
    assert found == [], "move what is shared into a helper module (not test_*.py):\n" + "\n".join(found)


@pytest.mark.parametrize(("source", "package"), [
    ("from tests.tournament.test_cli import run", ("tests", "render")),
    ("from .test_cli import run", ("tests", "tournament")),
    ("from ..render.test_html_replay import open_page", ("tests", "marking")),
    ("import tests.test_human_cli", ("tests",)),
    ("from tests.games import test_conformance", ("tests", "games", "cachex")),
    ("def later():\n    from tests.hosting.test_isolation import alive\n", ("tests", "hosting")),
])
def test_the_check_sees_an_import_from_a_test_module_in_every_spelling(source, package):
    assert from_test_modules(source, package) != []


@pytest.mark.parametrize(("source", "package"), [
    ("from tests.helpers import wait_until", ("tests", "tournament")),
    ("from .procs import marked_processes", ("tests", "tournament")),
    ("from . import fakes", ("tests", "tournament")),
    ("import pytest", ("tests",)),
])
def test_the_check_lets_helper_imports_through(source, package):
    assert from_test_modules(source, package) == []
