"""benchmarks/infinitron_balance.py: Red's share, its interval, turns and endings from hand-made records."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.infinitron_balance import main, player_turns, tally, wilson


def record(winner, reason, ends, red="agents.greedy", blue="agents.mcts", **options):
    actions = ["DEFINE(1, 2, 2, MELEE, NONE)"] + ["END_TURN"] * ends
    return {"game": "infinitron", "red": red, "blue": blue, "winner": winner, "reason": reason,
            "actions": actions, "game_options": {"seed": 1, **options}}


def test_wilson_interval_by_hand():
    # p = 1/2, n = 100, z = 1.96: centre 1/2, half-width 1.96 * sqrt(0.0025 + 3.8415 / 40000) / 1.0384 = 0.0962
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    # n = 3, 1.5 points (a draw): half-width 1.96 * sqrt(0.25 / 3 + 3.8415 / 36) / 2.2805 = 0.3747
    lo, hi = wilson(1.5, 3)
    assert lo == pytest.approx(0.1253, abs=1e-4) and hi == pytest.approx(0.8747, abs=1e-4)
    assert wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12) and wilson(10, 10)[1] == pytest.approx(1.0)


def test_turns_count_each_players_turn_and_the_turn_a_capital_fell():
    assert player_turns(["END_TURN", "MOVE(0, 1, 1)", "END_TURN", "MOVE(0, 1, 2)"], "capital") == 3
    assert player_turns(["END_TURN"] * 343, "turn_limit") == 343


def test_draws_count_half_forfeits_apart_configurations_and_pairings_separate():
    records = [
        record("RED", "capital", 10, rules="1.2"),
        record(None, "turn_limit", 343, rules="1.2"),
        record("BLUE", "turn_limit", 343, red="agents.mcts", blue="agents.greedy", rules="1.2"),
        record("BLUE", "time", 5, rules="1.2"),  # a forfeit: not in the share
        record("RED", "capital", 20),  # no rules option: a record from before 1.2
    ]
    rows = tally(records, by_pairing=True)
    new = rows[("1.2, no chaos, no armour", "all")]
    assert (new.red, new.draws, new.blue, new.forfeits, new.by_score) == (1, 1, 1, 1, 2)
    assert new.row()[:5] == ["3", "1-1-1", "50.0 % [12.5, 87.5]", f"{(11 + 343 + 343) / 3:.1f}", "66.7 %"]
    assert rows[("1.2, no chaos, no armour", "greedy v mcts")].games == 3  # both colours together
    assert rows[("1.1, no chaos, no armour", "all")].red == 1


def test_the_command_reads_folders_and_prints_a_table(tmp_path: Path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "games.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in [record("RED", "capital", 4, chaos=True), record("BLUE", "capital", 5)])
    )
    assert main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert "| 1.1, chaos, no armour | all | 1 | 1-0-0 |" in out
    assert "| 1.1, no chaos, no armour | all | 1 | 0-0-1 |" in out
