"""The marks and the turning point from given evaluations (review.py is pure), and decisions from real games."""
from __future__ import annotations

import random

import pytest

from referee.analysis.engine import Evaluation
from referee.analysis.review import (
    BLUNDER, INACCURACY, MISTAKE, Decision, decisions, judge, severity, turning_point,
)
from referee.games import load_game
from referee.games.base import BLUE, CHANCE, RED


def played(game: str, count: int, seed: int, **options) -> list[str]:
    """The texts of ``count`` random actions (chance drawn too) from the game's start."""
    state = load_game(game, **options).new_state()
    rng = random.Random(seed)
    texts = []
    while len(texts) < count and not state.is_over:
        action = state.sample_chance(rng) if state.current_player == CHANCE else state.random_action(rng)
        texts.append(state.action_to_str(action))
        state.apply(action)
    return texts


def test_each_action_is_a_decision_where_the_sides_alternate():
    actions = played("infexion", 30, 1)
    found = decisions(load_game("infexion").new_state(), actions)
    assert [d.actions for d in found] == [(a,) for a in actions]
    assert [d.color for d in found] == [RED, BLUE] * 15


def test_an_infinitron_turn_is_one_decision_and_chance_is_nobodys():
    actions = played("infinitron", 400, 3, chaos=True)
    game = load_game("infinitron", chaos=True)
    found = decisions(game.new_state(), actions)
    # Replayed: every action of a decision is its side's, and the actions no decision holds are chance's.
    state = game.new_state()
    mine = {i for d in found for i in range(d.start, d.end)}
    chance = 0
    for index, text in enumerate(actions):
        if index in mine:
            [decision] = [d for d in found if d.start <= index < d.end]
            assert state.current_player == decision.color
        else:
            assert state.current_player == CHANCE
            chance += 1
        state.apply(state.parse_action(text))
    assert chance > 0, "the sample game drew no chance event"
    assert any(len(d.actions) > 1 for d in found) and any(d.actions[-1] == "END_TURN" for d in found)


@pytest.mark.parametrize("drop, mark", [(0.0, None), (INACCURACY - 0.01, None), (INACCURACY, "inaccuracy"),
                                        (MISTAKE, "mistake"), (BLUNDER - 0.001, "mistake"), (0.9, "blunder")])
def test_the_marks_thresholds(drop, mark):
    assert severity(drop) == mark


def red(chance: float, best: str | None = None, proven: bool = False) -> Evaluation:
    return Evaluation(chance, best, proven)


def test_a_decision_is_judged_against_the_engines_from_the_same_position():
    found = [Decision(0, RED, ("a",)), Decision(1, BLUE, ("b",)), Decision(2, RED, ("c",))]
    positions = [red(0.5, "a"), red(0.5, "x"), red(0.2, "y")]
    afters = [red(0.5), red(0.2), red(0.05)]
    # RED played the engine's move; BLUE's b left Red 20 % where the engine's x left Red 60 %: not a mistake of
    # BLUE's (Blue is better off); RED's c left Red 5 % where the engine's y left it 30 %: a mistake.
    lines = [(("a",), None), (("x",), red(0.6)), (("y",), red(0.3))]
    judged = judge(found, positions, afters, lines)
    assert [j.severity for j in judged] == [None, None, "mistake"]
    assert judged[2].drop == pytest.approx(0.25) and judged[2].better == "y" and judged[0].better is None
    assert judged[1].after == pytest.approx(0.8) and judged[1].engine_after == pytest.approx(0.4)


def test_a_proven_result_kept_is_no_mistake_whatever_the_estimates():
    found = [Decision(0, RED, ("a",))]
    judged = judge(found, [red(1.0, "b", True)], [red(1.0, None, True)], [(("b",), red(1.0, None, True))])
    assert judged[0].severity is None
    lost = judge(found, [red(1.0, "b", True)], [red(0.3)], [(("b",), red(1.0, None, True))])
    assert lost[0].severity == "blunder"  # a won game thrown away


def judged_game(values: list[tuple[int, float, float]]):
    """Decisions (color, mover's chance after it, after the engine's) judged, one action each."""
    found = [Decision(i, color, (f"m{i}",)) for i, (color, _, _) in enumerate(values)]
    afters = [red(after if color == RED else 1 - after) for color, after, _ in values]
    lines = [((f"e{i}",), red(engine if color == RED else 1 - engine)) for i, (color, _, engine) in enumerate(values)]
    return judge(found, [red(0.5, f"e{i}") for i in range(len(values))], afters, lines)


def test_the_turning_point_is_the_losers_last_decision_from_an_even_game():
    judged = judged_game([(RED, 0.55, 0.6), (BLUE, 0.5, 0.5), (RED, 0.4, 0.55), (BLUE, 0.7, 0.7),
                          (RED, 0.2, 0.35), (BLUE, 0.9, 0.9)])
    point = turning_point(judged, "RED")
    assert point is judged[2]  # even with the engine's move (55 %), below with its own (40 %), never even again
    assert turning_point(judged, None) is None  # a draw has none


def test_a_loser_behind_from_the_start_is_shown_its_costliest_decision():
    judged = judged_game([(RED, 0.3, 0.35), (BLUE, 0.8, 0.8), (RED, 0.1, 0.3), (BLUE, 0.9, 0.9)])
    assert turning_point(judged, "RED") is judged[2]
    perfect = judged_game([(RED, 0.3, 0.3), (BLUE, 0.8, 0.8)])
    assert turning_point(perfect, "RED") is None  # nothing it could have done better
