"""A game from outside the package (REFEREE_GAMES), with chance and turns of
several actions, played by the real referee with isolated agents."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.helpers import run_referee

ENV = dict(os.environ, REFEREE_GAMES="dice_race=tests.fixtures.dice_race:DiceRace")


def play(tmp_path: Path, seed: int, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    path = tmp_path / f"game{seed}.json"
    proc = run_referee(
        "--game", "dice_race", "-v", "1", "--seed", str(seed),
        "--record", str(path), *extra, "agents.random_agent", "agents.random_agent", env=ENV,
    )
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(path.read_text())


def test_chance_and_multi_action_turns(tmp_path):
    proc, record = play(tmp_path, 1)
    actions = record["actions"]
    rolls = [a for a in actions if a.startswith("ROLL")]
    assert len(rolls) == 3, "one roll before each of Red's three turns"
    assert actions.count("END") == 6
    assert record["moves"]["RED"] + record["moves"]["BLUE"] == len(actions) - len(rolls)
    assert record["reason"] == "score" and record["error"] == {"RED": None, "BLUE": None}
    assert "chance: ROLL(" in proc.stdout
    # A player acting twice in a row happened (STEP then END, or STEP STEP).
    assert any(a == "STEP" for a in actions)


def rolls(record: dict) -> tuple[str, ...]:
    return tuple(a for a in record["actions"] if a.startswith("ROLL"))


def test_chance_cannot_be_predicted_from_the_agents_seed_but_replays_from_the_record(tmp_path):
    # The agents get --seed; chance draws from a seed derived from it with a
    # secret of each run, so the same --seed rolls differently run to run...
    runs = [play(tmp_path, 5)[1] for _ in range(4)]
    assert len({rolls(r) for r in runs}) > 1, "the rolls follow from the agents' seed alone"
    assert all(len(r["chance_seed"]) == 32 for r in runs)
    assert len({r["chance_seed"] for r in runs}) == 4
    # ...and the record's chance seed replays them exactly.
    first = runs[0]
    _, again = play(tmp_path, 5, "--chance-seed", first["chance_seed"])
    assert again["chance_seed"] == first["chance_seed"]
    assert again["actions"] == first["actions"]


def test_unknown_plugin_spec_is_a_clear_error(tmp_path):
    proc = run_referee("agents.random_agent", "agents.random_agent", env=dict(os.environ, REFEREE_GAMES="broken"))
    assert proc.returncode == 2 and "REFEREE_GAMES" in proc.stderr and "Traceback" not in proc.stderr


def test_plugin_that_cannot_be_imported_is_a_clear_error(tmp_path):
    proc = run_referee(
        "--game", "ghost", "agents.random_agent", "agents.random_agent",
        env=dict(os.environ, REFEREE_GAMES="ghost=no_such_module:Ghost"),
    )
    assert proc.returncode == 2 and "cannot be loaded" in proc.stderr and "Traceback" not in proc.stderr
