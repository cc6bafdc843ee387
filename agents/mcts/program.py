from __future__ import annotations

from typing import Any
from collections.abc import Hashable

from agents.common.agent import SearchAgent
from agents.common.clock import Deadline
from agents.common.endgame import EndgameSolver
from agents.common.mcts import MCTS

#: Bytes one tree node takes with its per-action arrays: 3.1 to 3.8 KB measured
#: with tracemalloc on Infexion positions of 73 to 112 legal actions.
NODE_BYTES = 4_000

#: How many times its budget a move in doubt may take (the ``extend`` option).
EXTEND = 2.0

#: The endgame solver's reach (see the ``endgame`` option and README.md).
ENDGAME_PLIES = 4


class Agent(SearchAgent):
    """PUCT Monte Carlo tree search with heuristic priors (see README.md)."""

    name = "mcts"
    options = {
        # Simulations per move instead of the clock (reproducible with a seed).
        "iterations": (int, None),
        # Exploration constant; by default the game's (Infexion 2.5, others 1.5).
        "c_puct": (float, None),
        "widen": (float, 1.5),
        # Heuristic playout length before the evaluation cut-off.
        "rollout_depth": (int, 0),
        # Within this many plies of where every position is valued exactly
        # (Infexion: the 343-action limit), a complete alpha-beta search picks
        # the move when it finishes in half the move's time (0: never).
        "endgame": (int, ENDGAME_PLIES),
        # On the clock: a move still in doubt (another well-searched action
        # valued above the most visited) may take up to this many times its
        # budget; 1 for never.
        "extend": (float, EXTEND),
        # On the clock: stop a move's search once the rest of its budget could
        # not change the most visited action (the time saved goes to later moves).
        "stop_early": (bool, True),
    }

    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        self.search = MCTS(
            self.heuristics,
            c_puct=self.heuristics.c_puct if self.config["c_puct"] is None else self.config["c_puct"],
            widen=self.config["widen"],
            rollout_depth=self.config["rollout_depth"],
            max_nodes=self.memory_share(NODE_BYTES, 100_000),
            stop_early=self.config["stop_early"],
            rng=self.rng,
        )
        self.endgame = EndgameSolver(
            self.heuristics, self.config["endgame"],
            table_entries=self.memory_share(self.heuristics.table_entry_bytes, 50_000), rng=self.rng,
        )

    def choose(self, deadline: Deadline) -> Hashable:
        state = self.view.state
        # A fixed number of simulations is for reproducible games: no clock-dependent solver then.
        if self.config["iterations"] is None:
            action = self.endgame.solve(state, deadline)
            if action is not None:
                self.last = self.endgame.last
                return action
        self.last = self.search.choose(state, deadline, self.config["iterations"])
        return self.last.action

    def observed(self, action: Hashable) -> None:
        self.search.advance(action, self.view.state)
