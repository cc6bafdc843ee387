"""Cachex through the real referee: our protocol and the course's 2022 one."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from referee.games.cachex import CachexState

ROOT = Path(__file__).resolve().parents[2]
LEGACY = "tests.hosting.fixture_agents.cachex2022"


def play(tmp_path: Path, red: str, blue: str, *options: str) -> dict:
    path = tmp_path / "game.json"
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "--game", "cachex", "-v", "1", "--record", str(path), *options, red, blue],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(path.read_text())


def replayed(record: dict) -> CachexState:
    state = CachexState(record["game_options"]["n"])
    for text in record["actions"]:
        state.apply_checked(state.parse_action(text))
    return state


def test_2022_player_plays_a_full_game_unchanged(tmp_path):
    for n in (5, 7):
        record = play(tmp_path, "agents.random_agent", LEGACY, "-n", str(n), "--seed", str(n))
        assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
        assert record["reason"] in ("connection", "repetition", "turn_limit")
        assert record["actions"][1] == "STEAL"  # the 2022 agent steals as Blue
        outcome = replayed(record).outcome
        assert outcome.reason == record["reason"] and outcome.winner_name == record["winner"]


def test_2022_player_as_red_and_explicit_class(tmp_path):
    record = play(tmp_path, f"{LEGACY}:Player", "agents.random_agent", "-n", "5", "--seed", "2")
    assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
    assert record["reason"] in ("connection", "repetition", "turn_limit")


def test_2022_player_returning_a_bad_tuple_loses_with_the_reason(tmp_path):
    bad = tmp_path / "bad2022.py"
    bad.write_text("class Player:\n    def __init__(self, player, n): pass\n    def action(self): return ['PLACE', 1, 1]\n"
                   "    def turn(self, player, action): pass\n")
    path = tmp_path / "game.json"
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "--game", "cachex", "-n", "5", "-v", "0", "--record", str(path),
         "bad2022", "agents.random_agent"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(path.read_text())
    assert (record["winner"], record["reason"]) == ("BLUE", "illegal_action")
    assert "expected a tuple" in record["error"]["RED"]["message"]


def test_cachex_board_shown_and_n_passed_to_agents(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "--game", "cachex", "-n", "4", "--seed", "1",
         "agents.random_agent", "agents.random_agent"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "plays action PLACE(" in proc.stdout and "result:" in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "referee", "--game", "cachex", "-n", "16", "agents.random_agent", "agents.random_agent"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and "3" in bad.stderr and "15" in bad.stderr and "Traceback" not in bad.stderr
