"""The tuning tool behind the fitted Infexion evaluation (benchmarks/infexion_tuning.py)."""
from __future__ import annotations

import json
import math
import random

from agents.common.heuristics.infexion import InfexionHeuristics, evaluation_terms
from benchmarks import infexion_tuning as tuning
from referee.games.infexion.engine import MAX_TURNS, InfexionState, cell_coords


def test_the_fit_recovers_the_weights_that_generated_the_results():
    rng = random.Random(5)
    truth = [0.3, 0.08, -0.05, -0.2]
    xs, ys = [], []
    for _ in range(6000):
        x = (rng.randint(-6, 6), rng.randint(0, 9), rng.randint(0, 9), rng.randint(-4, 4))
        p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(truth, x))))
        xs.append(x)
        ys.append(float(rng.random() < p))
    fitted, loss = tuning.logistic_fit(xs, ys)
    assert all(abs(f - t) < 0.04 for f, t in zip(fitted, truth)), fitted
    # The maximum: nudging any weight makes the loss worse.
    for i in range(4):
        nudged = fitted[:]
        nudged[i] += 0.02
        assert tuning.mean_loss(xs, ys, nudged) > loss


def test_recorded_positions_give_the_terms_the_evaluation_sees(tmp_path):
    game = tuning.play(7, {"agent": "mcts"}, {"agent": "minimax"}, move_time=0.002)
    assert game["winner"] in (0, 1, None) and game["turns"] == len(game["positions"]) + 2
    h = InfexionHeuristics()
    for hexed, turn in game["positions"]:
        board = bytes.fromhex(hexed)
        state = InfexionState({cell_coords(c): (v >> 3, v & 7) for c, v in enumerate(board) if v}, turn)
        assert tuning._powers(board) == (state.red_power, state.blue_power)
        power, mine, theirs, stacks = evaluation_terms(board, turn, *tuning._powers(board))
        if turn < MAX_TURNS - 1:  # (the game's last action is valued exactly: tested with the heuristics)
            assert 100 * power + h.my_take * mine - h.their_take * theirs + h.spread * stacks == h.evaluate(state)
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(game) + "\n")
    assert tuning.main(["fit", str(path)]) == 0


def test_bad_settings_are_a_usage_error_not_a_traceback(capsys):
    assert tuning.main(["match", "{not json", "{}"]) == 2
    assert "error:" in capsys.readouterr().err
    assert tuning.main(["match", '{"heuristics": {"spred": 1}}', "{}", "--games", "2"]) == 2
    assert "spred" in capsys.readouterr().err


def test_a_match_plays_each_opening_with_both_colours(capsys):
    assert tuning.main(["match", '{"agent": "minimax"}', "{}", "--games", "4", "--move-time", "0.002",
                        "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "/4 (" in out
    pairs = json.loads(out.split("2: ")[1])
    assert sum(pairs) == 2  # two openings, each played twice


def test_an_endgame_match_starts_from_the_recorded_positions(tmp_path, capsys):
    games = [tuning.play(seed, {"agent": "mcts"}, {"agent": "mcts"}, move_time=0.002) for seed in (1, 2)]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(game) + "\n" for game in games))
    starts = tuning.late_positions(path.read_text().splitlines(), 20)
    assert [turn for _, turn in starts] == [20, 20]
    # A game from a recorded position goes on from that very position.
    replayed = tuning.play(0, {"agent": "minimax"}, {"agent": "mcts"}, 0.002, start=starts[0])
    assert tuple(replayed["positions"][0]) == starts[0]
    assert tuning.main(["match", '{"agent": "minimax"}', "{}", "--openings", str(path), "--at", "20",
                        "--games", "8", "--move-time", "0.002", "--workers", "1"]) == 0
    pairs = json.loads(capsys.readouterr().out.split("2: ")[1])
    assert sum(pairs) == 2  # only the two recorded games, each played with both colours
    assert tuning.main(["match", "{}", "{}", "--openings", str(path), "--at", "400"]) == 2
    assert "lasted 400 actions" in capsys.readouterr().err
