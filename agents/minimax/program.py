from __future__ import annotations

from typing import Any
from collections.abc import Hashable

from agents.common.alphabeta import AlphaBeta
from agents.common.agent import SearchAgent
from agents.common.clock import Deadline

#: Memory the transposition table may take without a space limit (400,000 of Infexion's entries).
TABLE_BYTES = 120_000_000

#: How many times its budget an iteration started in time may run on (the ``extend`` option).
EXTEND = 2.0


class Agent(SearchAgent):
    """Iterative-deepening alpha-beta on the game's evaluation (see README.md)."""

    name = "minimax"
    options = {
        # Deepest iteration (plies); the clock usually stops it first.
        "depth": (int, 64),
        # Plies of captures searched past the horizon.
        "quiescence": (int, 2),
        # Below the root, search only this many actions, best first (0: all
        # the heuristics offer). Unmeasured in play; see README.md.
        "breadth": (int, 0),
        # Late move reductions after this many actions at a node (0: none).
        "reduce_after": (int, 0),
        # On the clock: no iteration starts past the move's budget, but one
        # started may run on to this many times the budget before it is
        # abandoned; 1: the budget is the hard limit.
        "extend": (float, EXTEND),
    }

    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        self.search = AlphaBeta(
            self.heuristics,
            max_depth=max(1, self.config["depth"]),
            quiescence_depth=self.config["quiescence"],
            breadth=self.config["breadth"],
            reduce_after=self.config["reduce_after"],
            table_entries=self.memory_share(
                self.heuristics.table_entry_bytes, TABLE_BYTES // self.heuristics.table_entry_bytes
            ),
            rng=self.rng,
        )

    def choose(self, deadline: Deadline) -> Hashable:
        self.last = self.search.choose(self.view.state, deadline)
        return self.last.action
