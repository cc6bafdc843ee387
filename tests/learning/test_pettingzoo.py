"""The games as PettingZoo AEC environments: PettingZoo's own API, seed and render tests, and what those do
not check: the mask is the engine's legal actions, the rewards are the rules' verdict, the action limit is a
truncation, an illegal index loses, chance follows the seed, the observations are the encoding's."""
from __future__ import annotations

import functools
import pickle
import random

import pytest

import cloudpickle
import numpy as np
from pettingzoo import test as pettingzoo_test

from referee.games.base import CHANCE  # noqa: E402
from referee.games.infexion.state import InfexionState  # noqa: E402
from referee.learning.arrays import lister, masker, observer  # noqa: E402
from referee.learning.encoding import encoding  # noqa: E402
from referee.learning.pettingzoo import AGENTS, GameEnv, cachex_env, env, infexion_env, infinitron_env  # noqa: E402

#: Small settings (Infinitron's turns capped): PettingZoo's tests check every step of a whole game.
SETTINGS = {
    "cachex-3": functools.partial(cachex_env, n=3),
    "cachex-4": functools.partial(cachex_env, n=4),
    "infexion": infexion_env,
    "infinitron": functools.partial(infinitron_env, max_turns=4),
    "infinitron-chaos": functools.partial(infinitron_env, chaos=True, max_turns=6, seed=2),
}

# PettingZoo's tests advise, not fail, on two choices made on purpose: a dict observation with its action mask
# (as its own classic board games have) and the agents named as the referee names the players.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:We recommend agents to be named"),
]


def play_randomly(game_env: GameEnv, seed: int, on_step=None) -> None:
    """One game to the end with uniformly random legal indices (from the mask), every agent stepping out."""
    rng = random.Random(seed)
    game_env.reset(seed=seed)
    for agent in game_env.agent_iter():
        observation, _, termination, truncation, _ = game_env.last()
        if on_step is not None:
            on_step(agent, observation, termination or truncation)
        if termination or truncation:
            game_env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        game_env.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize("name", SETTINGS)
def test_pettingzoos_api_test_passes(name, capsys):
    # 200 cycles of both agents: a whole game of each setting, Infexion's 343 actions included.
    pettingzoo_test.api_test(SETTINGS[name](), num_cycles=200)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("name", SETTINGS)
def test_pettingzoos_seed_test_passes(name):
    # Two environments reset with the same seed step alike: with chaos, the chance events too.
    pettingzoo_test.seed_test(SETTINGS[name], num_cycles=100)


@pytest.mark.parametrize("name", ["cachex-4", "infinitron-chaos"])
def test_pettingzoos_render_test_passes(name, capsys):
    pettingzoo_test.render_test(SETTINGS[name])
    assert "R" in capsys.readouterr().out  # "human" printed the boards


@pytest.mark.parametrize("name", SETTINGS)
def test_the_mask_is_the_engines_legal_actions_and_the_agent_to_act_is_the_engines(name):
    game_env = SETTINGS[name]()
    coding = game_env.encoding
    seen = []

    def check(agent, observation, done):
        state = game_env.game_state
        if done:
            assert not observation["action_mask"].any()
            return
        assert state.current_player != CHANCE  # chance has acted inside step
        assert agent == AGENTS[state.current_player]
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert sorted(coding.action(state, i) for i in legal) == sorted(state.legal_actions())
        other = game_env.observe(AGENTS[1 - AGENTS.index(agent)])
        assert not other["action_mask"].any()  # only the agent to act has legal actions
        seen.append(len(legal))

    play_randomly(game_env, seed=3, on_step=check)
    assert seen and min(seen) > 0


@pytest.mark.parametrize(("game", "options"), [("cachex", {"n": 3}), ("cachex", {"n": 7}), ("infexion", {})])
def test_the_array_observations_are_the_encodings(game, options):
    coding = encoding(game, **options)
    observe = observer(coding)
    rng = random.Random(5)
    for _ in range(3):
        state = coding.new_state()
        while True:
            for player in (0, 1):
                array = observe(state, player)
                expected = np.array(coding.observation(state, player), dtype=np.float32)
                expected = expected.reshape(coding.observation_shape)
                assert array.dtype == np.float32 and array.shape == coding.observation_shape
                assert np.array_equal(array, expected)
            if state.is_over:
                break
            state.apply(state.random_action(rng))


