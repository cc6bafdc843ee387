"""benchmarks/cachex_2022.py: the bundled agents' rows against a 2022 agent, from hand-made records."""
from __future__ import annotations

import json

from benchmarks.cachex_2022 import main, table


def record(red, blue, winner, reason, n=5, times=(3.0, 1.0), error=None):
    return {
        "game": "cachex", "red_name": red, "blue_name": blue, "winner": winner, "reason": reason,
        "game_options": {"n": n}, "time_used": {"RED": times[0], "BLUE": times[1]},
        "error": {"RED": {"kind": "time_limit"} if error == "RED" else None,
                  "BLUE": {"kind": "time_limit"} if error == "BLUE" else None},
        "extra": {"pairing": ["slips", red if blue == "slips" else blue]},
    }


def test_rows_are_from_the_bundled_agents_side_by_colour_with_forfeits_cpu_and_endings(tmp_path, capsys):
    games = [
        record("mcts", "slips", "RED", "connection", times=(6.0, 1.0)),  # mcts Red, wins
        record("slips", "mcts", "RED", "connection", times=(2.0, 8.0)),  # mcts Blue, loses
        record("slips", "mcts", None, "turn_limit", times=(1.0, 4.0)),  # mcts Blue, a draw: half
        record("slips", "minimax", "BLUE", "time_limit", n=6, times=(36.0, 9.0), error="RED"),  # slips forfeits
    ]
    lines = table(games)
    assert lines[2] == (
        "| 5 | mcts | slips | 3 | 50 % | 1/1 | 0.5/2 | 0/0 | 6.0 / 1.3 of 25 | connection 2, turn_limit 1 |"
    )
    assert lines[3] == "| 6 | minimax | slips | 1 | 100 % | 0/0 | 1/1 | 0/1 | 9.0 / 36.0 of 36 | time_limit 1 |"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    assert main([str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.splitlines() == lines


def test_a_folder_without_records_is_named(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
