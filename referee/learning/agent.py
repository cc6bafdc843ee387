"""Back to the referee: what a student built in OpenSpiel, PettingZoo or Gymnasium as an agent folder the referee
plays sealed, in a game, a tournament or on the battleground (docs/learning.md, "From an environment to a
tournament").

An agent folder holds a class ``Agent`` with the course protocol: ``__init__(color, **referee)``,
``action(**referee)``, ``turn(color, action, **referee)``.  :class:`EncodedAgent` is that protocol over the
encoding a learner trained on: it keeps the engine's position in step with the referee's ``turn()`` reports
(chance's events too) and gives :meth:`~EncodedAgent.observation` and :meth:`~EncodedAgent.legal_indices` as the
environments do; a subclass writes :meth:`~EncodedAgent.choose`, which returns an action integer.  Two are ready:

* :class:`PolicyAgent`: a :class:`~referee.learning.policy.MLPPolicy` model file read from the agent's own folder;
* :class:`MCTSAgent`: OpenSpiel's ``MCTSBot`` on the registered game, searching from the agent's position at
  every action, its simulations bounded by the referee's clock (``time_remaining``) when there is one.

``python -m referee learning-agent FOLDER --policy MODEL.npz`` (or ``--mcts``) writes such a folder.  Sealed, an
agent sees its own folder (read-only), the interpreter's packages (numpy, open_spiel) and this package's
agent-side modules (:data:`referee.hosting.mounts.AGENT_SIDE`).
"""
from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from referee.agentkit import GameView
from referee.games.base import GameState

from .encoding import Encoding, encoding

# Before numpy loads: OpenBLAS starts a thread per CPU (up to 64) as it loads, and a sealed agent may have 64
# processes and threads in all (the sandbox's pids limit), so on a machine of 62 CPUs or more numpy's import
# itself fails there.  One thread is also what an agent wants: the referee charges every thread's CPU time to
# its budget, and a small policy's products gain nothing from more.  An operator's own setting (--pass-env) wins.
if "numpy" not in sys.modules:
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, "1")


class EncodedAgent:
    """The course protocol over a game's encoding; a subclass chooses an action integer in :meth:`choose`."""

    def __init__(self, color: Any, **referee: Any):
        self.view = GameView(color, referee)
        #: 0 for Red, 1 for Blue: the side the observation is from.
        self.me = self.view.me
        game = self.view.game
        self.encoding: Encoding = encoding(game.name, **game.options)
        #: The referee's seed for this agent (None when it gives none): a subclass seeds its randomness from it.
        self.seed: int | None = referee.get("seed")

    @property
    def state(self) -> GameState:
        """The engine's position, as the referee's reports left it."""
        return self.view.state

    def observation(self) -> list[float]:
        """The encoding's planes from this agent's side, flat: what the environments gave the learner."""
        return self.encoding.observation(self.view.state, self.me)

    def legal_indices(self) -> list[int]:
        """The integers of the legal actions now, ascending (the environments' ``action_mask``)."""
        return self.encoding.legal_indices(self.view.state)

    def choose(self, **referee: Any) -> int:
        """The action integer to play now; ``referee`` is the referee's keyword arguments (``time_remaining``...)."""
        raise NotImplementedError(f"{type(self).__name__} must define choose(**referee) -> int")

    def action(self, **referee: Any) -> Any:
        index = self.choose(**referee)
        return self.view.to_agent(self.encoding.action(self.view.state, int(index)))

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        self.view.observe(action)

    @classmethod
    def folder(cls) -> Path:
        """The folder of the module that defines the agent's class: where its model files are."""
        module = sys.modules[cls.__module__]
        if getattr(module, "__file__", None) is None:
            raise ValueError(f"{cls.__module__} has no file, so no folder to read a model from")
        return Path(str(module.__file__)).resolve().parent

    def rng_seed(self) -> int | None:
        """A seed of this agent's own, from the referee's seed and its colour (None without a seed)."""
        # The colour is mixed in so that two seeded copies of one agent do not mirror each other.
        return None if self.seed is None else random.Random(f"{self.seed}:{self.me}").getrandbits(32)


