"""A 2022 agent may steal by returning the bare text ``"STEAL"``.

The 2022 referee wrapped any action that was not a tuple in one
(``Game.update``: ``if not isinstance(action, tuple) ...: action = (action,)``),
so ``"STEAL"`` was ``("STEAL",)`` and every agent was then told
``("STEAL",)`` in ``turn()``.  Public 2022 agents rely on it (LOOP115/Cachex's
ELDEN_KING returns ``"STEAL"``); here they used to lose by ``illegal_action``.
Anything else that is not a tuple was refused then and still is.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from referee.cachex import describe_legacy, from_legacy
from referee.games.cachex.engine import STEAL
from tests.helpers import ROOT, run_referee


def test_bare_steal_text_is_the_steal():
    assert from_legacy("STEAL") == STEAL
    assert describe_legacy("STEAL") == "a valid Cachex action"


@pytest.mark.parametrize("obj", ["steal", "STEAL ", "PLACE", "", ["STEAL"], ("STEAL", 1), b"STEAL"])
def test_other_non_tuples_are_still_refused(obj):
    # The 2022 referee wrapped these too, and then refused them: only
    # ("STEAL",) and ("PLACE", int, int) were actions.
    assert from_legacy(obj) is None


def test_a_2022_agent_returning_bare_steal_plays_on(tmp_path: Path):
    (tmp_path / "steals2022.py").write_text(
        "class Player:\n"
        "    def __init__(self, player, n):\n"
        "        self.n, self.told, self.turns = n, [], 0\n"
        "    def action(self):\n"
        "        if self.turns == 1:\n"
        "            return 'STEAL'\n"
        "        taken = {(a[1], a[2]) for a in self.told if a[0] == 'PLACE'}\n"
        "        if ('STEAL',) in self.told:\n"
        "            taken |= {(q, r) for r, q in taken}\n"
        "        return next(('PLACE', r, q) for r in range(self.n) for q in range(self.n)\n"
        "                    if (r, q) not in taken and (r, q) != (2, 2))\n"
        "    def turn(self, player, action):\n"
        "        assert isinstance(action, tuple), action\n"
        "        self.told.append(action)\n"
        "        self.turns += 1\n"
    )
    path = tmp_path / "game.json"
    proc = run_referee(
        "--game", "cachex", "-n", "5", "-v", "0", "--seed", "1", "--record", str(path),
        "agents.greedy", "steals2022",
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(path.read_text())
    assert record["actions"][1] == "STEAL"
    # Blue went on playing after its steal: told ("STEAL",), a tuple (its turn() asserts it).
    assert record["error"]["BLUE"] is None, record["message"]
    assert record["reason"] in ("connection", "repetition", "turn_limit")
