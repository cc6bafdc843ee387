"""One side of a game as a Gymnasium environment: Gymnasium's own checker, and the opponent: a bundled agent,
an agent folder, a class; its moves, its illegal ones, the mask, the rewards and the action limit."""
from __future__ import annotations

import pickle
import random

import cloudpickle
import pytest

import numpy as np
import gymnasium

from gymnasium.utils.env_checker import check_env  # noqa: E402

from referee.games import load_game  # noqa: E402
from referee.learning.gymnasium import SingleAgentEnv  # noqa: E402
from tests.helpers import ROOT  # noqa: E402

#: The agent folders of these tests, as ``workdir``.
FOLDERS = ROOT / "tests" / "learning" / "agent_folders"

# Infinitron's Box is unbounded above (its resource planes grow all game): Gymnasium advises against it.
pytestmark = pytest.mark.filterwarnings("ignore:.*observation space maximum value is infinity")


def play(env: SingleAgentEnv, seed: int, choose=None) -> tuple[float, bool, bool, dict]:
    """One game to the end, this side playing ``choose(mask, rng)`` (default: a random legal index)."""
    rng = random.Random(seed)
    observation, info = env.reset(seed=seed)
    while True:
        mask = observation["action_mask"]
        assert np.array_equal(mask, info["action_mask"]) and np.array_equal(mask, env.action_masks())
        legal = np.flatnonzero(mask).tolist()
        index = choose(legal, rng) if choose else legal[rng.randrange(len(legal))]
        observation, reward, terminated, truncated, info = env.step(index)
        if terminated or truncated:
            assert not observation["action_mask"].any()
            return reward, terminated, truncated, info
        assert reward == 0


@pytest.mark.parametrize(("game", "options"), [
    ("cachex", {"n": 4}),
    ("cachex", {"n": 4, "play_as": "blue", "opponent": "agents.greedy"}),
    ("infexion", {"opponent": "agents/greedy"}),
    ("infinitron", {"chaos": True, "max_turns": 6, "seed": 2, "play_as": "blue"}),
], ids=str)
def test_gymnasiums_checker_passes(game, options, capsys):
    ids = {"infexion": "referee/Infexion-v0", "cachex": "referee/Cachex-v0", "infinitron": "referee/Infinitron-v0"}
    # Made by its registered id, so the checker also makes it in each render mode ("human" prints).
    env = gymnasium.make(ids[game], **options)
    assert isinstance(env.unwrapped, SingleAgentEnv)
    check_env(env.unwrapped)


def test_against_a_bundled_agent_the_rewards_are_the_verdict_from_this_side():
    env = SingleAgentEnv("cachex", opponent="agents.greedy", play_as="blue", n=4)
    results = set()
    for seed in range(3):
        reward, terminated, truncated, info = play(env, seed)
        outcome = env.game_state.outcome
        assert terminated and not truncated and info["reason"] == outcome.reason == "connection"
        assert reward == (1.0 if outcome.winner == 1 else -1.0)
        results.add(reward)
    assert results == {-1.0}  # one ply of search beats random play on a small board


def test_against_an_agent_folder_its_own_choices_are_played():
    # The folder's agent always plays the last legal action: replaying the game on an engine of our own says
    # whether each of its answers was played, and after which of ours.
    env = SingleAgentEnv("cachex", opponent="last_legal", play_as="blue", workdir=FOLDERS, n=4)
    observation, info = env.reset(seed=0)
    mirror = load_game("cachex", n=4).new_state()
    mirror.apply(mirror.legal_actions()[-1])  # it opens as Red
    assert env.game_state.key() == mirror.key()
    rng = random.Random(0)
    while True:
        index = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        mirror.apply(env.encoding.action(mirror, index))
        observation, reward, terminated, truncated, info = env.step(index)
        if not mirror.is_over:
            mirror.apply(mirror.legal_actions()[-1])
        assert env.game_state.key() == mirror.key()
        if terminated or truncated:
            break
    # The same folder named as the referee names it from the project's folder.
    as_path = SingleAgentEnv("cachex", opponent="tests/learning/agent_folders/last_legal", workdir=ROOT, n=4)
    as_path.reset(seed=0)
    as_path.step(0)
    assert as_path.game_state.move_count == 2