class PolicyAgent(EncodedAgent):
    """Plays a :class:`~referee.learning.policy.MLPPolicy`: the legal action of the highest logit.

    A subclass names its model file (``model``, in the folder of the module defining it); ``sample = True``
    draws each action from the policy's probabilities instead, seeded from the referee's seed.
    """

    model = "model.npz"
    sample = False

    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        import numpy as np  # only here: the protocol above needs no numpy

        from .policy import MLPPolicy

        self._np = np
        self.policy = MLPPolicy.load(self.folder() / self.model)
        enc = self.encoding
        size = 1
        for extent in enc.observation_shape:
            size *= extent
        self.policy.check(enc.name, enc.options, size, enc.num_actions)
        self.rng = np.random.default_rng(self.rng_seed()) if self.sample else None

    def choose(self, **referee: Any) -> int:
        observation = self._np.asarray(self.observation(), self._np.float32)
        return self.policy.choose(observation, self.legal_indices(), self.rng)


class MCTSAgent(EncodedAgent):
    """OpenSpiel's ``MCTSBot`` with random rollouts on the registered game (:mod:`referee.learning.openspiel`).

    Each action searches from the agent's own position.  Without a clock it runs ``simulations``; with the
    referee's ``time_remaining`` (and the battleground's ``wall_remaining``) it runs as many as
    ``1 / moves_ahead`` of the time left allows at the rate its earlier searches ran, at least one and at most
    ``simulations`` (the first search, before any rate is known, runs at most ``probe``).
    """

    simulations = 100
    uct_c = 2.0
    rollouts = 1
    #: Actions a rollout plays at most before it scores the position (None: to the game's end).
    rollout_length: int | None = None
    #: Share of the time left one action may take: 1 / moves_ahead.
    moves_ahead = 30
    probe = 10

    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        import numpy as np
        from open_spiel.python.algorithms import mcts

        from . import openspiel

        random_state = np.random.RandomState(self.rng_seed())
        self.game = openspiel.load(self.encoding.name, **self.openspiel_options(openspiel.GAMES))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state, max_length=self.rollout_length)
        self.bot = mcts.MCTSBot(self.game, self.uct_c, self.simulations, evaluator, random_state=random_state)
        #: Simulations a CPU second, measured on this agent's own searches (None until one ran).
        self.rate: float | None = None

    def openspiel_options(self, games: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """The game's options as the OpenSpiel game's parameters (``games``: :data:`.openspiel.GAMES`).

        The referee gives every option of a flag (Infinitron's ``armour``, False); one OpenSpiel has no parameter
        for is dropped while it is off, and refused when on (``cities`` given outright: ``seed`` places them).
        """
        known = games[f"referee_{self.encoding.name}"][1]
        options = {name: value for name, value in self.encoding.options.items() if name in known}
        for name, value in self.encoding.options.items():
            if name not in known and value not in (None, False):
                raise ValueError(f"{self.encoding.name}: the option {name}={value!r} has no OpenSpiel parameter "
                                 f"({', '.join(known)})")
        return options

    def budget(self, time_remaining: float | None, wall_remaining: float | None = None) -> int:
        """How many simulations the next search runs."""
        clocks = [t for t in (time_remaining, wall_remaining) if t is not None]
        if not clocks:
            return self.simulations
        if self.rate is None:
            return min(self.simulations, self.probe)
        return max(1, min(self.simulations, int(self.rate * min(clocks) / self.moves_ahead)))

    def choose(self, **referee: Any) -> int:
        state = self.game.new_initial_state()
        # The search starts from this agent's position: a copy without the engine's undo history (OpenSpiel
        # never undoes); the actions that led to it stay unknown, which a search never asks for.
        state.position.state = self.view.state.copy_without_history()
        self.bot.max_simulations = self.budget(referee.get("time_remaining"), referee.get("wall_remaining"))
        started = time.process_time()
        index = int(self.bot.step(state))
        spent = time.process_time() - started
        if spent > 0:
            self.rate = self.bot.max_simulations / spent
        return index


__all__ = ["EncodedAgent", "MCTSAgent", "PolicyAgent"]