@pytest.mark.parametrize(("game", "options"), [("cachex", {"n": 3}), ("cachex", {"n": 7}), ("cachex", {"n": 15}),
                                               ("infexion", {})])
def test_the_array_masks_and_lists_are_the_encodings_legal_indices(game, options):
    # Made from the board's bytes, not from the engine's list: every position of random games, from the first
    # action (Cachex's centre refused, STEAL offered) to the end (nothing legal).
    coding = encoding(game, **options)
    mask_of, list_of = masker(coding), lister(coding)
    rng = random.Random(11)
    positions = 0
    for _ in range(4):
        state = coding.new_state()
        while True:
            expected = [] if state.is_over else coding.legal_indices(state)
            mask = mask_of(state)
            assert mask.dtype == np.int8 and mask.shape == (coding.num_actions,)
            assert np.flatnonzero(mask).tolist() == expected == list_of(state)
            positions += 1
            if state.is_over:
                break
            state.apply(state.random_action(rng))
    assert positions > 4 * 5  # at least a few actions a game


def test_infexion_masks_no_spawn_once_the_board_holds_49_power():
    coding = encoding("infexion")
    # 8 stacks of 6 and one of 1: 49 power, 40 empty cells, none of them open to SPAWN; Red spreads its 5.
    cells = {(r, q): (r % 2, 6) for r, q in [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2), (3, 0), (3, 2)]}
    state = InfexionState({**cells, (5, 5): (1, 1)})
    mask = masker(coding)(state)
    assert not mask[:49].any()
    assert np.flatnonzero(mask).tolist() == coding.legal_indices(state) == lister(coding)(state)
    assert mask.sum() == 4 * 6  # Red's four stacks, six directions each


@pytest.mark.parametrize("pickler", [pickle, cloudpickle], ids=["pickle", "cloudpickle"])
def test_a_pickled_environment_observes_the_game_it_goes_on_playing(pickler):
    game_env = cachex_env(n=5)
    game_env.reset(seed=2)
    for _ in range(3):
        game_env.observe(game_env.agent_selection)  # its arrays made, then the environment copied
        game_env.step(game_env.legal_indices()[0])
    clone = pickler.loads(pickler.dumps(game_env))
    for _ in range(4):
        agent = clone.agent_selection
        observed, state = clone.observe(agent), clone.game_state
        planes = np.array(clone.encoding.observation(state, AGENTS.index(agent)), dtype=np.float32)
        assert np.array_equal(observed["observation"], planes.reshape(clone.encoding.observation_shape))
        assert np.flatnonzero(observed["action_mask"]).tolist() == clone.encoding.legal_indices(state)
        clone.step(clone.legal_indices()[-1])


def test_an_observation_follows_a_board_replaced_by_a_new_one():
    # The arrays are views of the board kept from call to call: a state given a new board must be read anew.
    coding = encoding("cachex", n=5)
    observe = observer(coding)
    state = coding.new_state()
    state.apply(state.legal_actions()[3])
    observe(state, 0)
    state.board = bytearray(state.board)  # the same position on a new bytearray, then played on
    state.apply(state.legal_actions()[7])
    expected = np.array(coding.observation(state, 0), dtype=np.float32).reshape(coding.observation_shape)
    assert np.array_equal(observe(state, 0), expected)


def final_rewards(game_env: GameEnv, seed: int) -> dict[str, float]:
    """Each agent's reward as ``last()`` gives it when it steps out, after a random game."""
    rewards = {}

    def collect(agent, observation, done):
        if done:
            rewards[agent] = game_env._cumulative_rewards[agent]
        else:
            assert game_env._cumulative_rewards[agent] == 0  # nothing before the end

    play_randomly(game_env, seed, on_step=collect)
    return rewards


