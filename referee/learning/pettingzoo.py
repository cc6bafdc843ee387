"""The games as PettingZoo AEC environments, for multi-agent learning libraries (docs/learning.md).

    from referee.learning.pettingzoo import cachex_env
    env = cachex_env(n=4)
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)  # a legal index of the mask
        env.step(action)

Agents are ``"red"`` and ``"blue"``; whoever the rules say acts next is ``agent_selection`` (an Infinitron
player gives several commands before its turn ends).  Each agent observes a dict: ``"observation"``, the
encoding's planes from its own point of view (float32, :mod:`referee.learning.encoding`), and
``"action_mask"``, 1 for each legal index of the player to move (all 0 for the other, as PettingZoo's classic
environments do).  An action is an index in ``Discrete(num_actions)``.  Rewards are +1/-1/0 at the end, by
the rules' verdict.  ``terminations`` end a game decided by the rules; ``truncations`` end one the action
limit ended (Infexion's 343 actions, the ``turn_limit`` reason), whose reward is still the rules' verdict at
the limit.  An index that is not legal here loses the game for the agent that played it (as an illegal action
does at the referee): its reward is -1, the other's +1, and both infos say ``illegal_action``.

Chance (Infinitron with chaos) acts inside ``step`` and ``reset``: its outcome is drawn from the encoding's
``chance_outcomes`` with the environment's RNG, seeded by ``reset(seed=...)``, so a seeded run repeats.

The position is the referee's own engine state (``game_state``): there is no second rules implementation.
"""
from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.games.base import CHANCE, GameState, whole_number

from .arrays import ArrayMakers, bounds
from .encoding import Encoding, encoding

#: The agents' names, by the engine's player number (0 Red, 1 Blue).
AGENTS = ("red", "blue")
#: An agent's player number.
PLAYER = {agent: player for player, agent in enumerate(AGENTS)}
#: The verdict reason of a game ended by its action limit: a truncation, not a termination.
LIMIT_REASON = "turn_limit"
#: The reason in both infos when an agent played an index that is not legal.
ILLEGAL = "illegal_action"


def observation_space(coding: Encoding) -> spaces.Dict:
    """What an agent observes: the encoding's planes and the mask of legal indices (the same for both agents)."""
    low, high = bounds(coding)
    return spaces.Dict({
        "observation": spaces.Box(low=low, high=high, shape=coding.observation_shape, dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(coding.num_actions,), dtype=np.int8),
    })


def rendered(state: GameState, mode: str | None, env: str) -> str | None:
    """An environment's ``render()``: the engine's text board, returned (``"ansi"``) or printed (``"human"``)."""
    if mode is None:
        gymnasium.logger.warn(f"render() called without a render_mode ({env}(..., render_mode='ansi'))")
        return None
    text = state.render()
    if mode == "ansi":
        return text
    print(text)
    return None


def draw_chance(coding: Encoding, state: GameState, rng: random.Random) -> Any:
    """Chance's engine action in ``state`` (a chance node), drawn by its outcomes' probabilities with ``rng``.

    An event too large to list (Infinitron's fish market) is several draws: the encoding says when it is whole.
    """
    drawn: list[int] = []
    while True:
        outcomes = coding.chance_outcomes(state, drawn)
        draw, index = rng.random(), outcomes[-1][0]
        for outcome, probability in outcomes:
            draw -= probability
            if draw < 0:
                index = outcome
                break
        action = coding.chance_action(state, index, drawn)
        if action is not None:
            return action
        drawn.append(index)


