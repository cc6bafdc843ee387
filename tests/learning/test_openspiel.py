"""The referee's games as OpenSpiel games: OpenSpiel's own checks, the action integers and texts, observations,
chance, serialisation, and OpenSpiel's MCTS playing each game through evaluate_bots."""
from __future__ import annotations

import math

import pytest

import pyspiel
import numpy as np

from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

from referee.learning.encoding import encoding  # noqa: E402
from referee.games.infinitron.engine import FISH, cell_of  # noqa: E402
from referee.learning.infinitron_encoding import BUILD_BASE, FISH_CELL_BASE, FISH_INDEX  # noqa: E402
from referee.learning.openspiel import load  # noqa: E402

#: Small settings: OpenSpiel's checks copy, serialise and observe every position of a random game.
SETTINGS = [
    ("cachex", {"n": 3}),
    ("cachex", {"n": 4}),
    ("infexion", {}),
    ("infinitron", {"max_turns": 4}),
    ("infinitron", {"max_turns": 6, "chaos": True, "seed": 2}),
]


@pytest.mark.parametrize(("game", "options"), SETTINGS, ids=lambda x: str(x))
def test_openspiels_random_simulation_checks_pass_with_serialisation(game, options):
    spiel_game = load(game, **options)
    # Every position: legal actions sorted and unique in text, copies equal, returns zero-sum, observations of
    # the declared size; early positions and every 2^k-th serialised and read back.
    pyspiel.random_sim_test(spiel_game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("game", "options"), SETTINGS, ids=lambda x: str(x))
def test_the_states_python_shortcuts_answer_as_openspiels_own_methods(game, options):
    # legal_actions, is_chance_node and is_player_node are answered in Python for Python callers: each must
    # say what OpenSpiel's C++ methods (reached through pyspiel.State) say, chance nodes and the end included.
    spiel_game = load(game, **options)
    rng = np.random.default_rng(4)
    kinds = set()
    for _ in range(3):
        state = spiel_game.new_initial_state()
        while True:
            kinds.add("terminal" if state.is_terminal() else "chance" if state.is_chance_node() else "player")
            assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
            assert state.is_player_node() == pyspiel.State.is_player_node(state)
            assert state.legal_actions() == pyspiel.State.legal_actions(state)
            for player in (0, 1, 2, -1, -4):
                try:
                    expected = pyspiel.State.legal_actions(state, player)
                except pyspiel.SpielError as error:
                    with pytest.raises(pyspiel.SpielError, match=str(error)):
                        state.legal_actions(player)
                else:
                    assert state.legal_actions(player) == expected
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert kinds >= {"terminal", "player"} and ("chance" in kinds) == options.get("chaos", False)


def test_positions_on_encodings_of_their_own_list_their_own_games_legal_actions():
    # A Position (public) made on an encoding that is then dropped: another encoding made after it, maybe at
    # the same address, must not be given the first one's way of listing legal actions.
    from referee.learning.openspiel import Position

    for _ in range(50):
        infexion = Position(encoding("infexion"))
        assert len(infexion.legal(infexion.state)) == 49
        del infexion
        cachex = Position(encoding("cachex", n=4))
        assert cachex.legal(cachex.state) == list(range(16))


def test_each_games_type_and_sizes():
    chance = pyspiel.GameType.ChanceMode
    for game, options, actions, outcomes, shape, length in [
        ("infexion", {}, 343, 0, [14, 7, 7], 343),
        ("cachex", {"n": 5}, 26, 0, [7, 5, 5], 343),
        ("infinitron", {}, 10674, 0, [98, 11, 11], 343 * 65),
        ("infinitron", {"chaos": True}, 10674, 184, [98, 11, 11], 343 * 65),
    ]:
        spiel_game = load(game, **options)
        kind = spiel_game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
        assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert kind.chance_mode == (chance.EXPLICIT_STOCHASTIC if outcomes else chance.DETERMINISTIC)
        assert spiel_game.num_distinct_actions() == actions == encoding(game, **options).num_actions
        assert spiel_game.max_chance_outcomes() == outcomes
        assert spiel_game.observation_tensor_shape() == shape
        assert spiel_game.information_state_tensor_size() == math.prod(shape)
        assert spiel_game.max_game_length() == length
        assert (spiel_game.min_utility(), spiel_game.max_utility(), spiel_game.utility_sum()) == (-1, 1, 0)
    assert str(pyspiel.load_game("referee_cachex(n=6)")) == "referee_cachex(n=6)"