def test_a_decided_cachex_game_terminates_with_the_winners_rewards():
    game_env = cachex_env(n=4)
    for seed in range(4):
        rewards = final_rewards(game_env, seed)
        outcome = game_env.game_state.outcome
        assert outcome.reason == "connection"
        winner = AGENTS[outcome.winner]
        assert rewards == {winner: 1.0, AGENTS[1 - outcome.winner]: -1.0}


def test_infexions_343_action_limit_is_a_truncation_rewarded_by_the_verdict():
    game_env = infexion_env()
    states = []

    def watch(agent, observation, done):
        if done:
            states.append((dict(game_env.terminations), dict(game_env.truncations), game_env.infos[agent]))

    # Random Infexion games (nearly) always reach the limit: this one does.
    play_randomly(game_env, seed=1, on_step=watch)
    outcome = game_env.game_state.outcome
    assert outcome.reason == "turn_limit" and game_env.game_state.move_count == 343
    terminations, truncations, info = states[0]
    assert terminations == {"red": False, "blue": False} and truncations == {"red": True, "blue": True}
    assert info == {"reason": "turn_limit"}
    rewards = final_rewards(infexion_env(), seed=1)
    expected = {"red": 0.0, "blue": 0.0} if outcome.winner is None else {
        AGENTS[outcome.winner]: 1.0, AGENTS[1 - outcome.winner]: -1.0}
    assert rewards == expected


def test_infinitrons_turn_limit_is_a_truncation_too():
    game_env = infinitron_env(max_turns=2)
    play_randomly(game_env, seed=0)
    assert game_env.game_state.outcome.reason == "turn_limit"
    assert game_env.agents == []


def test_an_illegal_index_loses_the_game_for_the_agent_that_played_it():
    game_env = cachex_env(n=3)
    game_env.reset(seed=0)
    assert 4 not in game_env.legal_indices()  # the centre, on the first action
    game_env.step(0)  # Red places in a corner
    observation, *_ = game_env.last()
    assert observation["action_mask"][0] == 0
    game_env.step(np.int64(0))  # Blue on the same cell: not legal (a numpy integer is read as the int it is)
    assert game_env.terminations == {"red": True, "blue": True}
    assert game_env.rewards == {"red": 1.0, "blue": -1.0}
    assert game_env.infos["blue"] == {"reason": "illegal_action", "illegal_action": 0}
    assert game_env.agent_selection == "red"  # the other steps out first
    # An index outside the action space loses as well, without the mask ever having been listed.
    game_env.reset()
    game_env.step(game_env.encoding.num_actions + 3)
    assert game_env.rewards == {"red": -1.0, "blue": 1.0}


def test_an_action_that_is_not_an_index_is_a_bug_not_a_move():
    game_env = cachex_env(n=3)
    for bad in (None, 1.0, True, "4"):
        with pytest.raises(TypeError, match="action index"):
            game_env.step(bad)
    assert game_env.game_state.move_count == 0


def test_chance_is_drawn_with_the_environments_seed():
    def keys(seed: int) -> list:
        game_env = infinitron_env(chaos=True, max_turns=6, seed=2)
        game_env.reset(seed=seed)
        found = [game_env.game_state.key()]
        while game_env.agents and game_env.game_state.move_count < 200:
            if game_env.terminations[game_env.agent_selection] or game_env.truncations[game_env.agent_selection]:
                game_env.step(None)
                continue
            game_env.step(game_env.legal_indices()[-1])  # the same choices whatever chance did
            found.append(game_env.game_state.key())
        return found

    assert keys(7) == keys(7)
    assert keys(7) != keys(8)


def test_render_returns_or_prints_the_engines_board(capsys):
    game_env = env("cachex", render_mode="ansi", n=4)
    assert game_env.render() == game_env.game_state.render()
    human = cachex_env(n=4, render_mode="human")
    capsys.readouterr()
    human.step(0)  # "human" prints the board after every step
    assert human.game_state.render() in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        infexion_env(render_mode="rgb_array")
