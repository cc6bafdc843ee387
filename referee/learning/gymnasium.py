"""One side of a game as a single-agent Gymnasium environment, the other side played by an agent (docs/learning.md).

    from referee.learning.gymnasium import SingleAgentEnv
    env = SingleAgentEnv("cachex", opponent="agents.greedy", play_as="blue", n=4)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(action)  # a legal index

The opponent is any agent the referee plays: a bundled one by name (``agents.random_agent``, ``agents.greedy``,
``agents.minimax``, ``agents.mcts``) or an agent folder (``subs/my_agent``, an ``Agent`` class with the course
protocol ``__init__(color, **referee)``, ``action(**referee)``, ``turn(color, action, **referee)``), named as
``python -m referee`` names it and imported from ``workdir`` (the current directory by default), or the class
itself.  It runs **in this process**, unsealed and without a clock (``time_remaining`` is None, so a search
agent uses its own ``move_time``, or the ``iterations``/``depth`` given in ``opponent_options``): that is what
training wants.  Sealing an agent and holding it to its limits is the referee's job when the games count.

The observation is the PettingZoo environment's dict (:mod:`referee.learning.pettingzoo`): the encoding's planes
from this side's point of view and ``action_mask``; the mask is also ``info["action_mask"]`` (Gymnasium's own
convention) and :meth:`SingleAgentEnv.action_masks` (what sb3-contrib's ``MaskablePPO`` asks for), each a copy.
The reward is +1/-1/0 at the end by the rules' verdict; ``truncated`` when the action limit ended the game.  An
index that is not legal loses the game (as at the referee); an opponent whose action is not legal loses it too.
"""
from __future__ import annotations

import random
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from referee.game.player import PlayerColor
from referee.games import load_game, registration
from referee.games.agent_kwargs import REFEREE_KWARGS
from referee.games.base import CHANCE, whole_number

from .arrays import ArrayMakers
from .encoding import encoding
from .pettingzoo import AGENTS, ILLEGAL, LIMIT_REASON, draw_chance, observation_space, rendered

#: The reason in the info when the opponent's action was not legal (the learner wins).
OPPONENT_ILLEGAL = "opponent_illegal_action"

#: The environments registered with Gymnasium (``gymnasium.make("referee/Cachex-v0", n=4)``), by game.
IDS = {"infexion": "referee/Infexion-v0", "cachex": "referee/Cachex-v0", "infinitron": "referee/Infinitron-v0"}


def agent_class(opponent: str | type, workdir: str | Path | None = None) -> type:
    """The agent class ``opponent`` names (``agents.greedy``, ``subs/my_agent``, ``pkg.mod:Class``) or is.

    The name is read as the referee reads an agent spec, from ``workdir`` (default: the current directory),
    which is put on ``sys.path`` as the referee's agent process does.
    """
    if isinstance(opponent, type):
        return opponent
    from referee.match import parse_spec  # only for a name: the match's module is heavier than this one

    module_name, class_name = parse_spec(opponent)
    root = str(Path(workdir or Path.cwd()).resolve())
    if root not in sys.path:
        sys.path.insert(0, root)
    cls = getattr(import_module(module_name), class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"{opponent!r}: {module_name} has no class {class_name}")
    return cls


