"""The bundled agents on Infexion: legal play, time limits, forced wins, options.

Games are played in-process through the agents' own classes (the protocol
the referee uses, with every action checked by the engine) to keep them
fast; the time-limit tests run the real referee, whose limits are real.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.common.agent import OptionError
from agents.common.alphabeta import AlphaBeta
from agents.common.clock import Deadline, move_budget
from agents.common.heuristics import WIN, WIN_ZONE
from agents.common.heuristics.infexion import InfexionHeuristics, spread_gains
from agents.common.mcts import MCTS, _tree_size
from referee.game import PlayerColor
from referee.game.actions import from_engine_action, to_engine_action
from referee.games.base import BLUE, RED
from referee.games.infexion import InfexionState
from referee.games.infexion.engine import MAX_TURNS
from tests.helpers import run_referee

AGENTS = {
    "random": "agents.random_agent",
    "greedy": "agents.greedy",
    "minimax": "agents.minimax",
    "mcts": "agents.mcts",
}
# Options that make a search's choice independent of the machine's speed.
FIXED_EFFORT = {"random": {}, "greedy": {}, "minimax": {"depth": 2}, "mcts": {"iterations": 60}}


def make(name: str, color: PlayerColor, seed: int, **options):
    module = __import__(AGENTS[name], fromlist=["Agent"])
    return module.Agent(color=color, game="infexion", game_options={}, seed=seed, time_remaining=None,
                        space_limit=None, space_remaining=None, **options)


def play(red, blue, state: InfexionState | None = None) -> InfexionState:
    """Play to the end as the referee would, checking every action with the engine."""
    state = state or InfexionState()
    agents = (red, blue)
    kwargs = {"time_remaining": None, "space_limit": None, "space_remaining": None}
    while not state.is_over:
        mover = state.current_player
        returned = agents[mover].action(**kwargs)
        action = to_engine_action(returned)
        assert action is not None, f"{returned!r} is not an action"
        problem = state.illegal_reason(action)
        assert problem is None, f"{type(agents[mover]).__module__} played {returned}: {problem}"
        state.apply(action)
        if state.is_over:
            break
        for agent in agents:
            agent.turn(PlayerColor(mover), returned, **kwargs)
    return state


@pytest.mark.parametrize("name", ["greedy", "minimax", "mcts"])
def test_only_legal_actions_in_many_seeded_games(name):
    finished = 0
    for seed in range(6):
        opponent = ["random", "greedy", "minimax", "mcts"][seed % 4]
        pair = [make(name, PlayerColor.RED, seed, **FIXED_EFFORT[name]),
                make(opponent, PlayerColor.BLUE, seed, **FIXED_EFFORT[opponent])]
        if seed % 2:
            pair = [make(opponent, PlayerColor.RED, seed, **FIXED_EFFORT[opponent]),
                    make(name, PlayerColor.BLUE, seed, **FIXED_EFFORT[name])]
        state = play(*pair)
        finished += state.outcome is not None
    assert finished == 6


def test_search_agents_beat_random_in_process():
    # Not the strength benchmark (that is configs/strength.yaml): a smoke
    # check that the searches are wired to the evaluation the right way round.
    for seed in range(4):
        for name in ("greedy", "minimax", "mcts"):
            colour = RED if seed % 2 == 0 else BLUE
            me = make(name, PlayerColor(colour), seed, **FIXED_EFFORT[name])
            them = make("random", PlayerColor(1 - colour), seed)
            agents = (me, them) if colour == RED else (them, me)
            assert play(*agents).outcome.winner == colour, (name, seed)


WIN_IN_ONE = "......./......./..r2b1b1../......./......./....r3../....... 40"
#: Found by a brute-force search; its property is re-checked below.  Total
#: power is 49, so Blue cannot spawn an escape.
WIN_IN_TWO = "......./.r3..r3r3r5/.....r3./r4..b2.r5./b3.r5r5.../...r4.../r4...... 100"


def _winning_now(state: InfexionState, player: int) -> set[int]:
    found = set()
    for a in state.legal_actions():
        state.apply(a)
        outcome = state.outcome
        state.undo()
        if outcome is not None and outcome.winner == player:
            found.add(a)
    return found


def _forcing_in_two(state: InfexionState, player: int) -> set[int]:
    found = set()
    for a in state.legal_actions():
        state.apply(a)
        if state.outcome is None and all(
            _reply_loses(state, r, player) for r in state.legal_actions()
        ):
            found.add(a)
        state.undo()
    return found


def _reply_loses(state: InfexionState, reply: int, player: int) -> bool:
    state.apply(reply)
    outcome = state.outcome
    lost = outcome.winner == player if outcome is not None else bool(_winning_now(state, player))
    state.undo()
    return lost


def test_hand_made_positions_have_the_claimed_forced_wins():
    one = InfexionState.from_text(WIN_IN_ONE)
    assert len(_winning_now(one, RED)) == 1
    two = InfexionState.from_text(WIN_IN_TWO)
    assert not _winning_now(two, RED) and len(_forcing_in_two(two, RED)) == 1


@pytest.mark.parametrize("text,brute", [(WIN_IN_ONE, _winning_now), (WIN_IN_TWO, _forcing_in_two)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_searches_find_forced_wins(text, brute, seed):
    state = InfexionState.from_text(text)
    winning = brute(state, RED)
    h = InfexionHeuristics()
    found = AlphaBeta(h, rng=random.Random(seed)).choose(state, Deadline(30), max_depth=4)
    assert found.action in winning and found.value > WIN - WIN_ZONE
    tree = MCTS(h, rng=random.Random(seed)).choose(state, Deadline(30), iterations=5000)
    assert tree.action in winning and tree.proven == 1
    if brute is _winning_now:
        greedy = make("greedy", PlayerColor.RED, seed)
        greedy.view.state = state.copy()
        assert to_engine_action(greedy.action(time_remaining=None)) in winning


def test_mcts_reuses_its_tree_across_both_players_moves():
    kwargs = {"time_remaining": None}
    agent = make("mcts", PlayerColor.RED, 3, iterations=400)
    mine = agent.action(**kwargs)
    agent.turn(PlayerColor.RED, mine, **kwargs)
    child = agent.search.root
    assert child is not None and child.total > 0
    # Blue answers with the reply the tree looked at most: its subtree is kept.
    best = max(range(len(child.actions)), key=child.visits.__getitem__)
    grandchild = child.children[best]
    visits = grandchild.total
    agent.turn(PlayerColor.BLUE, from_engine_action(child.actions[best]), **kwargs)
    assert agent.search.root is grandchild and visits > 0
    agent.action(**kwargs)
    assert grandchild.total >= visits + 400 - 1
    # A reply the tree never saw starts a fresh tree, and play goes on.
    agent.turn(PlayerColor.RED, agent.action(**kwargs), **kwargs)
    unseen = [a for a in agent.view.state.legal_actions()
              if agent.search.root.children[agent.search.root.actions.index(a)] is None]
    agent.turn(PlayerColor.BLUE, from_engine_action(unseen[0]), **kwargs)
    assert agent.search.root is None
    assert to_engine_action(agent.action(**kwargs)) in agent.view.state.legal_actions()


def test_a_full_mcts_tree_keeps_searching_without_growing():
    # A blue stack out of reach, so no quick proof ends the search.
    state = InfexionState.from_text("b1....../" + WIN_IN_TWO.split("/", 1)[1].replace(" 100", " 60"))
    search = MCTS(InfexionHeuristics(), max_nodes=300, rng=random.Random(2))
    result = search.choose(state, Deadline(60), iterations=3000)
    assert result.simulations == 3000
    assert _tree_size(search.root) <= 301
    assert sum(search.root.visits) == 3000


def test_search_order_offers_every_legal_action_at_the_root():
    rng = random.Random(4)
    h = InfexionHeuristics()
    state = InfexionState()
    while not state.is_over:
        full = h.ordered_actions(state, rng, prune=False)
        assert sorted(full) == sorted(state.legal_actions())
        assert set(h.ordered_actions(state)) <= set(full)
        state.apply(state.random_action(rng))


def test_spread_gains_match_the_change_in_power_difference():
    rng = random.Random(8)
    state = InfexionState()
    for _ in range(400):
        if state.is_over:
            state = InfexionState()
        me = state.current_player
        before = state.power(me) - state.power(1 - me)
        for gain, action in spread_gains(state.board, me):
            state.apply(action)
            assert state.power(me) - state.power(1 - me) - before == gain, state.action_to_str(action)
            state.undo()
        state.apply(state.random_action(rng))


def test_evaluation_prefers_more_power_threats_and_fewer_bigger_stacks():
    h = InfexionHeuristics()
    # Red to move with one more power than Blue, nothing in reach of anything.
    quiet = InfexionState.from_text("r2....../......./......./...b1.../......./......./....... 10")
    assert h.evaluate(quiet) > 0
    # Same material, but Red's 2-stack now reaches Blue's stack and not the other way.
    threatening = InfexionState.from_text("r2.b1..../......./......./......./......./......./....... 10")
    assert h.evaluate(threatening) > h.evaluate(quiet)
    # Blue to move there sees it from the other side.
    threatening.turn += 1
    assert h.evaluate(threatening) < 0
    # At equal power, one stack of 2 is worth more than two of 1 (the fitted
    # weights' finding: small stacks are cheap targets), yet never a power.
    one = InfexionState.from_text("r2....../......./......./...b2.../......./......./....... 10")
    two = InfexionState.from_text("r1...r1../......./......./...b2.../......./......./....... 10")
    assert 0 < h.evaluate(one) - h.evaluate(two) < 100


def test_the_games_last_action_is_valued_by_its_best_result():
    # Positions from random play, put at action 342: the mover makes the last
    # action of the game.  The evaluation's verdict must be the best result
    # the engine gives over all its legal actions.
    h = InfexionHeuristics()
    rng = random.Random(342)
    seen = set()
    for _ in range(300):
        state = InfexionState()
        for _ in range(rng.randrange(10, 80)):
            if state.is_over:
                break
            state.apply(state.random_action(rng))
        if state.is_over:
            continue
        last = InfexionState(turn=MAX_TURNS - 1)
        for cell, value in enumerate(state.board):
            last.set_cell(cell, value)
        me = last.current_player
        results = []
        for action in last.legal_actions():
            last.apply(action)
            winner = last.outcome.winner
            results.append(0 if winner is None else 1 if winner == me else -1)
            last.undo()
        best, value = max(results), h.evaluate(last)
        seen.add(best)
        if value == 0:
            # A draw, or a win only by eliminating the opponent with a lead of 1.
            assert best in (0, 1)
        else:
            assert (value > 0) == (best == 1) and (value < 0) == (best == -1)
            assert abs(value) > 100 * 49  # beyond any material
    assert seen == {-1, 0, 1}  # the positions tried cover every verdict


@settings(max_examples=200, deadline=None)
@given(
    total=st.floats(0, 400),
    moves=st.lists(st.floats(0, 200), min_size=1, max_size=400),
)
def test_move_budgets_never_spend_the_whole_clock(total, moves):
    # Whatever the estimates of moves left, spending each budget in full
    # leaves time on the clock after any number of moves.
    remaining = total
    for guess in moves:
        spent = move_budget(remaining, guess)
        assert 0 <= spent < max(remaining, 1e-9) or remaining == 0
        remaining -= spent
    assert remaining >= min(total, 0.1) * 0.5


def test_options_are_checked_by_name_and_type():
    with pytest.raises(OptionError, match="unknown option 'dpeth'"):
        make("minimax", PlayerColor.RED, 0, dpeth=3)
    with pytest.raises(OptionError, match="'iterations' must be int"):
        make("mcts", PlayerColor.RED, 0, iterations="many")
    with pytest.raises(OptionError, match="heuristics"):
        make("greedy", PlayerColor.RED, 0, heuristics={"no_such_weight": 1})
    agent = make("minimax", PlayerColor.RED, 0, depth=1, heuristics={"my_take": 50})
    assert agent.search.max_depth == 1 and agent.heuristics.my_take == 50
    # MCTS explores by the game's constant unless told otherwise.
    assert make("mcts", PlayerColor.RED, 0).search.c_puct == 2.5
    assert make("mcts", PlayerColor.RED, 0, c_puct=1.5).search.c_puct == 1.5


def _referee(tmp_path: Path, red: str, blue: str, *options: str) -> dict:
    record = tmp_path / "game.json"
    proc = run_referee("-v", "0", "--record", str(record), *options, red, blue, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(record.read_text())


@pytest.mark.parametrize("red,blue", [("minimax", "mcts"), ("mcts", "greedy")])
def test_tight_time_limit_is_respected_in_a_real_game(tmp_path, red, blue):
    data = _referee(tmp_path, AGENTS[red], AGENTS[blue], "-t", "3", "-s", "250", "--seed", "1")
    assert data["reason"] in ("elimination", "turn_limit", "no_tokens"), data["reason"]
    assert all(used < 3 for used in data["time_used"].values())
    assert all(peak < 250 for peak in data["peak_memory_mb"].values())
