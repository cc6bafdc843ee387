"""The endgame solver: a complete search to the game's end, and the MCTS agent playing it."""
from __future__ import annotations

import random

from agents.common.alphabeta import SearchResult
from agents.common.clock import Deadline
from agents.common.endgame import EndgameSolver
from agents.common.heuristics import WIN
from agents.common.heuristics.infexion import InfexionHeuristics
from agents.common.mcts import MctsResult
from agents.mcts import Agent as MctsAgent
from referee.game import PlayerColor
from referee.game.actions import to_engine_action
from referee.games.infexion import InfexionState
from referee.games.infexion.engine import MAX_TURNS


def late_position(rng: random.Random, turn: int) -> InfexionState | None:
    """The board of a random game's opening, put at action ``turn``."""
    state = InfexionState()
    for _ in range(rng.randrange(10, 80)):
        if state.is_over:
            return None
        state.apply(state.random_action(rng))
    if state.is_over:
        return None
    late = InfexionState(turn=turn)
    for cell, value in enumerate(state.board):
        late.set_cell(cell, value)
    return None if late.is_over else late


def plain_minimax(state: InfexionState, depth: int, h: InfexionHeuristics, ply: int = 0) -> int:
    """The value for the mover by trying every legal action (the oracle: no pruning, no table)."""
    outcome = state.outcome
    if outcome is not None:
        if outcome.winner is None:
            return 0
        # The mover of a finished game is the one who did not make the last action.
        return -(WIN - ply) if outcome.winner != state.current_player else WIN - ply
    if depth == 0:
        return h.evaluate(state)
    best = -2 * WIN
    for action in state.legal_actions():
        state.apply(action)
        best = max(best, -plain_minimax(state, depth - 1, h, ply + 1))
        state.undo()
    return best


def test_the_solver_finds_the_value_of_trying_every_action_to_the_end():
    # From actions 340 and 341 every position two or one plies on is valued
    # exactly (the game is over, or its last action is valued by its best
    # result): the solver's value and move must be those of the plain search.
    h = InfexionHeuristics()
    rng = random.Random(2026)
    verdicts = set()
    tried = 0
    while tried < 16:
        turn = rng.choice([MAX_TURNS - 3, MAX_TURNS - 2])
        state = late_position(rng, turn)
        if state is None:
            continue
        tried += 1
        solver = EndgameSolver(h, 3, rng=random.Random(tried))
        assert solver.plies(state) == MAX_TURNS - 1 - turn
        action = solver.solve(state, Deadline(60))
        assert action is not None and solver.last is not None
        truth = plain_minimax(state, MAX_TURNS - 1 - turn, h)
        assert solver.last.value == truth
        state.apply(action)
        assert -plain_minimax(state, MAX_TURNS - 2 - turn, h, 1) == truth  # the move keeps it
        verdicts.add((truth > 0) - (truth < 0))
    assert verdicts == {-1, 0, 1}


def test_the_solver_leaves_positions_far_from_the_end_alone():
    h = InfexionHeuristics()
    solver = EndgameSolver(h, 3)
    state = late_position(random.Random(7), MAX_TURNS - 10)
    assert state is not None and solver.plies(state) is None
    assert solver.solve(state, Deadline(60)) is None
    # Nor does it answer when its search cannot finish in the time given.
    state = late_position(random.Random(7), MAX_TURNS - 4)
    assert state is not None and solver.plies(state) == 3
    assert solver.solve(state, Deadline(0)) is None


def make_mcts(**options) -> MctsAgent:
    return MctsAgent(color=PlayerColor.RED, game="infexion", game_options={}, seed=5, time_remaining=None,
                     space_limit=None, space_remaining=None, **options)


def test_the_mcts_agent_plays_the_solvers_move_near_the_end():
    h = InfexionHeuristics()
    rng = random.Random(11)
    played = 0
    while played < 5:
        state = late_position(rng, MAX_TURNS - 3)  # Red moves at even actions: 340
        if state is None:
            continue
        played += 1
        truth = plain_minimax(state.copy(), 2, h)
        agent = make_mcts()
        agent.view.state = state.copy()
        action = to_engine_action(agent.action(time_remaining=None))
        assert isinstance(agent.last, SearchResult) and agent.last.value == truth
        state.apply(action)
        assert -plain_minimax(state, 1, h, 1) == truth
        # With the solver off, MCTS decides.
        off = make_mcts(endgame=0, move_time=0.05)
        off.view.state = agent.view.state.copy()
        off.action(time_remaining=None)
        assert isinstance(off.last, MctsResult)