class SingleAgentEnv(ArrayMakers, gymnasium.Env):
    """``play_as``'s side of one game with its options, the other played in-process by ``opponent``."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        opponent: str | type = "agents.random_agent",
        play_as: str = "red",
        opponent_options: dict[str, Any] | None = None,
        render_mode: str | None = None,
        workdir: str | Path | None = None,
        **options: Any,
    ):
        if play_as not in AGENTS:
            raise ValueError(f"play_as must be one of {', '.join(AGENTS)}, not {play_as!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.encoding = encoding(game, **options)
        self.render_mode = render_mode
        self.me = AGENTS.index(play_as)
        self.observation_space = observation_space(self.encoding)
        self.action_space = spaces.Discrete(self.encoding.num_actions)
        self._game = load_game(game, **options)
        types = registration(game).agent_types_module()
        self._to_engine: Callable[[Any], Any] = types.to_engine_action
        self._from_engine: Callable[[Any], Any] = types.from_engine_action
        self._opponent_class = agent_class(opponent, workdir)
        self._opponent_options = dict(opponent_options or {})
        self._opponent: Any = None
        self._kwargs: dict[str, Any] = {}
        self._chance = random.Random()
        self.game_state = self.encoding.new_state()
        self._done = True
        self._make_arrays()

    def _referee_kwargs(self, seed: int) -> dict[str, Any]:
        """The keyword arguments the referee gives an agent in every call (``referee.match.call_kwargs``): here
        no clock and no space limit, so those are None."""
        game = self._game
        kwargs = {"game": game.name, "game_options": dict(game.options), "seed": seed, **game.agent_kwargs,
                  **self._opponent_options}
        return {**kwargs, **{name: None for name in REFEREE_KWARGS if name not in ("game", "game_options", "seed")}}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """A new game and a new opponent, both seeded from ``seed``; the opponent's first actions if it starts."""
        super().reset(seed=seed)
        # Chance and the opponent draw from their own seeds, taken from the environment's generator.
        self._chance = random.Random(int(self.np_random.integers(2**63)))
        self._kwargs = self._referee_kwargs(int(self.np_random.integers(2**31)))
        self._opponent = self._opponent_class(color=PlayerColor(1 - self.me), **self._kwargs)
        self.game_state = self.encoding.new_state()
        self._done = False
        self._resolve_chance()
        if self._opponent_plays() is not None:
            # An episode cannot end at reset: an opponent that cannot open is a broken setting, not a win.
            raise RuntimeError(f"the opponent ({self._opponent_class.__name__}) played no legal first action")
        if self.render_mode == "human":
            self.render()
        return self._outputs(None)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Play index ``action``, then the opponent until it is this side's turn again or the game is over."""
        if self._done:
            raise RuntimeError("the game is over: call reset() first")
        state = self.game_state
        index = whole_number(action)  # a numpy integer is the int it is; None or 2.0 is a bug
        if index is None:
            raise TypeError(f"the action must be an index (an integer), not {action!r}")
        try:
            engine_action = self.encoding.action(state, index)
        except ValueError:
            return self._finish(1 - self.me, ILLEGAL, truncated=False)
        self._apply(engine_action, self.me)
        reason = self._opponent_plays()
        if reason is not None:
            return self._finish(self.me, reason, truncated=False)
        outcome = state.outcome
        if outcome is not None:
            return self._finish(outcome.winner, outcome.reason, truncated=outcome.reason == LIMIT_REASON)
        if self.render_mode == "human":
            self.render()
        observation, info = self._outputs(None)
        return observation, 0.0, False, False, info

    def action_masks(self) -> np.ndarray:
        """1 for each legal index now (sb3-contrib's ``MaskablePPO`` calls this); a new array every call."""
        if self._done:
            return np.zeros(self.encoding.num_actions, dtype=np.int8)
        return self._make_mask(self.game_state)  # all 0 once the game is over

    def _apply(self, action: Any, mover: int) -> None:
        """Apply an action, tell the opponent (as the referee tells both agents), then let chance act."""
        self.game_state.apply(action)
        self._opponent.turn(PlayerColor(mover) if mover != CHANCE else None, self._from_engine(action), **self._kwargs)
        self._resolve_chance()

    def _resolve_chance(self) -> None:
        state = self.game_state
        while state.current_player == CHANCE and not state.is_over:
            self._apply(draw_chance(self.encoding, state, self._chance), CHANCE)

    def _opponent_plays(self) -> str | None:
        """The opponent's actions while it is to act; :data:`OPPONENT_ILLEGAL` if one was not legal."""
        state = self.game_state
        other = 1 - self.me
        while not state.is_over and state.current_player == other:
            answer = self._opponent.action(**self._kwargs)
            engine_action = self._to_engine(answer)
            if engine_action is None or not state.is_legal(engine_action):
                return OPPONENT_ILLEGAL
            self._apply(engine_action, other)
        return None

    def _finish(self, winner: int | None, reason: str, truncated: bool) -> tuple[dict, float, bool, bool, dict]:
        self._done = True
        reward = 0.0 if winner is None else 1.0 if winner == self.me else -1.0
        if self.render_mode == "human":
            self.render()
        observation, info = self._outputs(reason)
        return observation, reward, not truncated, truncated, info

    def _outputs(self, reason: str | None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The observation (planes and mask) and the info (a copy of the mask; the game's end's reason)."""
        mask = self.action_masks()
        info: dict[str, Any] = {"action_mask": mask.copy()}
        if reason is not None:
            info["reason"] = reason
        return {"observation": self._observe(self.game_state, self.me), "action_mask": mask}, info

    def render(self) -> str | None:
        """The engine's text board: returned (``"ansi"``) or printed (``"human"``)."""
        return rendered(self.game_state, self.render_mode, "SingleAgentEnv")


def register() -> None:
    """Register the games with Gymnasium: ``gymnasium.make("referee/Cachex-v0", n=4, opponent="agents.greedy")``."""
    for game, env_id in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"{__name__}:SingleAgentEnv", kwargs={"game": game})


register()
