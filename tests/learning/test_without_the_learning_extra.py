"""The referee keeps working without the learning extra: only referee/learning imports OpenSpiel, PettingZoo,
Gymnasium (and numpy, which the course's Board only uses when an agent has it), and a game is played with
those modules made unimportable."""
from __future__ import annotations

import ast
import json
import subprocess
import sys

from tests.helpers import ROOT

#: The learning extra's modules (open_spiel's bindings are ``pyspiel``).
EXTRA = ("open_spiel", "pyspiel", "pettingzoo", "gymnasium", "numpy")
#: Outside referee/learning, the one module that may import numpy: the course's Board, when an agent has it.
NUMPY_OPTIONAL = {"referee/board.py"}


def imported_roots(path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_only_the_learning_package_imports_the_learning_extra():
    found = []
    for path in sorted([*ROOT.joinpath("referee").rglob("*.py"), *ROOT.joinpath("agents").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("referee/learning/"):
            continue
        allowed = {"numpy"} if name in NUMPY_OPTIONAL else set()
        found += [f"{name}: {module}" for module in sorted(imported_roots(path) & set(EXTRA) - allowed)]
    assert found == []


# Each module of the extra made unimportable (a None in sys.modules raises ImportError on import), then the
# referee's command run in this interpreter.
BLOCKED_RUN = f"""
import json, runpy, sys
for name in {EXTRA!r}:
    sys.modules[name] = None
import referee, referee.games, referee.learning.encoding
sys.argv = ["referee", *json.loads(sys.argv[1])]
try:
    runpy.run_module("referee", run_name="__main__", alter_sys=True)
except SystemExit as stop:
    assert not stop.code, stop.code
assert all(sys.modules[name] is None for name in {EXTRA!r})
"""


def test_a_game_is_played_with_the_learning_extra_unimportable(tmp_path):
    record = tmp_path / "game.json"
    args = ["--game", "cachex", "-n", "3", "--sandbox", "off", "--record", str(record),
            "agents.random_agent", "agents.random_agent"]
    proc = subprocess.run([sys.executable, "-c", BLOCKED_RUN, json.dumps(args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text())["game"] == "cachex"


def test_the_block_is_real():
    code = "import sys\nsys.modules['pyspiel'] = None\ntry:\n    import pyspiel\nexcept ImportError:\n    print('no')"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "no"