class Garbage:
    """An agent of the course protocol whose answer is no action at all."""

    def __init__(self, color, **referee):
        self.referee = referee

    def action(self, **referee):
        return "PLACE(9, 9)"

    def turn(self, color, action, **referee):
        pass


def test_an_opponent_class_is_given_the_referees_keyword_arguments_and_loses_when_it_plays_no_action():
    env = SingleAgentEnv("cachex", opponent=Garbage, n=4, opponent_options={"depth": 3})
    observation, info = env.reset(seed=0)
    kwargs = env._opponent.referee
    assert kwargs["game"] == "cachex" and kwargs["game_options"] == {"n": 4} and kwargs["depth"] == 3
    assert {"seed", "time_remaining", "wall_remaining", "space_limit", "space_remaining"} <= set(kwargs)
    assert kwargs["time_remaining"] is None  # no clock: in-process training
    observation, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated, info["reason"]) == (1.0, True, False, "opponent_illegal_action")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(1)
    # As Red it would open the game: no episode can start.
    with pytest.raises(RuntimeError, match="Garbage.*no legal first action"):
        SingleAgentEnv("cachex", opponent=Garbage, play_as="blue", n=4).reset(seed=0)


def test_an_illegal_index_loses_and_a_non_index_is_a_bug():
    env = SingleAgentEnv("cachex", n=3)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="index"):
        env.step(None)
    observation, reward, terminated, truncated, info = env.step(np.int64(4))  # the centre, on the first action
    assert (reward, terminated, truncated, info["reason"]) == (-1.0, True, False, "illegal_action")


def test_infexions_action_limit_is_a_truncation():
    env = SingleAgentEnv("infexion")
    reward, terminated, truncated, info = play(env, seed=1)  # random against random: to the limit
    outcome = env.game_state.outcome
    assert truncated and not terminated and info["reason"] == outcome.reason == "turn_limit"
    assert env.game_state.move_count == 343
    assert reward == (0.0 if outcome.winner is None else 1.0 if outcome.winner == 0 else -1.0)


def test_chance_and_the_opponent_follow_the_reset_seed():
    def keys(seed: int) -> list:
        env = SingleAgentEnv("infinitron", chaos=True, max_turns=4, seed=2, play_as="blue")
        observation, info = env.reset(seed=seed)
        found = [env.game_state.key()]
        while True:
            observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            found.append(env.game_state.key())
            if terminated or truncated:
                return found

    assert keys(3) == keys(3)
    assert keys(3) != keys(4)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="play_as"):
        SingleAgentEnv("cachex", play_as="green", n=3)
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv("cachex", render_mode="rgb_array", n=3)
    with pytest.raises(ModuleNotFoundError):
        SingleAgentEnv("cachex", opponent="no_such_agent_here", workdir=FOLDERS, n=3)


@pytest.mark.parametrize("pickler", [pickle, cloudpickle], ids=["pickle", "cloudpickle"])
@pytest.mark.parametrize(("game", "options"), [("infexion", {}), ("cachex", {"n": 5})])
def test_a_pickled_environment_observes_the_game_it_goes_on_playing(pickler, game, options):
    # As a vector environment's worker or Ray gets it: the copy's planes and masks follow its own game (they
    # are views of the live board, which a copy would have frozen).
    env = SingleAgentEnv(game, **options)
    observation, _ = env.reset(seed=3)
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    clone = pickler.loads(pickler.dumps(env))
    coding = clone.encoding
    for _ in range(4):
        observation, _, terminated, truncated, info = clone.step(int(np.flatnonzero(clone.action_masks())[-1]))
        state = clone.game_state
        planes = np.array(coding.observation(state, clone.me), dtype=np.float32).reshape(coding.observation_shape)
        assert np.array_equal(observation["observation"], planes)
        legal = [] if terminated or truncated else coding.legal_indices(state)
        assert np.flatnonzero(observation["action_mask"]).tolist() == legal
        assert np.flatnonzero(info["action_mask"]).tolist() == legal
        if terminated or truncated:
            break