class GameEnv(ArrayMakers, AECEnv):
    """One game with its options as a two-agent AEC environment over the referee's engine."""

    possible_agents = list(AGENTS)

    def __init__(self, game: str, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in ("ansi", "human"):
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.encoding = encoding(game, **options)
        self.render_mode = render_mode
        self.metadata = {"render_modes": ["ansi", "human"], "name": f"{game}_v0", "is_parallelizable": False,
                         "render_fps": 1}
        self._observation_space = observation_space(self.encoding)
        self._action_space = spaces.Discrete(self.encoding.num_actions)
        self._observation_spaces = {agent: self._observation_space for agent in AGENTS}
        self._action_spaces = {agent: self._action_space for agent in AGENTS}
        self._rng = random.Random()
        # The legal indices of the position, listed once however often it is observed (None: not yet).
        self._legal: list[int] | None = None
        self._legal_mask: np.ndarray | None = None
        self._no_mask = np.zeros(self.encoding.num_actions, dtype=np.int8)
        self._make_arrays()
        self._has_chance = self.encoding.num_chance_outcomes > 0
        self._num_actions = self.encoding.num_actions
        self._decoded = self.encoding.decoded
        self._new_game()  # usable at once (a render "human" waits for reset)

    # The spaces are the same objects on every call: seeding one seeds what later calls return.
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` seeds chance (without it the RNG goes on from where it was)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self._new_game()
        if self.render_mode == "human":
            self.render()

    def _new_game(self) -> None:
        self.game_state: GameState = self.encoding.new_state()
        self._legal = self._legal_mask = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._over = False
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._resolve_chance()
        self.agent_selection = AGENTS[self.game_state.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict: its planes and the legal indices' mask (zeros unless it is to act)."""
        # Once the game is over the mask is the empty one (``_end``), whoever is still to step out.
        mask = self._legal_mask
        if agent != self.agent_selection:
            mask = self._no_mask
        elif mask is None:
            mask = self._legal_mask = self._make_mask(self.game_state)
        return {"observation": self._observe(self.game_state, PLAYER[agent]), "action_mask": mask.copy()}

    def legal_indices(self) -> list[int]:
        """The legal indices of the agent to act (empty once the game is over), listed once per position."""
        if self._legal is None:
            self._legal = [] if self.game_state.is_over else self.encoding.legal_indices(self.game_state)
        return self._legal

    def step(self, action: Any) -> None:
        """``agent_selection`` plays the action of index ``action`` (None once it is done: it leaves)."""
        agent = self.agent_selection
        if self._over:  # both agents are terminated or truncated: each steps out with None
            self._was_dead_step(action)
            return
        if type(action) is not int:
            index = whole_number(action)  # a numpy integer is read as the int it is; None or 2.0 is a bug
            if index is None:
                raise TypeError(f"{agent} must play an action index (an integer), not {action!r}")
            action = index
        # Rewards stay 0 while the game goes on (the dead steps clear the last ones), so only the cumulative
        # reward of the agent acting is reset here: last() gives what it got since it last acted.
        self._cumulative_rewards[agent] = 0.0
        state = self.game_state
        # Once the position's legal indices are listed (its mask observed), they say whether it is legal.
        mask, legal = self._legal_mask, self._legal
        if mask is not None:
            if 0 <= action < self._num_actions and mask[action]:
                decoded = self._decoded
                engine_action = decoded[action] if decoded is not None else self.encoding.decode(state, action)
            else:
                engine_action = None
        elif legal is not None:
            engine_action = self.encoding.decode(state, action) if action in legal else None
        else:
            engine_action = self._checked(state, action)
        if engine_action is None:
            self._end(winner=1 - PLAYER[agent], reason=ILLEGAL, truncated=False)
            self.infos[agent][ILLEGAL] = action
        else:
            state.apply(engine_action)
            self._legal = self._legal_mask = None
            if self._has_chance:
                self._resolve_chance()
            outcome = state.outcome
            if outcome is None:
                self.agent_selection = AGENTS[state.current_player]
            else:
                self._end(outcome.winner, outcome.reason, truncated=outcome.reason == LIMIT_REASON)
        if self.render_mode == "human":
            self.render()

    def _checked(self, state: GameState, index: int) -> Any:
        """The engine action of ``index`` if it is legal in ``state``, else None."""
        try:
            return self.encoding.action(state, index)
        except ValueError:
            return None

    def _resolve_chance(self) -> None:
        """Chance's events until a player is to act, drawn with the environment's RNG."""
        state = self.game_state
        while state.current_player == CHANCE and not state.is_over:
            state.apply(draw_chance(self.encoding, state, self._rng))

    def _end(self, winner: int | None, reason: str, truncated: bool) -> None:
        """Both agents are done: the rewards of ``winner`` (None: a draw), the flags and the reason."""
        if winner is not None:
            self.rewards[AGENTS[winner]] = 1.0
            self.rewards[AGENTS[1 - winner]] = -1.0
        self._over = True
        for agent in self.agents:
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
            self.infos[agent] = {"reason": reason}
        self._accumulate_rewards()
        # The one who did not just act steps out first (then the other), as in PettingZoo's classic games.
        self.agent_selection = AGENTS[1 - PLAYER[self.agent_selection]]
        self._legal, self._legal_mask = [], self._no_mask

    def render(self) -> str | None:
        """The engine's text board: returned (``"ansi"``) or printed (``"human"``)."""
        return rendered(self.game_state, self.render_mode, "GameEnv")

    def close(self) -> None:
        """Nothing to release: the board is text."""


def env(game: str, render_mode: str | None = None, **options: Any) -> GameEnv:
    """The AEC environment of ``game`` with its options (``env("cachex", n=5)``)."""
    return GameEnv(game, render_mode=render_mode, **options)


def infexion_env(render_mode: str | None = None) -> GameEnv:
    """Infexion (it takes no options)."""
    return GameEnv("infexion", render_mode=render_mode)


def cachex_env(n: int = 7, render_mode: str | None = None) -> GameEnv:
    """Cachex on an ``n`` x ``n`` board (the swap rule included)."""
    return GameEnv("cachex", render_mode=render_mode, n=n)


def infinitron_env(render_mode: str | None = None, **options: Any) -> GameEnv:
    """Infinitron with its options (``chaos``, ``armour``, ``seed``, ``cities``, ``max_turns``, ``rules``)."""
    return GameEnv("infinitron", render_mode=render_mode, **options)