def test_a_fixed_list_of_actions_round_trips_through_integers_and_texts():
    game = load("cachex", n=4)
    state = game.new_initial_state()
    for text, index, player in [("PLACE(1, 2)", 6, 0), ("STEAL", 16, 1), ("PLACE(0, 0)", 0, 0), ("PLACE(3, 3)", 15, 1)]:
        assert state.current_player() == player
        assert state.action_to_string(player, index) == text
        assert state.string_to_action(text) == index
        state.apply_action(index)
    assert str(state).endswith("4 of 343 actions played")
    state = load("infexion").new_initial_state()
    for text, index in [("SPAWN(3, 3)", 24), ("SPAWN(0, 0)", 0), ("SPREAD(3, 3, 0, 1)", 49 + 24 * 6)]:
        assert state.action_to_string(state.current_player(), index) == text
        state.apply_action(index)
    state = load("infinitron", seed=1).new_initial_state()
    commands = ["DEFINE(0, 1, 3, MELEE, NONE)", "CLAIM(0, 2, -1)", "END_TURN", "END_TURN", "BUILD(0, 3, -2)",
                "END_TURN", "END_TURN", "MOVE(0, 2, -1)", "END_TURN"]
    for text in commands:
        index = state.string_to_action(text)
        assert state.action_to_string(state.current_player(), index) == text
        state.apply_action(index)
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(BUILD_BASE + cell_of(-3, 2))  # Blue has no template to build


def test_observations_are_from_each_players_side():
    game = load("cachex", n=3)
    state = game.new_initial_state()
    state.apply_action(0)  # Red on (0, 0)
    red, blue = (np.reshape(state.observation_tensor(p), [7, 3, 3]) for p in (0, 1))
    assert red[0, 0, 0] == 1 and blue[1, 0, 0] == 1, "own stones first"
    assert red[3].all() and not blue[3].any(), "the Red plane"
    assert blue[4].all() and not red[4].any(), "the mover's plane"
    assert blue[5].all(), "STEAL is open"
    assert state.information_state_tensor(1) == state.observation_tensor(1)
    assert state.information_state_string(1) == "player 1; played: 0"
    assert state.observation_string(0) == str(state)


def test_a_fish_market_is_chance_drawn_cell_by_cell_and_survives_serialisation():
    game = load("infinitron", chaos=True, max_turns=4)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0) and outcomes[0] == pytest.approx(11 / 12)
    state.apply_action(FISH_INDEX)
    for k in range(6):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        if k == 3:  # mid-draw: a serialised state reads back drawing the same market
            text = pyspiel.serialize_game_and_state(game, state)
            _, back = pyspiel.deserialize_game_and_state(text)
            assert str(back) == str(state) and back.chance_outcomes() == outcomes
            assert back.history() == state.history()
        state.apply_action(outcomes[-1][0])
    assert not state.is_chance_node() and state.current_player() == 0
    fish = [cell for cell, ground in enumerate(state.position.state.ground) if ground == FISH]
    assert fish == sorted(a - FISH_CELL_BASE for a in state.history()[1:])


@pytest.mark.parametrize(("game", "options", "simulations"), [
    ("cachex", {"n": 3}, 16),
    ("cachex", {"n": 4}, 8),
    ("infinitron", {"max_turns": 2, "seed": 4}, 2),
    ("infinitron", {"max_turns": 4, "chaos": True}, 2),
], ids=lambda x: str(x))
def test_openspiels_mcts_plays_a_whole_game_through_evaluate_bots(game, options, simulations):
    spiel_game = load(game, **options)
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(spiel_game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            for _ in range(2)]
    state = spiel_game.new_initial_state()
    returns = evaluate_bots(state, bots, rng)
    assert state.is_terminal() and returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_openspiels_mcts_plays_a_whole_infexion_game_against_a_random_bot():
    # Random rollouts of Infexion last to the 343-action limit: one searching side keeps the game to seconds.
    game = load("infexion")
    rng = np.random.RandomState(3)
    bots = [mcts.MCTSBot(game, 2.0, 2, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            pyspiel.make_uniform_random_bot(1, 5)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, rng)
    assert state.is_terminal() and sum(returns) == 0
    assert len(state.history()) <= 343
